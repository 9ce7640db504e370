"""Grid-world observations and goals as the network's tensors (worlds/gridworld/spec.py layout).

- grid: the egocentric block ids [L, V, V] and the mob ids [L, V, V] stacked into one
  [2L, V, V] id grid; mob ids are shifted past the cell ids so that one embedding table
  holds both.  Every id is the network's (spec.Vocab `cell_as`, `mob_as`, `biome_as`): a
  kind the world gained after a network's vocabulary reads as its stand-in.
- vec: log(1 + count) of every inventory item, the facing (one-hot), the time of day,
  health, mining progress, the depth (y / HEIGHT) and the biome (one-hot).
- goal: (skill index, target index) from `spec.goal_code`.
- around (nets with shape.around): the pooled surroundings map, surround.py (uint8 counts).
- faced (nets with shape.faced): the (cell id, mob id) the agent faces, mob ids shifted as in grid.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from skills.learned import surround
from skills.learned.model import NetShape
from worlds.gridworld import spec
from worlds.types import SKILLS

LEARNED_SKILLS = (
    "mine",
    "kill",
    "find",
)  # the skills the policy drives; craft/smelt/equip are single functional actions


def net_shape(vocab: spec.Vocab, **sizes: int) -> NetShape:
    return NetShape(
        n_cells=vocab.n_policy_cells + vocab.n_policy_mobs,
        grid_layers=2 * len(spec.VIEW_LEVELS),
        view=spec.VIEW,
        vec_dim=vec_dim(vocab),
        n_targets=vocab.n_items + vocab.n_policy_mobs,
        n_skills=len(SKILLS),
        n_actions=len(spec.PRIMITIVES),
        **{"around": surround.SIDE, "faced": 1, **sizes},
    )


def vec_dim(vocab: spec.Vocab) -> int:
    return vocab.n_items + len(spec.FACINGS) + 2 + 3 + vocab.n_policy_biomes


def time_column(vocab: spec.Vocab) -> int:
    """Where the time-of-day fraction sits in `vec` (after the inventory and facing)."""
    return vocab.n_items + len(spec.FACINGS)


def mining_column(vocab: spec.Vocab) -> int:
    """Where the mining progress sits in `vec` (after the inventory, facing, time and health)."""
    return vocab.n_items + len(spec.FACINGS) + 2 + 1


def _batched(obs: dict[str, Any]) -> tuple[dict[str, np.ndarray], bool]:
    single = np.asarray(obs["blocks"]).ndim == 3
    if single:
        return {k: np.asarray(v)[None] for k, v in obs.items() if k in spec.OBS_KEYS}, True
    return {k: np.asarray(v) for k, v in obs.items() if k in spec.OBS_KEYS}, False


def encode_obs(obs: dict[str, Any], vocab: spec.Vocab) -> tuple[np.ndarray, np.ndarray]:
    """One observation or a batch -> (grid int16 [n, 2L, V, V], vec float32 [n, D])."""
    o, _ = _batched(obs)
    n = o["blocks"].shape[0]
    blocks, mobs = o["blocks"], o["mobs"]
    if vocab.grown and blocks.max(initial=0) >= vocab.first_cell_as:  # a kind a network never saw: its stand-in
        blocks = vocab.cell_as[blocks]
    if vocab.grown and mobs.max(initial=0) >= vocab.first_mob_as:  # (or a kind it learnt since, its own id)
        mobs = vocab.mob_as[mobs]
    grid = np.concatenate([blocks.astype(np.int16), mobs.astype(np.int16) + np.int16(vocab.n_policy_cells)], axis=1)
    parts = [np.log1p(np.maximum(o["inventory"], 0).astype(np.float32))]
    facing = np.zeros((n, len(spec.FACINGS)), np.float32)
    facing[np.arange(n), o["facing"].reshape(n).astype(np.int64)] = 1.0
    parts.append(facing)
    parts.append(o["time"].reshape(n, 2).astype(np.float32))
    parts.append(o["health"].reshape(n, 1).astype(np.float32) / 20.0)
    parts.append(o["mining"].reshape(n, 1).astype(np.float32))
    parts.append(o["position"].reshape(n, 3)[:, 1:2].astype(np.float32) / spec.HEIGHT)
    biome = np.zeros((n, vocab.n_policy_biomes), np.float32)
    biome[np.arange(n), vocab.biome_as[o["biome"].reshape(n).astype(np.int64)]] = 1.0
    parts.append(biome)
    return grid, np.concatenate(parts, axis=1)


def encode_extras(obs: dict[str, Any], vocab: spec.Vocab, shape: NetShape | None = None) -> dict[str, np.ndarray]:
    """The inputs beyond grid and vec: "faced" int16 [n, 2] always; "around" uint8 [n, C, S, S]
    where the observation carries the surroundings map (an error where `shape` needs it and
    it does not)."""
    f = surround.faced(obs)
    if vocab.grown:
        f[:, 0], f[:, 1] = vocab.cell_as[f[:, 0]], vocab.mob_as[f[:, 1]]
    f[:, 1] += vocab.n_policy_cells
    out = {"faced": f.astype(np.int16)}
    if surround.KEY in obs:
        a = np.asarray(obs[surround.KEY])
        out["around"] = a[None] if a.ndim == 3 else a
    elif shape is not None and shape.around:
        raise ValueError("this network needs the surroundings map: observe with skills.learned.surround.observe")
    return out


def extra_tensors(extras: dict[str, np.ndarray], shape: NetShape, device: str) -> dict[str, torch.Tensor]:
    """The network's keyword inputs (around, faced) for what its shape uses."""
    out = {}
    if shape.around:
        out["around"] = torch.as_tensor(extras["around"], device=device)
    if shape.faced:
        out["faced"] = torch.as_tensor(extras["faced"], device=device).long()
    return out


def to_tensors(grid: np.ndarray, vec: np.ndarray, goals: np.ndarray, device: str) -> tuple[torch.Tensor, ...]:
    return (
        torch.as_tensor(grid, device=device).long(),
        torch.as_tensor(vec, device=device),
        torch.as_tensor(goals, device=device).long(),
    )


def goal_key(goal: Any) -> str:
    """'mine:log', 'kill:cow': how a trained goal is named on a card."""
    ((name, _),) = list(goal.obj.items())[:1]
    return f"{goal.action}:{name}"
