"""How the policy picks one action per world from its logits: masked, never an idle turn,
sampled at a temperature or greedy. Shared by GoalPolicy and Ensemble (ensemble.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from worlds.gridworld import spec

# the primitive that turns the agent to each facing of spec.FACINGS (north, south, east, west, up, down)
TURN_TO = np.array([spec.PRIMITIVE_ID[f"face_{f}"] for f in spec.FACINGS], dtype=np.int64)


def idle_turns(facing: Any, n_actions: int = len(spec.PRIMITIVES)) -> np.ndarray:
    """[n, A] True at the turn to the facing each agent already has: an action that changes
    nothing, so a policy that picks it sees the same state again and may pick it again
    (a Markov policy's loop; the trained one did `face_up` 200 times under a tree)."""
    f = np.asarray(facing).reshape(-1).astype(np.int64)
    idle = np.zeros((len(f), n_actions), dtype=bool)
    idle[np.arange(len(f)), TURN_TO[f]] = True
    return idle


def choose(
    logits: torch.Tensor,
    facing: Any,
    mask: np.ndarray | None = None,
    greedy: bool = True,
    rng: np.random.Generator | None = None,
    temperature: float = 1.0,
) -> np.ndarray:
    """Primitive action index per world from [n, A] logits; `mask` [A] or [n, A] bool limits which
    actions may be chosen, and a turn to the facing already held (`facing` [n]) never is."""
    logits = logits / max(float(temperature), 1e-3)
    allowed = ~idle_turns(facing, logits.shape[-1])
    if mask is not None:
        allowed &= np.asarray(mask, dtype=bool)
    logits = logits.masked_fill(~torch.as_tensor(allowed, device=logits.device), float("-inf"))
    if greedy:
        return logits.argmax(-1).cpu().numpy()
    p = torch.softmax(logits, -1).cpu().numpy().astype(np.float64)
    rng = rng or np.random.default_rng()
    # what rng.choice(len(row), p=row / row.sum()) draws row by row (one uniform each, the
    # same stream, the same actions), in one pass (issue 21)
    cdf = np.cumsum(p / p.sum(1, keepdims=True), axis=1)
    cdf /= cdf[:, -1:]
    return (cdf <= rng.random(len(p))[:, None]).sum(1)
