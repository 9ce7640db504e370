"""Trunks cut at the foot (training/controller/felled.py): a log pursuit may begin with every trunk
of its world cut, its logs hanging over air, and the scripted expert then climbs to them with dirt
(jump_place), which it never does on a world as it grew."""

from __future__ import annotations

import numpy as np

from training.controller.data import TRAIN_GOALS, collect, weights_set
from training.controller.felled import DIRT, cut_trunks
from worlds.gridworld.batch import BatchGridWorld
from worlds.gridworld.decay import tree_logs
from worlds.gridworld.spec import PRIMITIVE_ID
from worlds.knowledge import load_kb
from worlds.types import Goal

LOG = Goal("mine", {"log": 1})


def _feet(env: BatchGridWorld, i: int) -> int:
    """Logs of world i standing on solid ground that is not a log: the trunks' feet."""
    col = env.cells[i]
    is_log = tree_logs(env.vocab)[col]
    return int((is_log[:, :, 1:] & ~is_log[:, :, :-1] & env.rules.solid[col[:, :, :-1]]).sum())


def test_every_trunk_is_cut_at_its_foot_and_keeps_a_log():
    kb = load_kb("1.11.2")
    env = BatchGridWorld(3, kb)
    env.reset([5, 6, 7], {})
    rng = np.random.default_rng(0)
    logs = tree_logs(env.vocab)
    for i in range(env.n):
        before = int(logs[env.cells[i]].sum())
        feet = _feet(env, i)
        assert feet > 0, "these seeds grow trees"
        cut = cut_trunks(env, i, LOG, rng)
        after = int(logs[env.cells[i]].sum())
        assert 0 < cut <= feet and cut <= before - after <= before - cut, (cut, feet, before, after)
        assert _feet(env, i) == feet - cut  # the trunks of one log are left as they grew


def test_about_half_the_cut_worlds_are_given_dirt_and_the_rest_none():
    kb = load_kb("1.11.2")
    env = BatchGridWorld(1, kb)
    rng, given = np.random.default_rng(2), []
    for sd in range(20):
        env.reset([sd], {})
        if cut_trunks(env, 0, LOG, rng):
            given.append(int(env.inv[0, env.vocab.item_id["dirt"]]))
    assert len(given) >= 15 and set(given) == {0, DIRT}, given
    assert 0.25 <= given.count(DIRT) / len(given) <= 0.75, given


def test_other_goals_leave_the_world_as_it_grew():
    kb = load_kb("1.11.2")
    env = BatchGridWorld(2, kb)
    env.reset([5, 6], {})
    cells, inv = env.cells.copy(), env.inv.copy()
    for goal in (Goal("mine", {"cobblestone": 1}), Goal("kill", {"cow": 1}), Goal("mine", {"apple": 1})):
        assert cut_trunks(env, 0, goal, np.random.default_rng(1)) == 0
    assert (env.cells == cells).all() and (env.inv == inv).all()


def test_the_expert_climbs_to_hanging_logs():
    """Log pursuits on cut trunks take several times the pillar steps of the same pursuits on the
    worlds as they grew (where a repeated pursuit seldom climbs)."""
    kb = load_kb("1.11.2")
    jumps = {}
    for p in (0.0, 1.0):
        with weights_set({f"{a}:{i}": float(i == "log") for a, i, _, _ in TRAIN_GOALS}):
            data, stats = collect(kb, 16, 7, n_envs=8, scatter_p=0.0, repeat_p=0.7, cut_trunks_p=p)
        assert stats["by_goal"]["mine:log"]["ok"] >= 14, stats
        jumps[p] = int((data["action"] == PRIMITIVE_ID["jump_place"]).sum())
    assert jumps[1.0] >= 3 * jumps[0.0] + 4, jumps
