"""Where the learned parts' checkpoints are, and their error type; torch-free, so that the
CLI can pick its defaults without importing torch.

`DEPS_CONTROLLER_CHECKPOINT` / `DEPS_SELECTOR_CHECKPOINT` (a path) override the shipped
`skills/checkpoints/controller.pt` / `selector.pt`.
"""

from __future__ import annotations

import os
from pathlib import Path

SHIPPED = Path(__file__).resolve().parent.parent / "checkpoints"
ENV = {"controller": "DEPS_CONTROLLER_CHECKPOINT", "selector": "DEPS_SELECTOR_CHECKPOINT"}


class LearnedError(ValueError):
    """A learned part cannot be used as asked (wrong world, bad checkpoint); one line."""


class CheckpointError(LearnedError):
    """A checkpoint that is missing, unreadable or does not fit; the message is one line."""


def checkpoint_path(kind: str) -> Path:
    """The checkpoint the `learned` controller (kind='controller') or the `horizon` selector
    (kind='selector') uses: the environment variable's path when set, else the shipped one."""
    env = os.environ.get(ENV[kind])
    return Path(env) if env else SHIPPED / f"{kind}.pt"


def available(kind: str) -> bool:
    """Whether a checkpoint of this kind is there to be loaded (not whether it fits)."""
    return checkpoint_path(kind).is_file()
