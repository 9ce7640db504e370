"""Trunks cut at the foot: logs left hanging, to be climbed to (issue 20, round 34).

An apple comes from leaves that decay once no log is left near them, so a tree gives its apples
only when its trunk is felled whole.  The log's network fells a trunk at its foot and walks to the
next tree: the logs above hang, out of reach, and the leaves around them never decay (round 33).
Its expert never showed it anything else: on a generated world some trunk always has a log at the
agent's feet, so the log's expert never climbs.

`cut_trunks` makes the other case, at a log pursuit's start: every trunk of the goal's kinds in
one world loses its lowest logs, from one to all but its top one (drawn evenly), and in a share
DIRT_P of them the agent is given dirt to pillar with (an apple's try carries what it dug); in the
others the expert digs its dirt first, as a task's try that holds none must.  The expert then
walks into a trunk's foot, faces up, breaks the log above, pillars up one and breaks the next,
which is what finishing a cut trunk takes.  Only the training data does this; every episode
starts as its map grows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from worlds.gridworld.decay import tree_logs
from worlds.gridworld.sources import goal_sources

DIRT = 8  # dirt given for pillaring (a trunk is 4 to 6 logs tall)
DIRT_P = 0.5  # the share of cut worlds where it is given; in the rest the agent must dig its own


def cut_trunks(env: Any, i: int, goal: Any, rng: np.random.Generator) -> int:
    """Cut every trunk of world i whose logs are `goal`'s sources (a mine goal for a log) at its
    foot, and give dirt with chance DIRT_P, as above; the number of trunks cut (0, and nothing
    changed, for any other goal)."""
    cells, _ = goal_sources(env, goal)
    if goal.action != "mine" or not cells or not tree_logs(env.vocab)[sorted(cells)].all():
        return 0
    col = env.cells[i]  # [x, z, y]
    is_log = np.isin(col, sorted(cells))
    solid = env.rules.solid[col]
    # a trunk's foot: a log standing on solid ground that is not itself a log
    foot = np.zeros_like(is_log)
    foot[:, :, 1:] = is_log[:, :, 1:] & ~is_log[:, :, :-1] & solid[:, :, :-1]
    cut = 0
    air = env.vocab.cell_id["air"]
    for x, z, y in np.argwhere(foot):
        tall = 0
        while y + tall < col.shape[2] and is_log[x, z, y + tall]:
            tall += 1
        if tall < 2:
            continue
        k = int(rng.integers(1, tall))  # a lone top log, 4 or 5 levels up, wants the longest climb
        col[x, z, y : y + k] = air
        cut += 1
    if cut and rng.random() < DIRT_P:
        dirt = env.vocab.item_id["dirt"]
        env.inv[i, dirt] = max(int(env.inv[i, dirt]), DIRT)
    return cut
