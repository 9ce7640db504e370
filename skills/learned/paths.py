"""Where the learned parts' checkpoints are, and their error type; torch-free, so that the
CLI can pick its defaults without importing torch.

`DEPS_CONTROLLER_CHECKPOINT` / `DEPS_SELECTOR_CHECKPOINT` (a path) override the shipped
`skills/checkpoints/controller.pt` / `selector.pt`. The controller may be several checkpoints,
each driving the goals it was trained for (skills/learned/routed.py): the variable then lists
their paths joined by the platform's path separator (':' here), as PATH does, the first that
knows a goal driving it; shipped: `controller.pt`, then the checkpoints of SHIPPED_MORE in their
order (each card says which goals it drives and how they were chosen).
"""

from __future__ import annotations

import os
from pathlib import Path

SHIPPED = Path(__file__).resolve().parent.parent / "checkpoints"
ENSEMBLE_SEP = "+"  # paths joined by it load as one Ensemble (skills/learned/ensemble.py)
ENV = {"controller": "DEPS_CONTROLLER_CHECKPOINT", "selector": "DEPS_SELECTOR_CHECKPOINT"}


class LearnedError(ValueError):
    """A learned part cannot be used as asked (wrong world, bad checkpoint); one line."""


class CheckpointError(LearnedError):
    """A checkpoint that is missing, unreadable or does not fit; the message is one line."""


def checkpoint_path(kind: str) -> Path:
    """The (first) checkpoint the `learned` controller (kind='controller') or the `horizon`
    selector (kind='selector') uses: the environment variable's path when set, else the shipped one."""
    return checkpoint_paths(kind)[0]


# shipped checkpoints after `<kind>.pt`, in order; all but the last are cut down to a few goals
# (training/controller/restrict.py): goals `<kind>.pt` was not trained for, or ones it drives worse
# (iron ore since round 42, now controller-iron2.pt; sand and diamond, round 85). A cut one drives its
# card's goals even before `<kind>.pt`, the first cut one that names a goal winning; the rest go to
# the first that knows them (routed.py)
SHIPPED_MORE = {
    "controller": (
        "controller-iron2.pt",
        "controller-obsidian.pt",
        "controller-swamp-snow.pt",
        "controller-tall.pt",
        "controller-jungle.pt",
        "controller-harvest11.pt",
        "controller-harvest9.pt",
        "controller-harvest6.pt",
        "controller-harvest5.pt",
        "controller-harvest12.pt",
        "controller-harvest13.pt",
        "controller-harvest14.pt",
        "controller-harvest15.pt",
        "controller-harvest3.pt",
        "controller-harvest.pt",
    ),
    "selector": (),
}


def checkpoint_paths(kind: str, given: str | None = None) -> list[Path]:
    """Every checkpoint of `kind`, first first: `given` or the environment variable split at
    os.pathsep, else the shipped `<kind>.pt` and those of SHIPPED_MORE that are there."""
    spec = given or os.environ.get(ENV[kind])
    if spec:
        return [Path(p) for p in str(spec).split(os.pathsep) if p]
    more = [SHIPPED / name for name in SHIPPED_MORE[kind] if (SHIPPED / name).is_file()]
    return [SHIPPED / f"{kind}.pt", *more]


def checkpoint_files(kind: str, given: str | None = None) -> list[Path]:
    """The files of checkpoint_paths, an ensemble's members (`a.pt+b.pt`) each on its own."""
    return [Path(m) for p in checkpoint_paths(kind, given) for m in str(p).split(ENSEMBLE_SEP)]


def available(kind: str) -> bool:
    """Whether the (first) checkpoint of this kind is there to be loaded (not whether it fits)."""
    return all(Path(m).is_file() for m in str(checkpoint_path(kind)).split(ENSEMBLE_SEP))
