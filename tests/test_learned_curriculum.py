"""The curriculum by distance (training/controller/curriculum.py): a pursuit of a buried source
(a lava lake 55 levels down) may begin in a pocket a few levels above it, on solid ground with no
liquid beside; a source at hand (a tree at the surface) leaves the agent where it is."""

from __future__ import annotations

import numpy as np

from training.controller.curriculum import BURIED, LEVELS, SIDES, SPREAD, nearest_source, start_near_source
from training.controller.data import TRAIN_GOALS, collect, weights_set
from worlds.gridworld.batch import BatchGridWorld
from worlds.knowledge import load_kb
from worlds.types import Goal

LAVA = Goal("mine", {"lava_bucket": 1})


def _worlds_with_lava(kb, n: int = 4) -> BatchGridWorld:
    env = BatchGridWorld(n, kb)
    env.reset(list(range(11, 11 + n)), {"inventory": {"bucket": 1}})
    lava = env.vocab.cell_id["lava"]
    assert all((env.cells[i] == lava).any() for i in range(n)), "these seeds' maps have a lava lake"
    return env


def test_a_buried_source_moves_the_agent_into_a_pocket_above_it():
    kb = load_kb("1.11.2")
    env = _worlds_with_lava(kb)
    rng = np.random.default_rng(0)
    for i in range(env.n):
        src = nearest_source(env, i, LAVA)
        assert env.pos[i, 1] - src[1] >= BURIED  # spawned at the surface, the lake far below
        assert start_near_source(env, i, LAVA, rng)
        p = env.pos[i].copy()
        assert LEVELS[0] <= p[1] - src[1] <= LEVELS[1] and np.abs(p - src)[[0, 2]].max() <= SPREAD, (p, src)
        here = env.cells_at(np.array([i]), p[None])[0]
        below = env.cells_at(np.array([i]), (p - SIDES[2])[None])[0]
        beside = env.cells_at(np.full(6, i), p + SIDES)
        assert here == 0 and env.rules.solid[below] and not env.rules.liquid[beside].any()


def test_a_source_at_hand_leaves_the_agent_where_it_spawned():
    kb = load_kb("1.11.2")
    env = _worlds_with_lava(kb, 2)
    before, cells = env.pos.copy(), env.cells.copy()
    for i in range(env.n):
        assert not start_near_source(env, i, Goal("mine", {"dirt": 1}), np.random.default_rng(1))
        assert not start_near_source(env, i, Goal("kill", {"cow": 1}), np.random.default_rng(1))
    assert (env.pos == before).all() and (env.cells == cells).all()


def test_the_expert_finishes_lava_from_near_starts_in_few_steps():
    """With every lava pursuit begun near the lake, the scripted expert fills its bucket in tens of
    steps (from the surface it takes about 1,600): the rows of the ending come in numbers."""
    kb = load_kb("1.11.2")
    with weights_set({f"{a}:{i}": float(i == "lava_bucket") for a, i, _, _ in TRAIN_GOALS}):
        data, stats = collect(kb, 6, 3, n_envs=6, scatter_p=0.0, near_source_p=1.0)
    lava = stats["by_goal"]["mine:lava_bucket"]
    assert lava["ok"] >= 5 and lava["steps"] / lava["ok"] < 200, lava


def test_near_source_p_out_of_range_is_one_line_and_exit_2(capsys, tmp_path):
    from training.controller.pipeline import main

    assert main(["--out", str(tmp_path), "--near-source-p", "-0.1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--near-source-p" in err[0] and "from 0 to 1" in err[0]
