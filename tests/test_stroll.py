"""Mobs stroll as the game's wander AI does (a spot up to 10 cells away, about one cell every
other step), and a find whose conditions no cell meets heads for the cells a mob comes closest
to and waits there (skills/find.py: approach_cells, Approach)."""

from __future__ import annotations

import numpy as np
import pytest

from skills.find import WAIT_FOR_MOB, Approach, approach_cells, where_cells
from worlds.gridworld.batch import BatchGridWorld
from worlds.gridworld.mobs import stroll_rates
from worlds.gridworld.spec import PRIMITIVE_ID, game_data
from worlds.knowledge import load_kb


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def _world(kb, mobs, blocks=(), agent=(2, 65, 2), size=(24, 24)):
    env = BatchGridWorld(1, kb, size=size)
    layout = {"ground": 64, "mobs": [list(m) for m in mobs], "blocks": [list(b) for b in blocks], "agent": list(agent)}
    env.reset([0], [{"layout": layout, "time_of_day": 0.1}])
    return env


def _noop(env, n):
    for _ in range(n):
        env.step(np.array([[PRIMITIVE_ID["noop"], -1]]))


def test_the_stroll_s_rates_are_the_data_file_s():
    start, reach, speed = stroll_rates(game_data())
    assert start == pytest.approx(1 - (119 / 120) ** 5)  # 1 in 120 a tick, 5 ticks a step of 0.25 s
    assert (reach, speed) == (10, 0.5)


def test_a_cow_strolls_to_its_spot_at_about_one_cell_every_other_step_and_stops(kb):
    env = _world(kb, [(6, 65, 12, "cow")])
    env.mob_goal[0, 0], env.mob_strolling[0, 0] = (14, 12), True
    xs = []
    for _ in range(40):
        _noop(env, 1)
        xs.append(int(env.mob_pos[0, 0, 0]))
        if not env.mob_strolling[0, 0]:
            break
    assert xs[-1] == 14 and int(env.mob_pos[0, 0, 2]) == 12  # there, along the straight way
    assert not env.mob_strolling[0, 0]
    assert 8 <= len(xs) <= 32  # 8 cells at one cell with chance 1/2 a step


def test_a_wall_ends_a_stroll_where_it_stands(kb):
    wall = [(9, y, z, "stone") for y in (65, 66) for z in range(10, 15)]
    env = _world(kb, [(6, 65, 12, "cow")], blocks=wall)
    env.mob_goal[0, 0], env.mob_strolling[0, 0] = (14, 12), True
    for _ in range(40):
        _noop(env, 1)
        if not env.mob_strolling[0, 0]:
            break
    assert not env.mob_strolling[0, 0] and int(env.mob_pos[0, 0, 0]) == 8  # stopped at the wall, not through it


def test_animals_get_much_further_than_the_one_cell_random_walk_they_had(kb):
    """Over 400 steps a herd's cows stroll (10-cell spots) far enough to cross into a nearby
    biome: root-mean-square 13 cells from their start here (the random walk it replaced, a cell
    in a random direction with chance 1/8 a step, gave 5.7 to 7.8 on this map, five seeds)."""
    cows = [(x, 65, z, "cow") for x in (10, 12, 14) for z in (10, 12, 14)]
    env = _world(kb, cows, size=(32, 32), agent=(1, 65, 1))
    start = env.mob_pos[0, :9].copy()
    _noop(env, 400)
    moved = np.sqrt(((env.mob_pos[0, :9, [0, 2]].T - start[:, [0, 2]]) ** 2).sum(axis=1).mean())
    assert moved > 10


def _split_world(kb, pig_x=20):
    """A plain 24 x 24 map whose west half (x < 12) is desert, a pig at (pig_x, 8)."""
    env = _world(kb, [(pig_x, 65, 8, "pig")])
    env.biome_map[0, :12, :] = env.vocab.biome_id["desert"]
    env.mob_strolling[0] = False
    return env


def test_with_no_cell_meeting_the_conditions_the_walk_heads_where_the_pig_comes_closest(kb):
    env = _split_world(kb)
    conds = {"find": "pig", "biome": "desert"}
    assert not where_cells(env, 0, conds)[0].any()
    mask, gap = approach_cells(env, 0, conds)
    xs, zs, _ = np.nonzero(mask)
    assert gap == 20 - 11 - 2  # the desert's edge is x 11; reach is 2
    assert (xs == 11).all() and (abs(zs - 8) <= gap + 2).all()  # on the edge, level with the pig
    assert (env.biome_map[0][xs, zs] == env.vocab.biome_id["desert"]).all()
    exact, gap0 = approach_cells(env, 0, {"find": "pig"})  # met somewhere: the exact cells
    assert gap0 == 0 and np.array_equal(exact, where_cells(env, 0, {"find": "pig"})[0])


def test_no_such_mob_on_the_map_leaves_nowhere_to_walk(kb):
    env = _split_world(kb)
    mask, gap = approach_cells(env, 0, {"find": "cow", "biome": "desert"})
    assert not mask.any() and gap == 0
    assert Approach(env, 0, {"find": "cow", "biome": "desert"}).waits(mask, gap)


def test_on_a_closest_cell_the_find_waits_for_the_pig_to_stroll_in(kb):
    env = _split_world(kb)
    conds = {"find": "pig", "biome": "desert"}
    ap = Approach(env, 0, conds)
    assert not ap.waits(*ap.cells())  # off the closest cells: walk
    env.pos[0] = (11, 65, 8)
    assert all(ap.waits(*ap.cells()) for _ in range(WAIT_FOR_MOB))  # there: wait, though the pig stays away
    env.mob_pos[0, 0] = (13, 65, 8)  # the pig in reach of the desert's edge: every condition can hold now
    mask, gap = ap.cells()
    assert gap == 0 and mask[11, 8, 65] and not ap.waits(mask, gap)
