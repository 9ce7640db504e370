"""The fast target map (sense.py with source_columns.py) gives the same uint8 maps as a plain
count of every source cell and mob around the agent, on random worlds and goals, agents near
the map's edges and levels, and cells edited between calls (by the world's own step and by
direct writes), so the network sees exactly what it saw before the speed-up (issue 21)."""

from __future__ import annotations

import numpy as np
import pytest

from skills.learned import sense
from skills.learned.surround import POOL, RADIUS, SIDE
from worlds.gridworld.batch import BatchGridWorld
from worlds.gridworld.spec import AIR
from worlds.knowledge import load_kb
from worlds.types import Goal

GOALS = (
    Goal("mine", {"log": 1}),
    Goal("mine", {"iron_ore": 1}),
    Goal("mine", {"coal": 1}),
    Goal("mine", {"cobblestone": 1}),  # stone: thousands of sources, blocks past 255
    Goal("mine", {"diamond": 1}),
    Goal("kill", {"cow": 1}),  # mobs only
    Goal("kill", {"zombie": 1}),
    Goal("mine", {"dirt": 1}),
)


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def reference(env, rows, luts) -> np.ndarray:
    """The target map by a plain count: every source cell and mob of each world, kept when it
    lies in the window and in a band."""
    band_of = {dy: b for b, (lo, hi) in enumerate(sense.BANDS) for dy in range(lo, hi + 1)}
    out = np.zeros((len(rows), len(sense.BANDS), SIDE, SIDE), np.int64)
    for k, e in enumerate(rows):
        for dx, dy, dz in source_offsets(env, e, luts[k]):
            if abs(dx) <= RADIUS and abs(dz) <= RADIUS and dy in band_of:
                out[k, band_of[dy], (dz + RADIUS) // POOL, (dx + RADIUS) // POOL] += 1
    return np.minimum(out, 255).astype(np.uint8)


def source_offsets(env, e, lut) -> list[tuple[int, int, int]]:
    """(dx, dy, dz) from world e's agent to each of its goal's source cells and mobs."""
    cl, ml = lut
    px, py, pz = (int(v) for v in env.pos[e])
    xs, zs, ys = np.nonzero(cl[env.cells[e]])
    points = [(x, y, z) for x, z, y in zip(xs.tolist(), zs.tolist(), ys.tolist())]
    points += [
        tuple(int(v) for v in env.mob_pos[e, s]) for s in np.nonzero(env.mob_kind[e])[0] if ml[env.mob_kind[e, s]]
    ]
    return [(x - px, y - py, z - pz) for x, y, z in points]


def scatter_agents(env, rng) -> None:
    """Agents anywhere, often at the map's edges and near its lowest and highest levels."""
    for i in range(env.n):
        x = int(rng.choice([0, 1, 2, env.X - 1, env.X - 2, rng.integers(0, env.X)]))
        z = int(rng.choice([0, 1, env.Z - 1, env.Z - 3, rng.integers(0, env.Z)]))
        y = int(rng.choice([0, 1, 5, 40, 60, env.H - 9, env.H - 1, rng.integers(0, env.H)]))
        env.pos[i] = (x, y, z)


def edit_cells(env, rng, kb) -> None:
    """Mine and place cells straight into the array, sources among them, in some worlds."""
    ids = [env.vocab.cell_id[c] for c in ("oak_log", "iron_ore", "coal_ore", "stone", "diamond_ore", "dirt")]
    for i in rng.choice(env.n, size=max(1, env.n // 2), replace=False).tolist():
        for _ in range(int(rng.integers(1, 30))):
            x, z, y = int(rng.integers(0, env.X)), int(rng.integers(0, env.Z)), int(rng.integers(0, env.H))
            env.cells[i, x, z, y] = AIR if rng.random() < 0.5 else int(rng.choice(ids))


def add_mobs(env, rng) -> None:
    for i in range(env.n):
        for _ in range(int(rng.integers(0, 6))):
            p = env.pos[i] + rng.integers(-RADIUS - 2, RADIUS + 3, 3)
            env.add_mob(i, int(rng.integers(1, len(env.vocab.mobs))), int(p[0]), int(p[1]), int(p[2]))


@pytest.mark.parametrize("size", [(48, 48), (20, 30)])
def test_the_fast_target_map_equals_a_plain_count_through_edits_moves_and_goal_changes(kb, size):
    rng = np.random.default_rng(7)
    env = BatchGridWorld(12, kb, size=size)
    env.reset(rng.integers(0, 1000, env.n).tolist())
    goals = [GOALS[i % len(GOALS)] for i in range(env.n)]
    compared = 0
    for round_ in range(12):
        rows = np.arange(env.n) if round_ % 3 else np.sort(rng.choice(env.n, size=5, replace=False))
        luts = [sense.lut(env, goals[r]) for r in rows]
        got = sense.target_map(env, rows, luts)
        assert got.dtype == np.uint8 and got.shape == (len(rows), len(sense.BANDS), SIDE, SIDE)
        np.testing.assert_array_equal(got, reference(env, rows, luts))
        compared += int(got.sum() > 0)
        what = round_ % 4
        if what == 0:
            edit_cells(env, rng, kb)
        elif what == 1:
            scatter_agents(env, rng)
            add_mobs(env, rng)
        elif what == 2:  # the world's own steps: moves, mining, falls
            for _ in range(3):
                env.step(np.stack([rng.integers(0, 12, env.n), np.full(env.n, -1)], axis=1))
        else:  # new goals for some worlds, and a reset of others
            for i in rng.choice(env.n, size=4, replace=False).tolist():
                goals[i] = GOALS[int(rng.integers(0, len(GOALS)))]
            mask = np.zeros(env.n, bool)
            mask[rng.choice(env.n, size=3, replace=False)] = True
            env.reset_some(mask, rng.integers(0, 1000, env.n).tolist())
    assert compared >= 6  # the maps compared were not all empty


def test_blocks_of_stone_pass_255_and_read_255_as_before(kb):
    env = BatchGridWorld(1, kb)
    env.reset([3])
    env.pos[0, 1] = 70  # stone 13 to 36 levels down fills a band: up to 9 columns x 24 levels a block
    luts = [sense.lut(env, Goal("mine", {"cobblestone": 1}))]
    got = sense.target_map(env, [0], luts)
    assert got.max() == 255
    np.testing.assert_array_equal(got, reference(env, [0], luts))


def test_one_world_asked_for_twice_with_two_goals_gets_each_goals_map(kb):
    env = BatchGridWorld(2, kb)
    env.reset([1, 2])
    luts = [sense.lut(env, Goal("mine", {"log": 1})), sense.lut(env, Goal("mine", {"dirt": 1}))] * 2
    rows = [0, 0, 1, 1]
    got = sense.target_map(env, rows, luts)
    np.testing.assert_array_equal(got, reference(env, rows, luts))
    assert not np.array_equal(got[0], got[1])


def test_the_surroundings_map_kept_between_steps_equals_a_cell_by_cell_reading(kb):
    """A world whose window did not change is given its last counts again: they equal a fresh
    reading through turns, attacks, moves, edits in the window, mobs, resets and subsets."""
    from skills.learned.surround import around
    from tests.test_speed_parts import _around_reference

    rng = np.random.default_rng(5)
    env = BatchGridWorld(6, kb, size=(30, 30))
    env.reset(rng.integers(0, 1000, env.n).tolist())
    for round_ in range(10):
        rows = np.arange(env.n) if round_ % 3 else np.array([4, 1, 3])
        np.testing.assert_array_equal(around(env, rows), _around_reference(env, rows.tolist()))
        what = round_ % 5
        if what == 0:  # turns and attacks only: most windows stay as they were
            env.step(np.stack([rng.choice([0, 5, 6, 7], env.n), np.full(env.n, -1)], axis=1))
        elif what == 1:  # a cell edited in one world's window, under its agent's feet
            x, y, z = env.pos[2]
            env.cells[2, x, z, y - 1] = env.vocab.cell_id["diamond_ore"]
        elif what == 2:
            env.step(np.stack([rng.integers(0, 10, env.n), np.full(env.n, -1)], axis=1))
            add_mobs(env, rng)
        elif what == 3:
            scatter_agents(env, rng)
        else:
            env.reset_some(np.array([True, False, True, False, False, False]), rng.integers(0, 1000, env.n).tolist())
    twice = np.array([0, 0, 5])
    np.testing.assert_array_equal(around(env, twice), _around_reference(env, twice.tolist()))
