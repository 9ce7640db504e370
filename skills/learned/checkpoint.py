"""Checkpoints of the goal-conditioned network: weights plus what is needed to trust them.

A checkpoint stores the network's shape, the vocabulary version of the grid world it was
trained on (cell ids, inventory layout, actions) and the goals it was trained on, beside the weights and a
card (command, data size, seed, device, wall time, accuracy). Loading checks all of it
against the running world, so a checkpoint of another shape or vocabulary is refused with
one line instead of producing nonsense.

Where they are found: `DEPS_CONTROLLER_CHECKPOINT` / `DEPS_SELECTOR_CHECKPOINT` (a path), else
the shipped `skills/checkpoints/controller.pt` / `selector.pt`.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import torch

from skills.learned.model import GoalNet, NetShape
from skills.learned.paths import ENV, SHIPPED, CheckpointError, available, checkpoint_path  # noqa: F401

FORMAT = "deps-goalnet-1"


def save(path: str | Path, net: GoalNet, *, vocab_version: str, goals: list[str], card: dict[str, Any]) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    card = json.loads(json.dumps(card, default=str))  # plain data only: torch.load(weights_only=True) reads it back
    state = {
        k: v.detach().to("cpu").half() if v.is_floating_point() else v.cpu() for k, v in net.state_dict().items()
    }  # float16 on disk: a few hundred KB
    torch.save(
        {
            "format": FORMAT,
            "shape": net.shape.to_dict(),
            "vocab_version": vocab_version,
            "goals": list(goals),
            "state_dict": state,
            "card": card,
        },
        path,
    )
    card_path = path.with_suffix(".card.json")
    card_path.write_text(
        json.dumps(
            {
                **card,
                "file": path.name,
                "bytes": path.stat().st_size,
                "vocab_version": vocab_version,
                "shape": net.shape.to_dict(),
            },
            indent=2,
        )
        + "\n"
    )
    return path


def load(
    path: str | Path,
    *,
    expected: NetShape,
    vocab_version: str | None = None,
    device: str = "cpu",
    env_var: str | None = None,
    vocab: Any = None,
) -> tuple[GoalNet, dict]:
    """The network in eval mode and its card (with "goals": the goals it was trained on);
    CheckpointError (one line) when it does not fit. With `vocab` (spec.Vocab: its version is
    the one checked), a checkpoint trained before a kind was grown into the vocabulary loads
    grown (grow()): it reads the new kind as it read its stand-in."""
    vocab_version = vocab.version if vocab is not None else vocab_version
    path = Path(path)
    where = f" (from ${env_var})" if env_var and os.environ.get(env_var) else ""
    if not path.is_file():
        raise CheckpointError(
            f"checkpoint {str(path)!r}{where} not found; accepted: a .pt file written by "
            "'deps train controller|selector --out DIR'"
        )
    try:
        blob = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - any unreadable file gets the same one line
        raise CheckpointError(
            f"checkpoint {str(path)!r}{where} is not a readable torch file "
            f"({type(e).__name__}); accepted: a .pt file written by 'deps train'"
        ) from e
    if not isinstance(blob, dict) or blob.get("format") != FORMAT:
        raise CheckpointError(
            f"checkpoint {str(path)!r} is not a {FORMAT} checkpoint; "
            "accepted: a .pt file written by 'deps train controller|selector'"
        )
    growth = next((g for g in getattr(vocab, "growths", ()) if g.version == blob.get("vocab_version")), None)
    if growth is not None and isinstance(blob.get("state_dict"), dict) and isinstance(blob.get("shape"), dict):
        blob = {**blob, **grow(blob["state_dict"], blob["shape"], growth), "vocab_version": vocab_version}
    if blob.get("vocab_version") != vocab_version:
        raise CheckpointError(
            f"checkpoint {str(path)!r} was trained on grid vocabulary {blob.get('vocab_version')!r}, "
            f"this world uses {vocab_version!r}; retrain with 'deps train'"
        )
    got = dict(blob.get("shape") or {})
    want = expected.to_dict()
    state = dict(blob["state_dict"]) if isinstance(blob.get("state_dict"), dict) else blob.get("state_dict")
    if isinstance(state, dict) and isinstance(got.get("n_skills"), int) and got["n_skills"] < want["n_skills"]:
        state = with_skill_rows(state, want["n_skills"])  # trained before `find` was a goal skill
        got["n_skills"] = want["n_skills"]
    bad = [
        f"{k} {got.get(k)} != {want[k]}"
        for k in ("n_cells", "grid_layers", "view", "vec_dim", "n_targets", "n_skills", "n_actions")
        if got.get(k) != want[k]
    ]
    if bad:
        raise CheckpointError(
            f"checkpoint {str(path)!r} has another shape ({'; '.join(bad)}); retrain with 'deps train' for this world"
        )
    try:
        shape = NetShape(**got)
        net = GoalNet(shape)
        net.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in state.items()})
    except (TypeError, RuntimeError, KeyError) as e:
        raise CheckpointError(
            f"checkpoint {str(path)!r} does not load into the network of the shape it records ({_first_fault(e)}); "
            "accepted: a checkpoint written by 'deps train' or the training pipeline, unedited"
        ) from e
    card = {**dict(blob.get("card") or {}), "goals": list(blob.get("goals") or [])}
    measured = _measured_success(path.with_suffix(".card.json"))
    if measured is not None:
        card["skill_success"] = measured
    return net.to(device).eval(), card


def _measured_success(card_path: Path) -> dict[str, float] | None:
    """The card file's "skill_success" ({"mine:log": 0.95, ...}, measured after training by
    `python -m experiments.skill_table`), or None when the card has none."""
    if not card_path.is_file():
        return None
    try:
        got = json.loads(card_path.read_text()).get("skill_success")
        return None if got is None else {str(k): float(v) for k, v in dict(got).items()}
    except (ValueError, TypeError, AttributeError) as e:
        raise CheckpointError(
            f"card {str(card_path)!r} has no readable skill_success ({type(e).__name__}); "
            'accepted: {"skill_success": {"mine:log": 0.95, ...}}'
        ) from e


def with_skill_rows(state: dict, n_skills: int) -> dict:
    """A state dict whose goal-skill embedding has `n_skills` rows: a checkpoint trained before a
    skill was appended to worlds.types.SKILLS (find) gets zero rows for it. Its card lists no goal
    of that skill, so the controller never asks it for one (policy.knows)."""
    w = state.get("goal_skill.weight")
    if w is None or w.shape[0] >= n_skills:
        return state
    pad = w.new_zeros((n_skills - w.shape[0], w.shape[1]))
    return {**state, "goal_skill.weight": torch.cat([w, pad], 0)}


# the weights indexed by a cell-or-mob id (their axis), and by a goal target
_KIND_AXES = {
    "cells.weight": 0,
    "faced_ids.weight": 0,
    "around_gate.weight": 0,
    "around_gate.bias": 0,
    "around_in.weight": 1,
}


def grow(state: dict, shape: dict, growth: Any) -> dict:
    """{"state_dict", "shape"} of a checkpoint trained on the vocabulary `growth.version`, grown to
    the current one (spec.Growth): each kind's rows (its embeddings, its gate, its channel of the
    surroundings map's first conv) and each goal target's are copied from the old row it was read
    as, so a grown kind starts as its stand-in."""
    kinds, targets = torch.as_tensor(growth.kinds), torch.as_tensor(growth.targets)
    out = dict(state)
    for key, axis in _KIND_AXES.items():
        if key in out:
            out[key] = out[key].index_select(axis, kinds)
    if "goal_target.weight" in out:
        out["goal_target.weight"] = out["goal_target.weight"].index_select(0, targets)
    return {"state_dict": out, "shape": {**shape, "n_cells": len(kinds), "n_targets": len(targets)}}


def _first_fault(e: Exception) -> str:
    """The first thing torch's load found wrong, in one short phrase: a weight of another shape, or
    the names missing or unexpected (torch lists every mismatch, hundreds of characters)."""
    text = " ".join(str(e).split())
    size = re.search(
        r"size mismatch for ([\w.]+): copying a param with shape torch\.Size\((\[[^\]]*\])\) from "
        r"checkpoint, the shape in current model is torch\.Size\((\[[^\]]*\])\)",
        text,
    )
    if size:
        return f"{size[1]} is {size[2]} there, the network wants {size[3]}"
    names = re.search(r"(Missing key\(s\)|Unexpected key\(s\)) in state_dict: ((?:\"[^\"]+\",? ?){1,3})", text)
    if names:
        return f"{names[1].lower()}: {names[2].strip().rstrip(',')}"
    return text if len(text) <= 160 else text[:157] + "..."
