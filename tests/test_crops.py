"""Wheat farming in the grid world (worlds/gridworld/crops.py, farming.py; skills/farm.py): a hoe tills
grass or dirt, seeds are planted on farmland, crops grow on random ticks by day at 1.11.2's rate, a
crop drops by its age, farmland is moist by the 4-cell rule and dries back to dirt; the route makes a
hoe and farms, the scripted expert gets bread, and a budget too small for the farm (or a learned run,
for which no network was trained) is refused up front in one line."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from worlds.gridworld import coverage, crops
from worlds.gridworld.batch import BatchGridWorld
from worlds.gridworld.farming import daylight_steps, farm_steps, plot_seeds, wall_steps
from worlds.gridworld.spec import PRIMITIVE_ID, game_data
from worlds.gridworld.world import GridWorld
from worlds.knowledge import load_kb
from worlds.types import Goal

P = PRIMITIVE_ID
FARM = (8, 64, 8)  # the farmland of the layouts below, the crop above it at (8, 65, 8)


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def flat(kb, blocks=(), inventory=None, **options):
    """A flat 16x16 grass map at y 64, the agent at (8, 65, 8)."""
    w = GridWorld(kb, size=(16, 16))
    layout = {"ground": 64, "blocks": [list(b) for b in blocks], "mobs": [], "agent": [8, 65, 8]}
    w.reset(seed=0, options={"layout": layout, "inventory": inventory or {}, **options})
    return w


def cell(w, x, y, z) -> str:
    return w.env.vocab.cells[int(w.env.cells[0, x, z, y])]


def batch(kb, n, blocks, agent=(2, 65, 2), **options):
    """n worlds of the same flat 16x16 layout, seeds 0..n-1."""
    env = BatchGridWorld(n, kb, size=(16, 16))
    layout = {"ground": 64, "blocks": [list(b) for b in blocks], "mobs": [], "agent": list(agent)}
    env.reset(list(range(n)), {"layout": layout, **options})
    return env


# ---------------------------------------------------------------- tilling and planting
@pytest.mark.parametrize("ground", ["grass_block", "dirt"])
def test_a_hoe_tills_grass_or_dirt_with_air_above_underfoot_or_in_front(kb, ground):
    w = flat(kb, blocks=[(8, 64, 8, ground), (8, 65, 7, ground)], inventory={"wooden_hoe": 1})
    w.step({"action": "face_down"})
    assert w.step({"action": "use", "item": "wooden_hoe"})[4]["ok"]
    assert cell(w, *FARM) == "farmland" and crops.moisture_at(w.env, 0, FARM) == 0  # tilled dry
    w.step({"action": "face_north"})  # a block one level up in front, air above it
    assert w.step({"action": "use", "item": "wooden_hoe"})[4]["ok"]
    assert cell(w, 8, 65, 7) == "farmland" and w.has("wooden_hoe")  # no wear


def test_a_hoe_does_not_till_under_a_plant_nor_stone_and_says_why(kb):
    w = flat(
        kb, blocks=[(8, 65, 7, "grass_block"), (8, 66, 7, "grass"), (9, 65, 8, "stone")], inventory={"stone_hoe": 1}
    )
    w.step({"action": "face_north"})
    info = w.step({"action": "use", "item": "stone_hoe"})[4]
    assert not info["ok"] and "with grass above it" in info["error"] and cell(w, 8, 65, 7) == "grass_block"
    w.step({"action": "face_east"})
    info = w.step({"action": "use", "item": "stone_hoe"})[4]
    assert not info["ok"] and info["error"].endswith("in front: stone")


def test_seeds_are_planted_on_farmland_only_and_one_is_used(kb):
    w = flat(kb, blocks=[(8, 64, 8, "farmland")], inventory={"wheat_seeds": 2})
    w.step({"action": "face_east"})  # air in front, grass under it: not farmland
    info = w.step({"action": "use", "item": "wheat_seeds"})[4]
    assert not info["ok"] and "planted on farmland" in info["error"] and w.has("wheat_seeds", 2)
    w.step({"action": "face_down"})
    assert w.step({"action": "use", "item": "wheat_seeds"})[4]["ok"]
    assert cell(w, 8, 65, 8) == "wheat" and crops.age_at(w.env, 0, (8, 65, 8)) == 0
    assert w.inventory == {"wheat_seeds": 1}
    info = w.step({"action": "use", "item": "wheat_seeds"})[4]  # the crop is in the way now
    assert not info["ok"] and "wheat is above the farmland" in info["error"]


# ---------------------------------------------------------------- drops
def test_a_young_crop_drops_its_seed_and_no_wheat(kb):
    w = flat(kb, blocks=[(8, 64, 7, "farmland"), (8, 65, 7, "wheat")])
    w.step({"action": "face_north"})
    info = w.step({"action": "attack"})[4]  # hardness 0: one step, by hand
    assert info["ok"] and w.inventory == {"wheat_seeds": 1}
    assert cell(w, 8, 65, 7) == "air" and cell(w, 8, 64, 7) == "farmland"


def test_a_ripe_crop_drops_one_wheat_and_three_tries_at_a_seed_of_8_in_14(kb):
    n = 400
    env = batch(kb, n, [(8, 64, 7, "farmland"), (8, 65, 7, "wheat_ripe")], agent=(8, 65, 8))
    assert (env.crop_age[:, 0] == 7).all()  # taken in ripe
    env.step(np.tile([P["face_north"], -1], (n, 1)))
    env.step(np.tile([P["attack"], -1], (n, 1)))
    v = env.vocab
    assert (env.inv[:, v.item_id["wheat"]] == 1).all()
    seeds = env.inv[:, v.item_id["wheat_seeds"]]
    assert seeds.min() >= 0 and seeds.max() <= 3
    p = 8 / 14  # 1.11.2: nextInt(2 x 7) <= age 7, three times
    se = math.sqrt(3 * p * (1 - p) / n)
    assert abs(seeds.mean() - 3 * p) < 6 * se, seeds.mean()


def test_broken_farmland_gives_dirt_and_its_crop_pops_off_to_be_picked_up(kb):
    w = flat(kb, blocks=[(8, 64, 8, "farmland"), (8, 65, 8, "wheat")])
    w.step({"action": "face_down"})
    for _ in range(8):
        w.step({"action": "attack"})
        if cell(w, *FARM) == "air":
            break
    w.step({"action": "noop"})
    assert cell(w, *FARM) == "air" and cell(w, 8, 65, 8) == "air"
    assert w.inventory == {"dirt": 1, "wheat_seeds": 1}


def test_a_solid_block_placed_on_farmland_turns_it_to_dirt(kb):
    w = flat(kb, blocks=[(8, 64, 7, "farmland")], inventory={"dirt": 1})
    w.step({"action": "face_north"})
    assert w.step({"action": "use", "item": "dirt"})[4]["ok"]  # on the cell above the farmland
    w.step({"action": "noop"})
    assert cell(w, 8, 64, 7) == "dirt" and crops.moisture_at(w.env, 0, (8, 64, 7)) is None


# ---------------------------------------------------------------- moisture
@pytest.mark.parametrize(
    ("water", "wet"),
    [
        ((12, 64, 8), True),  # 4 cells east, at its level
        ((12, 64, 12), True),  # 4 and 4: the reach is a square
        ((12, 65, 8), True),  # one level above
        ((13, 64, 8), False),  # 5 cells off
        ((12, 63, 8), False),  # one level below
    ],
)
def test_farmland_is_watered_by_water_within_4_cells_at_its_level_or_one_above(kb, water, wet):
    w = flat(kb, blocks=[(*FARM, "farmland"), (*water, "water")])
    assert crops.watered(w.env, 0, FARM) is wet


def test_on_its_random_ticks_farmland_by_water_turns_moist_and_bare_dry_farmland_turns_to_dirt(kb):
    n = 40
    env = batch(kb, n, [(4, 64, 8, "farmland"), (8, 64, 8, "water"), (14, 64, 8, "farmland")])
    noop = np.tile([P["noop"], -1], (n, 1))
    for _ in range(2500):  # about 9 random ticks each: none left untouched, 40 worlds in 10^4
        env.step(noop)
    v = env.vocab
    assert (env.cells[:, 4, 8, 64] == v.cell_id["farmland"]).all()
    assert (env.farm_wet[env.farm_live] == 7).all()
    assert (env.cells[:, 14, 8, 64] == v.cell_id["dirt"]).all()  # 6 cells from the water


# ---------------------------------------------------------------- growth
def test_points_follow_1_11_2s_crops_neighbours_and_rows(kb):
    # one crop, dry farmland, nothing around: 1 + 1 = 2 points, chance 1 / (12 + 1)
    w = flat(kb, blocks=[(*FARM, "farmland"), (8, 65, 8, "wheat")])
    assert crops.points(w.env, 0, FARM) == 2.0 and crops.chance(2.0) == pytest.approx(1 / 13)
    w.env.farm_wet[0, crops.slot(w.env, 0, FARM)] = 7  # moist: 1 + 3
    assert crops.points(w.env, 0, FARM) == 4.0 and crops.chance(4.0) == pytest.approx(1 / 7)
    around = [(8 + dx, 64, 8 + dz, "farmland") for dx in (-1, 0, 1) for dz in (-1, 0, 1)]
    row = flat(kb, blocks=[*around, (7, 65, 8, "wheat"), (8, 65, 8, "wheat"), (9, 65, 8, "wheat")])
    row.env.farm_wet[0, row.env.farm_live[0]] = 7
    assert crops.points(row.env, 0, FARM) == 10.0 and crops.chance(10.0) == pytest.approx(1 / 3)  # a row: not halved
    row.place(8, 65, 9, "wheat")  # a crop beside it on the other axis too: halved
    assert crops.points(row.env, 0, FARM) == 5.0 and crops.chance(5.0) == pytest.approx(1 / 6)
    diag = flat(kb, blocks=[*around, (8, 65, 8, "wheat"), (9, 65, 9, "wheat")])
    assert crops.points(diag.env, 0, FARM) == (1 + 1 + 8 * 0.25) / 2  # a diagonal one: halved


@pytest.mark.parametrize(("around", "points"), [(False, 4.0), (True, 10.0)])
def test_crops_grow_by_day_at_the_formula_s_rate(kb, around, points):
    """A seeded batch: the ages gained over 1,500 steps of day against 5 game ticks a step x 3/4096 x
    1 / (floor(25 / points) + 1), 1/7 alone and 1/3 in farmland; the tolerance is 6 standard errors."""
    n, steps = 300, 1500
    ring = [(8 + dx, 64, 8 + dz, "farmland") for dx in (-1, 0, 1) for dz in (-1, 0, 1) if around and (dx or dz)]
    env = batch(kb, n, [*ring, (*FARM, "farmland"), (8, 65, 8, "wheat"), (8, 64, 5, "water")], time_of_day=0.0)
    env.farm_wet[env.farm_live] = 7
    noop = np.tile([P["noop"], -1], (n, 1))
    for _ in range(steps):
        env.step(noop)
    assert not env.night().any()
    s = [crops.slot(env, i, FARM) for i in range(n)]
    ages = env.crop_age[np.arange(n), s].astype(float)
    lam = steps * 5 * 3 / 4096 * crops.chance(points)
    assert abs(ages.mean() - lam) < 6 * math.sqrt(lam / n), (ages.mean(), lam)


def test_no_crop_grows_at_night(kb):
    n = 300
    ring = [(8 + dx, 64, 8 + dz, "farmland") for dx in (-1, 0, 1) for dz in (-1, 0, 1) if dx or dz]
    env = batch(kb, n, [*ring, (*FARM, "farmland"), (8, 65, 8, "wheat"), (8, 64, 5, "water")], time_of_day="night")
    env.farm_wet[env.farm_live] = 7
    noop = np.tile([P["noop"], -1], (n, 1))
    for _ in range(1800):  # by day, about 550 ages would have grown among them
        env.step(noop)
    assert env.night().all() and (env.crop_age[env.crop_kind >= 0] == 0).all()


def test_a_crop_grows_to_its_ripe_cell(kb):
    w = flat(kb, blocks=[(*FARM, "farmland"), (8, 65, 8, "wheat"), (8, 64, 5, "water")])
    s = crops.slot(w.env, 0, FARM)
    w.env.crop_age[0, s] = 6
    for _ in range(2000):
        w.step({"action": "noop"})
        if cell(w, 8, 65, 8) == "wheat_ripe":
            break
    assert cell(w, 8, 65, 8) == "wheat_ripe" and crops.age_at(w.env, 0, (8, 65, 8)) == 7


# ---------------------------------------------------------------- routes and budgets
def test_the_route_makes_a_wooden_hoe_and_farms_holding_it(kb):
    goals = coverage.route(kb, {"bread": 1})
    codes = [(g.action, next(iter(g.obj))) for g in goals]
    assert codes.index(("craft", "wooden_hoe")) < codes.index(("mine", "wheat")) < codes.index(("craft", "bread"))
    assert coverage.gives(kb).holds(Goal("mine", {"wheat": 3})) == ("wooden_hoe",)
    assert coverage.refusal(kb, {"bread": 1}) is None and coverage.refusal(kb, {"hay_block": 1}) is None


@pytest.mark.parametrize("item", ["poisonous_potato", "beetroot", "beetroot_seeds"])
def test_the_other_crops_stay_refused_naming_the_village_farms(kb, item):
    assert "village" in (coverage.refusal(kb, {item: 1}) or "")


def test_the_farm_budget_covers_its_crops_99_times_in_100_with_the_nights_added(kb):
    assert plot_seeds(3) == 6 and plot_seeds(9) == 12
    assert daylight_steps(3) > daylight_steps(3, 0.5) > 0
    day = int(game_data()["day_steps"])
    assert wall_steps(0, 100) == 100 and wall_steps(0, 2592 + 100) == 2592 + 2016 + 100  # a night between
    assert farm_steps("wheat", 3, 0) > day and farm_steps("bread", 1, 0) == 0
    assert farm_steps("wheat", 3, int(0.6 * day)) > farm_steps("wheat", 3, 0) - day  # from dusk: a night first


def test_a_budget_too_small_for_the_farm_is_refused_in_one_line_naming_one_that_is_not(kb):
    why = coverage.budget_refusal(kb, {"bread": 1}, {}, 0, 2400)
    assert why and "\n" not in why and "farms 3 wheat" in why
    need = int(re.search(r"deps run --max-steps (\d+)", why).group(1))
    assert coverage.budget_refusal(kb, {"bread": 1}, {}, 0, GridWorld.budget_steps(need)) is None
    assert coverage.budget_refusal(kb, {"bread": 1}, {"wheat": 3}, 0, 2400) is None  # wheat held: no farm


def test_the_scripted_expert_gets_bread_within_the_budget_the_refusal_names(kb, capsys):
    from agent.cli import main

    assert main(["run", "obtain bread", "--world", "gridworld", "--planner", "oracle", "--quiet"]) == 2
    err = capsys.readouterr().err
    line = [x for x in err.splitlines() if "error:" in x]
    assert len(line) == 1 and "farms 3 wheat" in line[0]
    need = re.search(r"deps run --max-steps (\d+)", line[0]).group(1)
    args = ["run", "obtain bread", "--world", "gridworld", "--planner", "oracle", "--controller", "scripted"]
    for seed in (1, 8):
        assert main([*args, "--max-steps", need, "--seed", str(seed), "--quiet", "--json"]) == 0
        result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert result["success"] and result["final_inventory"]["bread"] == 1
        assert result["env_steps"] > 2592  # the crops took more than a day: they grew, nothing was given
    assert main([*args[:-2], "--controller", "learned", "--max-steps", need, "--quiet"]) == 2
    err = [x for x in capsys.readouterr().err.splitlines() if "error:" in x]
    assert len(err) == 1 and "not trained for mine:wheat" in err[0]


def test_at_night_the_farmer_digs_in_beside_its_plot_and_never_digs_it_up(kb, monkeypatch):
    from skills.farm import FarmExpert
    from worlds.gridworld import mobs

    monkeypatch.setattr(mobs, "NIGHT_SPAWN_CHANCE", 0.0)
    blocks = [(*FARM, "farmland"), (8, 65, 8, "wheat"), (8, 64, 5, "water")]
    for plotted in (False, True):
        w = flat(kb, blocks=blocks, inventory={"wooden_hoe": 1}, time_of_day="night")
        farmer = FarmExpert(w.env, 0, Goal("mine", {"wheat": 1}))
        if plotted:
            farmer.plot, farmer.rows = [FARM], {FARM}
        for _ in range(60):
            a = farmer.act()
            assert a is not None, farmer.result
            farmer.feedback(w.step(np.array(a))[4])
        assert cell(w, *FARM) == "farmland" and cell(w, 8, 65, 8) == "wheat"
        if plotted:  # walked off it and dug the night's hole there
            assert farmer._sheltered() and w.position[::2] != (8, 8) and w.position[1] == 63
        else:  # no plot chosen, so no spot off it: it waits where it stands
            assert w.position == (8, 65, 8)
