"""The grid world: its rules (tools, depths, day and night, seeds), the batched form, the
scripted experts on every skill, and the command line's answers to bad input."""

from __future__ import annotations

import numpy as np
import pytest

from skills.experts import Expert, demonstrate
from skills.grid_controller import GridScriptedController
from worlds.gridworld.batch import BatchGridWorld
from worlds.gridworld.spec import HEIGHT, OBS_KEYS, PRIMITIVE_ID, PRIMITIVES, GridWorldError, goal_code, make_vocab
from worlds.gridworld.world import GridWorld
from worlds.knowledge import load_kb
from worlds.textworld import TextWorld
from worlds.types import Goal

P = PRIMITIVE_ID
SIZE = (16, 16)


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def flat(kb, blocks=(), mobs=(), inventory=None, **options):
    """A flat 16x16 test map: grass at y 64, the agent at (8, 65, 8) facing north."""
    w = GridWorld(kb, size=SIZE)
    layout = {"ground": 64, "blocks": [list(b) for b in blocks], "mobs": [list(m) for m in mobs], "agent": [8, 65, 8]}
    w.reset(seed=0, options={"layout": layout, "inventory": inventory or {}, **options})
    return w


def hit_until_broken(w, limit=200):
    for n in range(1, limit):
        _, _, _, _, info = w.step({"action": "attack"})
        if "broke" in info or info["error"]:
            return n, info
    raise AssertionError("the block never broke")


# ---------------------------------------------------------------- the interface
def test_vocab_is_deterministic_and_observation_matches_spec(kb):
    v1, v2 = make_vocab(kb), make_vocab(load_kb("1.11.2"))
    assert v1.version == v2.version and v1.version.startswith("grid-1/1.11.2/")
    assert v1.cells[:2] == ("air", "void") and v1.cell_id["stone"] == 3 and v1.mobs[0] == "none"
    assert make_vocab(load_kb("1.19.2")).cells == v1.cells  # cell ids do not depend on the version
    w = flat(kb)
    obs = w.observation()
    assert set(obs) == set(OBS_KEYS)
    for k, shape in v1.obs_shapes().items():
        assert obs[k].shape == shape, k
    assert obs["blocks"][1, 4, 4] == v1.cell_id["grass_block"]  # level dy=-1 under the agent
    assert goal_code(Goal("kill", {"cow": 1}), v1) == (3, v1.n_items + v1.mob_id["cow"])


def test_same_seed_same_world_and_trajectory(kb):
    def run(seed):
        w = GridWorld(kb, size=(24, 24))
        w.reset(seed=seed)
        rng = np.random.default_rng(7)
        for _ in range(40):
            w.step((int(rng.integers(0, 10)), -1))
        return w.env.cells[0].copy(), w.position, w.inventory, w.env.mob_pos[0].copy()

    a, b, c = run(3), run(3), run(4)
    assert (a[0] == b[0]).all() and a[1:3] == b[1:3] and (a[3] == b[3]).all()
    assert not (a[0] == c[0]).all()


def test_ores_lie_at_their_depths_with_their_rarities(kb):
    env = BatchGridWorld(1, kb, size=(48, 48))
    env.reset([11])
    v, cells = env.vocab, env.cells[0]
    ys = {name: np.nonzero(cells == v.cell_id[name])[2] for name in ("coal_ore", "iron_ore", "diamond_ore", "gold_ore")}
    assert ys["diamond_ore"].size and ys["diamond_ore"].max() <= 15
    assert ys["gold_ore"].max() <= 31 and ys["iron_ore"].max() <= 63
    assert ys["coal_ore"].size > ys["iron_ore"].size > ys["gold_ore"].size > 0
    assert ys["iron_ore"].size > 5 * ys["diamond_ore"].size
    assert (cells[:, :, 0] == v.cell_id["bedrock"]).all()


def test_biomes_and_their_trees(kb):
    v = make_vocab(kb)
    for biome, log in (("taiga", "spruce_log"), ("birch_forest", "birch_log"), ("savanna", "acacia_log")):
        env = BatchGridWorld(1, kb, size=(48, 48), biome=biome)
        env.reset([5])
        assert env.biome_name(0) == biome
        main = env.biome_map[0] == v.biome_id[biome]
        logs = (env.cells[0] == v.cell_id[log]).any(axis=2)
        assert (logs & main).any(), biome


# ---------------------------------------------------------------- rules
def test_mining_needs_the_right_tool(kb):
    w = flat(kb, blocks=[(8, 65, 7, "stone")])
    n_hand, info = hit_until_broken(w)
    assert info["ok"] is False and info["error"] == "needs a wooden_pickaxe or better to mine stone"
    assert "cobblestone" not in w.inventory
    w = flat(kb, blocks=[(8, 65, 7, "stone")], inventory={"wooden_pickaxe": 1})
    n_pick, info = hit_until_broken(w)
    assert info["ok"] and w.inventory.get("cobblestone") == 1 and n_pick < n_hand
    w = flat(kb, blocks=[(8, 65, 7, "iron_ore")], inventory={"wooden_pickaxe": 1})
    _, info = hit_until_broken(w)
    assert info["error"] == "needs a stone_pickaxe or better to mine iron_ore" and info["missing"] == {
        "tool": "stone_pickaxe"
    }


def test_break_time_follows_hardness_and_tool_speed(kb):
    # a log: hardness 2 x 1.5 s = 3 s by hand, 1.5 s with a wooden axe; 0.25 s per step
    assert hit_until_broken(flat(kb, blocks=[(8, 65, 7, "oak_log")]))[0] == 12
    assert hit_until_broken(flat(kb, blocks=[(8, 65, 7, "oak_log")], inventory={"wooden_axe": 1}))[0] == 6


def test_craft_needs_a_table_placed_within_reach_and_smelt_a_furnace(kb):
    w = flat(kb, inventory={"planks": 3, "stick": 2, "crafting_table": 1})
    _, _, _, _, info = w.step({"action": "craft", "item": "wooden_pickaxe"})
    assert not info["ok"] and "needs a crafting_table placed within reach" in info["error"]
    assert w.step({"action": "use", "item": "crafting_table"})[4]["ok"]
    _, _, _, _, info = w.step({"action": "craft", "item": "wooden_pickaxe"})
    assert info["ok"] and w.has("wooden_pickaxe")
    w = flat(kb, inventory={"iron_ore": 1, "coal": 1, "furnace": 1})
    assert "needs a furnace placed within reach" in w.step({"action": "smelt", "item": "iron_ingot"})[4]["error"]
    w.step({"action": "use", "item": "furnace"})
    before = w.steps
    _, _, _, _, info = w.step({"action": "smelt", "item": "iron_ingot"})
    assert info["ok"] and w.has("iron_ingot") and w.steps - before == 40


def test_inventory_rules_are_the_text_worlds(kb):
    """The same craft from the same inventory: the same result or the same refusal."""
    cases = [
        ("planks", {"log": 1}),
        ("stick", {"planks": 1}),
        ("crafting_table", {"planks": 4}),
        ("wooden_slab", {"planks": 3}),
        ("bed", {"planks": 3, "wool": 2}),
    ]
    for item, inv in cases:
        t = TextWorld(kb)
        t.reset(seed=0, options={"inventory": inv})
        g = flat(kb, inventory=inv)
        ti = t.step({"action": "craft", "item": item})[4]
        gi = g.step({"action": "craft", "item": item})[4]
        assert (ti["ok"], ti["gained"], ti["missing"]) == (gi["ok"], gi["gained"], gi["missing"]), item
        assert t.inventory == g.inventory, item


def test_hostile_mobs_come_at_night_and_zombies_burn_by_day(kb):
    w = flat(kb, time_of_day="night")
    hostile = {w.env.vocab.mob_id[m] for m in ("zombie", "spider", "skeleton")}
    seen = False
    for _ in range(400):
        w.step({"action": "noop"})
        seen = seen or bool(np.isin(w.env.mob_kind[0], list(hostile)).any())
    assert seen and w.time_of_day() == "night"
    w = flat(kb)
    w.spawn("zombie", 3, 65, 3)
    w.spawn("skeleton", 5, 65, 3)
    w.step({"action": "noop"})
    assert not np.isin(w.env.mob_kind[0], [w.env.vocab.mob_id["zombie"], w.env.vocab.mob_id["skeleton"]]).any()
    for _ in range(300):  # and no hostile spawns by day
        w.step({"action": "noop"})
    assert not np.isin(w.env.mob_kind[0], list(hostile)).any()


def test_animals_leave_the_night_s_hostiles_room(kb):
    """A map crowded with animals (a 48 x 48 map's filled all 40 slots) still gets its zombies
    and spiders at night: the animals stop at 40 - HOSTILE_CAP slots, as the game caps the two
    apart ("find a zombie during the nighttime" waited a whole night for one before)."""
    from worlds.gridworld.batch import MAX_MOBS
    from worlds.gridworld.mobs import HOSTILE_CAP

    w = flat(kb, mobs=[(1 + k % 14, 65, 1 + k // 14, "pig") for k in range(MAX_MOBS)], time_of_day="night")
    pig = w.env.vocab.mob_id["pig"]
    assert (w.env.mob_kind[0] == pig).sum() == MAX_MOBS - HOSTILE_CAP
    hostile = [w.env.vocab.mob_id["zombie"], w.env.vocab.mob_id["spider"]]
    for _ in range(400):
        w.step({"action": "noop"})
        if np.isin(w.env.mob_kind[0], hostile).any():
            break
    assert np.isin(w.env.mob_kind[0], hostile).any()
    env = BatchGridWorld(4, kb, size=(48, 48))
    env.reset([1, 2, 3, 4])
    animals = (env.mob_kind > 0) & ~env.rules.mob_hostile[env.mob_kind]
    assert animals.sum(axis=1).max() <= MAX_MOBS - HOSTILE_CAP


def test_generated_worlds_have_animals_by_day(kb):
    env = BatchGridWorld(2, kb, size=(32, 32))
    env.reset([1, 2])
    passive = [env.vocab.mob_id[m] for m in ("cow", "sheep", "pig", "chicken")]
    for i in range(2):
        assert set(passive) <= set(env.mob_kind[i].tolist())


def test_bad_seed_biome_and_layout_are_one_line_errors(kb):
    w = GridWorld(kb, size=SIZE)
    for bad in (-1, 2**53, "7"):
        with pytest.raises(GridWorldError, match="seed .* out of range"):
            w.reset(seed=bad)
    w.reset(seed=3 * 1_000_003 + 2**31 - 1)  # an episode seed `deps eval --seed 3` can derive
    with pytest.raises(GridWorldError, match="unknown biome 'moon'.*accepted: plains"):
        w.reset(seed=0, options={"biome": "moon"})
    with pytest.raises(GridWorldError, match="unknown cell 'cheese'"):
        w.reset(seed=0, options={"layout": {"blocks": [[1, 65, 1, "cheese"]]}})


def test_cli_bad_biome_and_seed_exit_2(kb, capsys):
    from agent.cli import main

    assert main(["run", "CraftPlanks", "--world", "gridworld", "--planner", "oracle", "--biome", "moon"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("deps run: error: unknown biome 'moon'")
    assert main(["run", "CraftPlanks", "--world", "gridworld", "--planner", "oracle", "--seed", "-5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "seed" in err[0] and "-5" in err[0]  # the CLI's check, the grid world's range


# ---------------------------------------------------------------- batch
def test_batch_steps_many_worlds_like_single_ones(kb):
    env = BatchGridWorld(3, kb, size=(24, 24))
    obs = env.reset([4, 5, 6])
    assert obs["blocks"].shape == (3, 5, 9, 9) and obs["inventory"].shape == (3, env.vocab.n_items)
    single = GridWorld(kb, size=(24, 24))
    single.reset(seed=5)
    rng = np.random.default_rng(1)
    for _ in range(30):
        acts = np.stack([rng.integers(0, 10, 3), np.full(3, -1)], axis=1)
        obs, rew, term, trunc, info = env.step(acts)
        single.step((int(acts[1, 0]), -1))
    assert tuple(env.pos[1]) == single.position
    assert (env.cells[1] == single.env.cells[0]).all()
    assert obs["position"].dtype == np.int32 and rew.shape == (3,) and info["ok"].shape == (3,)


# ---------------------------------------------------------------- experts
def run_goal(w, goal):
    return GridScriptedController(w.kb).run(goal, w)


def test_expert_mines_logs_and_digs_down_to_ore(kb):
    w = flat(
        kb,
        blocks=[(3, 65 + k, 3, "oak_log") for k in range(4)] + [(12, 40, 12, "iron_ore")],
        inventory={"stone_pickaxe": 1},
    )
    out = run_goal(w, Goal("mine", {"log": 3}))
    assert out["ok"] and out["gained"]["log"] == 3 and out["steps"] > 10
    out = run_goal(w, Goal("mine", {"iron_ore": 1}))
    assert out["ok"] and out["gained"]["iron_ore"] == 1 and w.position[1] <= 42


def test_expert_says_which_tool_is_missing(kb):
    w = flat(kb, blocks=[(12, 60, 12, "iron_ore")], inventory={"wooden_pickaxe": 1})
    out = run_goal(w, Goal("mine", {"iron_ore": 1}))
    assert not out["ok"] and out["error"] == "needs a stone_pickaxe or better to mine iron_ore"
    assert out["missing"] == {"tool": "stone_pickaxe"} and out["steps"] == 0


def test_expert_farms_flint_from_one_gravel_by_placing_it_again(kb):
    """Flint is 1 gravel break in 10; with no gravel in the map but one held, the expert places
    it beside itself (on ground: placed gravel would fall) and breaks it until the flint comes,
    as players do, where a search for another vein would find none."""
    w = flat(kb, inventory={"gravel": 1})
    out = run_goal(w, Goal("mine", {"flint": 2}))
    assert out["ok"], out["error"]
    assert out["gained"].get("flint") == 2 and out["steps"] > 2
    assert w.env.inv[0, w.env.vocab.item_id["gravel"]] <= 1  # placed and broken, never more than the one
    # none held: no source anywhere in the map, so the search has nothing to walk to
    empty = flat(kb)
    assert not run_goal(empty, Goal("mine", {"flint": 1}))["ok"]


def test_expert_kills_a_wandering_mob(kb):
    w = flat(kb, mobs=[(2, 65, 13, "cow")])
    out = run_goal(w, Goal("kill", {"cow": 1}))
    assert out["ok"] and out["gained"].get("leather") == 1 and out["gained"].get("beef") == 1


def test_expert_waits_for_animals_to_wander_back_and_then_kills_one(kb):
    w = flat(kb, mobs=[(2, 65, 13, "sheep")])
    sheep = w.env.vocab.mob_id["sheep"]
    w.env.mob_kind[0][w.env.mob_kind[0] == sheep] = 0  # none left on the map
    waiting = Expert(w.env, 0, Goal("kill", {"sheep": 1}))
    assert waiting.act() == (P["noop"], -1) and waiting.result is None
    out = run_goal(w, Goal("kill", {"sheep": 1}))
    assert out["ok"], out["error"]
    assert out["gained"].get("wool") == 1 and out["steps"] >= 1


def test_expert_places_a_table_and_a_furnace_then_crafts_smelts_and_equips(kb):
    w = flat(kb, inventory={"planks": 7, "stick": 2, "iron_ingot": 3, "iron_ore": 1, "coal": 1, "cobblestone": 8})
    for goal in (
        Goal("craft", {"crafting_table": 1}),
        Goal("craft", {"iron_pickaxe": 1}),
        Goal("craft", {"furnace": 1}),
        Goal("smelt", {"iron_ingot": 1}),
        Goal("equip", {"iron_pickaxe": 1}),
    ):
        out = run_goal(w, goal)
        assert out["ok"], (goal.code(), out["error"])
    cells = w.env.cells[0]
    assert (cells == w.env.vocab.cell_id["crafting_table"]).any() and (cells == w.env.vocab.cell_id["furnace"]).any()
    assert w.equipment == {"mainhand": "iron_pickaxe"} and w.inventory["iron_ingot"] == 1
    out = run_goal(w, Goal("craft", {"diamond_pickaxe": 1}))
    assert not out["ok"] and out["error"].startswith("cannot craft diamond_pickaxe: needs 3 diamond, has 0")


def test_expert_uses_a_bucket_on_water(kb):
    w = flat(kb, blocks=[(8, 64, 3, "water")], inventory={"bucket": 1})
    out = run_goal(w, Goal("mine", {"water_bucket": 1}))
    assert out["ok"] and w.inventory.get("water_bucket") == 1 and "bucket" not in w.inventory


def test_demonstrations_on_a_batch(kb):
    env = BatchGridWorld(2, kb, size=SIZE)
    layout = {"blocks": [[3, 65, 3, "oak_log"], [3, 66, 3, "oak_log"]], "mobs": [[12, 65, 12, "pig"]]}
    env.reset([0, 1], [{"layout": layout}, {"layout": layout}])
    pairs = list(demonstrate(env, [Goal("mine", {"log": 2}), Goal("kill", {"pig": 1})]))
    assert len(pairs) > 10
    obs, acts, active = pairs[0]
    assert obs["blocks"].shape[0] == 2 and acts.shape == (2, 2) and active.all()
    assert all(ex.result["ok"] for ex in demonstrate.experts)
    used = {PRIMITIVES[a] for _, acts, active in pairs for a in acts[active, 0]}
    assert "attack" in used and used & {"move_north", "move_south", "move_east", "move_west"}


def test_goal_distance_and_oracle_selector_prefer_the_nearer_source(kb):
    from nodes.selectors import OracleSelector

    w = flat(kb, blocks=[(7, 65, 8, "oak_log")], mobs=[(15, 65, 15, "sheep")])
    near, far = Goal("mine", {"log": 1}), Goal("kill", {"sheep": 1})
    assert 0 < w.goal_distance(near) < w.goal_distance(far)
    assert w.goal_distance(Goal("mine", {"diamond": 1})) == -1

    class Ctx:
        world, kb = w, None

    pick, why = OracleSelector().choose([far, near], [0, 1], [0, 1], {}, Ctx())
    assert pick == 1 and why["rule"] == "least path steps in the world"


def test_context_state_and_render(kb):
    w = flat(kb, blocks=[(9, 65, 8, "oak_log")], mobs=[(7, 65, 8, "sheep")])
    c = w.context_state()
    assert c["biome"] == "plains" and c["time_of_day"] == "day" and c["standing_on"] == "grass_block"
    assert "sheep" in c["nearby_mobs"] and "oak_log" in c["nearby_blocks"] and c["y"] == 65
    pic = w.render().splitlines()
    assert pic[4][4] == "@" and pic[4][5] == "W" and pic[4][3] == "S" and "plains" in pic[-1]
    assert HEIGHT == 80


def test_animals_wander_in_when_a_kind_runs_low(kb):
    w = flat(kb, mobs=[(2, 65, 2, "cow")])
    cow = w.env.vocab.mob_id["cow"]
    w.env.mob_kind[0][w.env.mob_kind[0] == cow] = 0
    for _ in range(60):
        w.step({"action": "noop"})
    assert (w.env.mob_kind[0] == cow).sum() >= 1


def test_a_scarce_kind_wanders_in_even_when_the_mob_table_is_full(kb):
    w = flat(kb, mobs=[(1 + k % 14, 65, 1 + k // 14, "pig") for k in range(40)])  # every slot a pig
    cow, pig = w.env.vocab.mob_id["cow"], w.env.vocab.mob_id["pig"]
    for _ in range(60):
        w.step({"action": "noop"})
    kinds = w.env.mob_kind[0]
    assert (kinds == cow).sum() >= 1 and (kinds == pig).sum() >= 30


def test_reset_some_restarts_only_the_chosen_worlds(kb):
    env = BatchGridWorld(2, kb, size=SIZE)
    env.reset([0, 1], [{"layout": {}}, {"layout": {}}])
    env.step(np.array([[P["move_north"], -1], [P["move_north"], -1]]))
    moved = env.pos.copy()
    env.reset_some(np.array([True, False]), [7, 7], [{"layout": {}}, {"layout": {}}])
    assert tuple(env.pos[0]) == (8, 65, 8) and tuple(env.pos[1]) == tuple(moved[1]) and env.steps.tolist() == [0, 1]


def test_task_budgets_are_the_same_game_time(kb):
    # MineDojo steps are 1/20 s, grid steps 1/4 s: 3000 -> 600, 12000 -> 2400
    assert GridWorld.budget_steps(3000) == 600 and GridWorld.budget_steps(12000) == 2400
