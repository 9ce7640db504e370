"""The find skill (skills/find.py), the grid world's weather, and MP5's find sub-objectives."""

from __future__ import annotations

import pytest

from nodes.parse import GoalParser, parse_call
from nodes.planners.mp5.actions import Action, reference_actions, to_goals
from nodes.planners.mp5.parser import SubObjective
from nodes.planners.mp5.patroller import Perception, check_find
from skills.grid_controller import GridScriptedController
from worlds.context_tasks import environment, evaluate_conditions, normalise_state
from worlds.gridworld.spec import GridWorldError, game_data
from worlds.gridworld.weather import schedule
from worlds.gridworld.world import GridWorld
from worlds.knowledge import load_kb
from worlds.tasks import find_task
from worlds.types import Goal


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def _plain(kb, mobs=(), blocks=(), time=0.1, weather=None):
    w = GridWorld(kb, size=(32, 32))
    w.reset(
        seed=0,
        options={
            "layout": {
                "ground": 64,
                "mobs": [list(m) for m in mobs],
                "blocks": [list(b) for b in blocks],
                "agent": [4, 65, 4],
            },
            "max_steps": 3000,
            "time_of_day": time,
            "weather": weather,
        },
    )
    return w


def _near(w, thing):
    return evaluate_conditions({"find": thing}, normalise_state(w.context_state()))[0]


def test_find_walks_to_a_mob_and_stops_within_reach(kb):
    w = _plain(kb, mobs=[(20, 65, 20, "pig")])
    assert not _near(w, "pig")
    out = GridScriptedController(kb).run(Goal("find", {"pig": 1}), w)
    assert out["ok"] and _near(w, "pig")
    assert 20 <= out["steps"] <= 80  # about 28 cells away, and the pig wanders


def test_find_waits_for_the_night_beside_its_thing(kb):
    w = _plain(kb, blocks=[(10, 65, 4, "oak_log")], time=0.45)
    out = GridScriptedController(kb).run(Goal("find", {"tree": 1}, where={"time": "night"}), w)
    state = w.context_state()
    assert out["ok"] and state["time_of_day"] == "night" and "oak_log" in state["nearby_blocks"]
    night_at = int((game_data()["night"][0] - 0.45) * game_data()["day_steps"])
    assert out["steps"] >= night_at - 1  # it had to wait, not only walk


def test_find_goes_into_the_biome_it_is_asked_for(kb):
    w = GridWorld(kb)
    w.reset(seed=1, options={"biome": "desert", "max_steps": 2400, "time_of_day": 0.1})
    out = GridScriptedController(kb).run(Goal("find", {"cow": 1}, where={"biome": "desert"}), w)
    assert out["ok"] and w.biome == "desert" and _near(w, "cow")


def test_find_of_a_block_the_map_lacks_fails_with_one_line(kb):
    w = _plain(kb)
    out = GridScriptedController(kb).run(Goal("find", {"water": 1}), w)
    assert not out["ok"] and out["error"] == "there is no water in this world to find"


def test_weather_is_reported_set_and_checked(kb):
    w = _plain(kb, weather="rain")
    assert w.context_state()["weather"] == "rain"
    w.set_environment(weather="clear")
    assert w.context_state()["weather"] == "clear"
    desert = GridWorld(kb)
    desert.reset(seed=1, options={"biome": "desert", "weather": "rain"})
    assert desert.context_state()["weather"] == "clear"  # no rain falls on a dry biome
    with pytest.raises(GridWorldError, match="unknown weather 'snow'.*accepted: clear, rain"):
        _plain(kb, weather="snow")
    s = schedule(7, "rain", 0, 4800)
    spells = [b - a for a, b in zip([0] + s.ends, s.ends)]
    lo, hi = game_data()["weather"]["rain_days"]
    assert s.rain[0] and not s.rain[1] and lo * 4800 <= spells[0] <= hi * 4800


def test_a_context_task_has_its_predetermined_environment(kb):
    rainy = find_task("mp5_context_3-4", "mp5-context")  # a pig at night in the rain
    env = environment(rainy, 5)
    assert env["weather"] == "rain" and 0.0 <= env["time_of_day"] < 1.0
    assert environment(rainy, 5) == env and environment(rainy, 6) != env  # seeded, per episode
    assert "weather" not in environment(find_task("mp5_context_1-4", "mp5-context"), 5)


def test_find_goals_parse_in_the_code_form(kb):
    g = parse_call("find({'pig':1}, {'time':'night', 'near':'grass'})")
    assert (g.action, g.obj, g.where) == ("find", {"pig": 1}, {"time": "night", "near": "grass"})
    assert parse_call(g.code()) == Goal("find", {"pig": 1}, where={"time": "night", "near": "grass"})
    goals, notes = GoalParser(kb).parse("find({'tree':1}, null)\nfind({'unicorn':1}, null)")
    assert [x.obj for x in goals] == [{"tree": 1}] and "unicorn" in notes[0]


def test_mp5_find_sub_objective_becomes_one_find_goal_the_patroller_checks(kb):
    sub = SubObjective("find", "pig", conditions={"time": "night"})
    assert [a.name for a in reference_actions(sub, kb)] == ["find", "move"]
    assert [a.name for a in reference_actions(sub, kb, in_view=True)] == ["move"]
    goals = to_goals([Action("find", ["pig"]), Action("move", ["pig"])], sub, kb)
    assert goals == [Goal("find", {"pig": 1}, text="find(pig)", where={"time": "night"})]
    unseen = Perception(facts=["pig: not in view"], missing=["pig"])
    assert check_find(goals, sub, unseen) == (True, None)
    moved = to_goals([Action("move", ["pig"])], sub, kb)
    ok, why = check_find(moved, sub, unseen)
    assert not ok and "find(pig) before move(pig)" in why
    assert check_find(moved, sub, Perception(facts=["pig: in view"])) == (True, None)
    ok, why = check_find([Goal("find", {"pig": 1})], sub, None)
    assert not ok and "drops the condition time night" in why


def test_at_night_a_zombie_close_by_sends_the_finder_into_a_hole_it_survives(kb):
    w = _plain(kb, mobs=[(7, 65, 4, "zombie")], blocks=[(6, 65, 6, "oak_log")], time=0.6)
    out = GridScriptedController(kb).run(Goal("find", {"tree": 1}, where={"time": "day"}), w)
    assert out["ok"] and not w.dead and w.time_of_day() == "day"
    assert w.position[1] <= 63  # it waited out the night two blocks under the ground (64 is the top)


def test_rain_is_found_over_a_wet_biome_when_the_spawn_is_dry(kb):
    w = GridWorld(kb)
    w.reset(seed=1, options={"biome": "desert", "max_steps": 2400, "time_of_day": 0.1, "weather": "rain"})
    assert w.context_state()["weather"] == "clear"  # it rains, but not on the desert
    out = GridScriptedController(kb).run(Goal("find", {"tree": 1}, where={"weather": "rain"}), w)
    assert out["ok"] and w.context_state()["weather"] == "rain" and w.biome != "desert"


def test_chickens_lay_eggs_that_the_expert_picks_up(kb):
    from worlds.gridworld import ground

    w = _plain(kb, mobs=[(12, 65, 4, "chicken")])
    w.env.ground_age[0] = -1  # none lying about yet
    w.env.lay_in[0] = 5  # the chicken lays in 5 steps
    out = GridScriptedController(kb).run(Goal("mine", {"egg": 1}), w)
    assert out["ok"] and out["gained"] == {"egg": 1} and w.inventory["egg"] == 1
    lo, hi = game_data()["eggs"]["lay_steps"]
    assert (w.env.lay_in[0][w.env.mob_kind[0] > 0] >= lo - out["steps"]).all()  # the next egg is 5-10 min away
    ground.drop(w.env, 0, w.env.pos[0] + [5, 0, 0], w.env.vocab.item_id["egg"])
    assert ground.ground_items(w.env, 0, "egg") == [tuple(int(v) for v in w.env.pos[0] + [5, 0, 0])]
    w.env.ground_age[0][w.env.ground_age[0] >= 0] = game_data()["ground"]["despawn_steps"] - 1
    w.step({"action": "noop"})
    assert ground.ground_items(w.env, 0, "egg") == []  # 5 minutes on the ground: gone


def test_chance_drops_come_in_the_grid_world_too(kb):
    gravel = [(x, 65, z, "gravel") for x in range(8, 14) for z in range(8, 14)]
    w = _plain(kb, blocks=gravel)
    out = GridScriptedController(kb).run(Goal("mine", {"flint": 1}), w)
    assert (
        out["ok"] and out["gained"]["flint"] == 1 and out["gained"]["gravel"] >= 1
    )  # gravel again until flint (1 in 10)


def test_a_task_through_what_the_grid_world_does_not_build_is_refused_up_front(kb):
    w = GridWorld(kb)
    with pytest.raises(GridWorldError) as e:
        w.reset(seed=0, options={"target": {"glowstone": 1}})
    assert "\n" not in str(e.value) and "glowstone is in the Nether, which is not built" in str(e.value)
    assert "--world textworld" in str(e.value)
    w.reset(seed=0, options={"target": {"cake": 1}, "inventory": {"wheat": 3}})  # wheat held: the rest is here
    w.reset(seed=0, options={"target": {"flint_and_steel": 1}})  # flint: gravel's chance drop


def test_hill_variants_are_built_and_unbuilt_biomes_are_refused_with_why(kb):
    hills = GridWorld(kb)
    hills.reset(seed=3, options={"biome": "forest_hills"})
    flat = GridWorld(kb)
    flat.reset(seed=3, options={"biome": "forest"})
    assert hills.biome == "forest" and hills.position[1] > flat.position[1]  # the same biome, higher ground
    with pytest.raises(GridWorldError) as e:
        GridWorld(kb).reset(seed=0, options={"biome": "mesa"})
    assert "\n" not in str(e.value) and "not built" in str(e.value) and "red sand" in str(e.value)
    with pytest.raises(GridWorldError, match="unknown biome 'moon'.*accepted: plains.*forest_hills"):
        GridWorld(kb).reset(seed=0, options={"biome": "moon"})


def test_a_map_too_small_for_the_task_is_made_larger(kb):
    from worlds.gridworld.coverage import grows_in, short_of

    small = GridWorld(kb)
    small.reset(seed=0, options={"max_steps": 2400})
    assert short_of(small.env, 0, {"reeds": 8})  # the default 48 x 48 map holds too few reeds
    w = GridWorld(kb)
    w.reset(seed=0, options={"max_steps": 2400, "target": {"reeds": 8}})
    assert w.env.X > 48 and not short_of(w.env, 0, {"reeds": 8})
    assert grows_in(["cactus"]) == ("desert",) and grows_in(["reeds"])
    fixed = GridWorld(kb, size=(48, 48))
    fixed.reset(seed=0, options={"target": {"reeds": 8}})
    assert fixed.env.X == 48  # a size asked for is kept


def test_shears_give_the_block_itself(kb):
    w = _plain(kb, blocks=[(6, 65, 4, "dead_bush"), (4, 65, 7, "oak_leaves")])
    w.env.inv[0, w.env.vocab.item_id["shears"]] = 1
    out = GridScriptedController(kb).run(Goal("mine", {"deadbush": 1}), w)
    assert out["ok"] and out["gained"] == {"deadbush": 1}  # not the sticks a bare hand gets
    out = GridScriptedController(kb).run(Goal("mine", {"leaves": 1}), w)
    assert out["ok"] and kb.count(out["gained"], "leaves") == 1


def test_an_ore_of_another_biome_is_refused_naming_the_biome(kb):
    with pytest.raises(GridWorldError) as e:
        GridWorld(kb).reset(seed=0, options={"target": {"emerald": 1}, "biome": "plains"})
    assert "\n" not in str(e.value) and "accepted: --biome extreme_hills" in str(e.value)
    w = GridWorld(kb)
    w.reset(seed=0, options={"target": {"emerald": 1}, "biome": "extreme_hills"})
    assert (w.env.cells[0] == w.env.vocab.cell_id["emerald_ore"]).any()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_with_no_biome_asked_for_an_emerald_task_gets_a_map_where_the_ore_forms(kb, seed):
    w = GridWorld(kb)  # seeds 0-2 map plains, forest and birch forest (gridworld.yaml biome_cycle)
    w.reset(seed=seed, options={"target": {"emerald_block": 1}})  # emerald ore on the route
    assert w.biome == "extreme_hills"
    assert (w.env.cells[0] == w.env.vocab.cell_id["emerald_ore"]).any()
    w.reset(seed=seed, options={"target": {"log": 1}})  # a task without it keeps the seed's biome
    assert w.biome != "extreme_hills"
