"""The trained network at inference time, batched across worlds.

`GoalPolicy.act(obs, goals)` gives one primitive action per world for pi(a | s, g);
`GoalPolicy.expected_horizon(obs, goals)` gives E[h] under mu(h | s, g). One observation or
a batch of them (the batched grid world's arrays), on CUDA when present, else the CPU.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import torch

from skills.learned import checkpoint, sense
from skills.learned.choose import choose, idle_turns  # noqa: F401  (idle_turns: imported from here too)
from skills.learned.ensemble import Ensemble
from skills.learned.features import encode_extras, encode_obs, extra_tensors, goal_key, net_shape, to_tensors
from skills.learned.kept import KeptReadings
from skills.learned.model import bin_centres
from skills.learned.paths import ENSEMBLE_SEP, LearnedError, checkpoint_paths
from skills.learned.routed import RoutedPolicy
from worlds.gridworld import spec


def pick_device(device: str | None = None) -> str:
    if device in (None, "auto"):
        return "cuda" if torch.cuda.is_available() else "cpu"
    return device


PRECISIONS = ("auto", "fp32", "bf16")
PRECISION_ENV = "DEPS_POLICY_PRECISION"


def pick_precision(device: str, precision: str | None = None) -> str:
    """'fp32' or 'bf16': the arithmetic the network's convolutions and linear layers run in at
    inference (`precision`, else $DEPS_POLICY_PRECISION, else 'auto'). 'auto' takes bf16 on a CPU
    with native bfloat16 instructions (AVX512-BF16 or AMX, where oneDNN runs the convolutions
    about four times faster; issue 21), fp32 elsewhere, where bf16 would be emulated. Weights
    stay fp32; torch's autocast casts per call, so a net being trained is read as it is now."""
    p = (precision or os.environ.get(PRECISION_ENV) or "auto").strip().lower()
    if p not in PRECISIONS:
        raise LearnedError(f"policy precision {p!r} is not known; accepted: {', '.join(PRECISIONS)} (${PRECISION_ENV})")
    if p == "auto":
        return "bf16" if device == "cpu" and _cpu_has_bf16() else "fp32"
    return p


@lru_cache(maxsize=1)
def _cpu_has_bf16() -> bool:
    try:
        return bool(torch.backends.mkldnn.is_available() and torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):  # a torch build without the probe: assume emulated
        return False


class GoalPolicy:
    def __init__(
        self,
        net: Any,
        kb: Any,
        card: dict,
        device: str = "cpu",
        precision: str | None = None,
        keep_readings: bool = True,
    ):
        self.net, self.kb, self.card, self.device = net, kb, card, device
        self.precision = pick_precision(device, precision)
        sense.zoom_on()  # a bad $DEPS_TARGET_ZOOM is refused here, not in the middle of a run
        self.vocab = spec.make_vocab(kb)
        self.goals = set(card.get("goals") or [])  # 'mine:log', 'kill:cow': what it was trained on
        # the network's readings of the last batch, reused on the rows where the observation did not change
        self.kept = KeptReadings() if keep_readings else None

    @classmethod
    def load(cls, kind: str, kb: Any = None, device: str | None = None, path: str | None = None) -> GoalPolicy:
        """The checkpoint of `kind` ('controller' or 'selector'), or a RoutedPolicy where `path` (or
        the environment, or the shipped set) names several (paths.checkpoint_paths); CheckpointError
        when one does not fit."""
        if kb is None:
            from worlds.knowledge import load_kb

            kb = load_kb("1.11.2")
        device = pick_device(device)
        if device == "cpu" and torch.get_num_threads() > 1 and "OMP_NUM_THREADS" not in os.environ:
            torch.set_num_threads(1)  # a net this small runs fastest on one thread; more only spin on a busy CPU
        parts: list[Any] = []
        for p in checkpoint_paths(kind, path):
            members, names = [], str(p).split(ENSEMBLE_SEP)  # several joined: one Ensemble (ensemble.py)
            for one in names:
                net, card = _load_cached(one, kb.version, device, kind)
                members.append(cls(net, kb, card, device))
            parts.append(members[0] if len(members) == 1 else Ensemble(members, names))
        if len(parts) == 1:
            return parts[0]
        return RoutedPolicy(parts)  # several: each goal to the first trained for it

    def knows(self, goal: Any) -> bool:
        return goal_key(goal) in self.goals

    def measured_success(self, goal: Any) -> float | None:
        """The goal's one-goal success rate measured for this checkpoint (its card's
        "skill_success"), or None when not measured."""
        rate = (self.card.get("skill_success") or {}).get(goal_key(goal))
        return None if rate is None else float(rate)

    def codes(self, goals: Sequence[Any]) -> np.ndarray:
        return np.array([spec.goal_code(g, self.vocab, self.kb) for g in goals], dtype=np.int64).reshape(-1, 2)

    @torch.inference_mode()  # no autograd bookkeeping at all (issue 21); the logits are only read
    def logits(self, obs: dict, codes: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        grid, vec = encode_obs(obs, self.vocab)
        g, v, c = to_tensors(grid, vec, codes, self.device)
        ex = extra_tensors(encode_extras(obs, self.vocab, self.net.shape), self.net.shape, self.device)
        with self._autocast():
            if self.kept is not None:
                ex["readings"] = self.kept.read(self.net, {"grid": g, "around": ex.get("around")}, c)
            policy, horizon = self.net(g, v, c, **ex)
        return policy.float(), horizon.float()

    def _autocast(self) -> Any:
        return torch.autocast(self.device, dtype=torch.bfloat16, enabled=self.precision == "bf16")

    def act(
        self,
        obs: dict,
        codes: np.ndarray,
        mask: np.ndarray | None = None,
        greedy: bool = True,
        rng: np.random.Generator | None = None,
        temperature: float = 1.0,
    ) -> np.ndarray:
        """Primitive action index per world; `mask` [A] or [n, A] bool limits which actions may be
        chosen, and a turn to the facing already held is never chosen (`idle_turns`);
        sampled at `temperature` unless greedy."""
        logits, _ = self.logits(obs, codes)
        return choose(logits, obs["facing"], mask, greedy, rng, temperature)

    @torch.inference_mode()
    def expected_horizon(self, obs: dict, codes: np.ndarray) -> np.ndarray:
        grid, vec = encode_obs(obs, self.vocab)
        extras = encode_extras(obs, self.vocab, self.net.shape)
        if grid.shape[0] != len(codes):  # one state, several goals: repeat the state
            grid, vec = np.repeat(grid, len(codes), 0), np.repeat(vec, len(codes), 0)
            extras = {k: np.repeat(a, len(codes), 0) for k, a in extras.items()}
        g, v, c = to_tensors(grid, vec, codes, self.device)
        ex = extra_tensors(extras, self.net.shape, self.device)
        with self._autocast():
            _, logits = self.net(g, v, c, **ex)
        return (torch.softmax(logits.float(), -1) @ bin_centres().to(logits.device)).cpu().numpy()


@lru_cache(maxsize=8)
def _load_cached(path: str, mc_version: str, device: str, kind: str):
    from worlds.knowledge import load_kb

    vocab = spec.make_vocab(load_kb(mc_version))
    return checkpoint.load(path, expected=net_shape(vocab), vocab=vocab, device=device, env_var=checkpoint.ENV[kind])
