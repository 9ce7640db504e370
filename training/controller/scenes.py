"""Scatter maps: a flat plain with trees, sand, and animals placed at chosen distances from
the agent (worlds/gridworld/layout.py's `layout` option).

Generated worlds seldom put two kinds of source at controlled distances, which is what
learning "how far is this goal from here" and DEPS's Figure 4 both need: the training data
mixes these maps with generated ones, and experiments/figure4.py builds its episodes from
them (other seeds).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# (skill, item) -> what to place: a cell name (block at ground level, or a tree) or a mob
SCATTER_GOALS: dict[tuple[str, str], str] = {
    ("mine", "log"): "tree",
    ("mine", "sand"): "sand",
    ("kill", "cow"): "cow",
    ("kill", "pig"): "pig",
    ("kill", "sheep"): "sheep",
    ("kill", "chicken"): "chicken",
}
GROUND = 64


def scatter_layout(
    rng: np.random.Generator,
    kinds: Sequence[tuple[str, str]],
    size: tuple[int, int],
    distances: Sequence[int] | None = None,
    max_distance: int = 12,
    used: set | None = None,
) -> dict:
    """A layout with one source of each goal kind, at `distances` (Chebyshev, cells) or a
    random distance 2..max_distance each, in a random direction; the agent at the centre."""
    X, Z = size
    cx, cz = X // 2, Z // 2
    used = set(used or ()) | {(cx, cz)}
    blocks: list[list] = []
    mobs: list[list] = []
    for n, kind in enumerate(kinds):
        for _ in range(1000):
            d = int(distances[n]) if distances is not None else int(rng.integers(2, max_distance + 1))
            t = int(rng.integers(-d, d + 1))
            dx, dz = ((t, -d), (t, d), (d, t), (-d, t))[int(rng.integers(4))]
            x, z = cx + dx, cz + dz
            if (x, z) not in used and 1 <= x < X - 1 and 1 <= z < Z - 1:
                break
        used.add((x, z))
        what = SCATTER_GOALS[kind]
        if what == "tree":
            blocks += [[x, GROUND + 1 + h, z, "oak_log"] for h in range(int(rng.integers(3, 6)))]
        elif what == "sand":
            blocks.append([x, GROUND, z, "sand"])
        else:
            mobs.append([x, GROUND + 1, z, what])
    return {"ground": GROUND, "blocks": blocks, "mobs": mobs, "agent": [cx, GROUND + 1, cz]}


TRAIN_MAX_DISTANCE = 20  # as far as experiments/figure4.py's measured setting places sources


def training_scatter(rng: np.random.Generator, size: tuple[int, int]) -> dict:
    """A training map: every kind once or twice, at random distances up to TRAIN_MAX_DISTANCE."""
    kinds = [k for k in SCATTER_GOALS for _ in range(int(rng.integers(1, 3)))]
    return scatter_layout(rng, kinds, size, max_distance=TRAIN_MAX_DISTANCE)
