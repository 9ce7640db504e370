"""Tall plants in the grid world (sunflowers, lilacs, rose bushes, peonies, double tallgrass, large
ferns): grown two cells high in the biomes whose decorators grow them, broken as one plant, crafted
into their dyes, got by the scripted expert and (since round 40) the policy alone, and every older
seed's map unchanged but for them."""

from __future__ import annotations

import hashlib
from types import SimpleNamespace

import numpy as np
import pytest

from skills.grid_controller import GridScriptedController
from worlds.gridworld.coverage import grows_in, refusal
from worlds.gridworld.generation import generate
from worlds.gridworld.sources import source_blocks
from worlds.gridworld.spec import game_data
from worlds.gridworld.world import GridWorld
from worlds.types import Goal

PLANTS = ("sunflower", "lilac", "rose_bush", "peony", "tall_grass", "large_fern")


def tall_ids(vocab):
    return [vocab.cell_id[c] for c in (*PLANTS, "tall_plant_top")]


def growers(plant):
    return {b for b, s in game_data()["biomes"].items() if plant in (s.get("tall_plants") or {})}


# ---------------------------------------------------------------- where they grow, and how tall
@pytest.mark.parametrize(
    "biome", ["plains", "forest", "taiga", "sunflower_plains", "flower_forest", "desert", "jungle"]
)
def test_each_grows_only_near_a_biome_that_grows_it_and_two_cells_high(vocab, biome):
    cid, spread = vocab.cell_id, int(game_data()["tall_plant_patch"]["spread"])
    found = dict.fromkeys(PLANTS, 0)
    for seed in range(4):
        m = generate(seed, vocab, (96, 96), biome)
        for plant in PLANTS:
            for x, z, y in np.argwhere(m.cells == cid[plant]):
                found[plant] += 1
                assert m.cells[x, z, y + 1] == cid["tall_plant_top"]  # its upper half
                assert m.cells[x, z, y - 1] in (cid["grass_block"], cid["dirt"])
                near = m.biome[max(0, x - spread) : x + spread + 1, max(0, z - spread) : z + spread + 1]
                assert growers(plant) & {vocab.biomes[b] for b in np.unique(near)}, (plant, seed)
        tops = np.argwhere(m.cells == cid["tall_plant_top"])
        assert all(m.cells[x, z, y - 1] in [cid[p] for p in PLANTS] for x, z, y in tops)  # never alone
    rates = game_data()["biomes"][biome].get("tall_plants") or {}
    assert all(found[p] > 0 for p, r in rates.items() if r >= 0.1), found  # on four maps of it, 144 chunks
    assert sum(found[p] for p in rates) > 0 or not rates  # a forest's three: 1 patch of each in 50 chunks
    if not rates:  # a biome that grows none: only what spills over from a neighbour's patches
        assert sum(found.values()) < 200


def test_sunflowers_grow_only_in_sunflower_plains_and_forest_flowers_densest_in_a_flower_forest(kb):
    assert growers("sunflower") == {"sunflower_plains"}
    assert growers("rose_bush") == {"forest", "birch_forest", "flower_forest"} == growers("lilac") == growers("peony")
    assert growers("large_fern") == {"taiga"} and growers("tall_grass") == {"plains", "sunflower_plains", "savanna"}
    # a default map of a forest holds a patch 1 time in 5: a task's map is made where they are common
    assert grows_in(["rose_bush"], kb) == ("flower_forest",) and grows_in(["sunflower"], kb) == ("sunflower_plains",)
    assert grows_in(["pumpkin"], kb) == ("plains",)  # a thin plant no appended biome grows: where it was


# ---------------------------------------------------------------- older maps
def test_every_cycle_seeds_map_is_unchanged_outside_the_tall_plants(vocab):
    h = hashlib.sha1()
    for seed in range(16):
        m = generate(seed, vocab, (48, 48))
        h.update(np.where(np.isin(m.cells, tall_ids(vocab)), 0, m.cells).tobytes())
        h.update(m.biome.tobytes())
        h.update(repr((m.mobs, m.spawn)).encode())
    # recorded on commit 3599be6, before tall plants were built
    assert h.hexdigest() == "ea0ea30baca82cec1efa3568b220e4e5359ed0a0"


def test_the_tall_plants_drew_from_a_stream_of_their_own_into_cells_that_were_air(vocab, monkeypatch):
    with_them = generate(4, vocab, (48, 48), "savanna")
    data = {**game_data()}
    data["biomes"] = {b: {k: v for k, v in s.items() if k != "tall_plants"} for b, s in data["biomes"].items()}
    monkeypatch.setattr("worlds.gridworld.generation.game_data", lambda: data)
    monkeypatch.setattr("worlds.gridworld.tall.game_data", lambda: data)
    without = generate(4, vocab, (48, 48), "savanna")
    tall = np.isin(with_them.cells, tall_ids(vocab))
    assert tall.any() and not np.isin(without.cells, tall_ids(vocab)).any()
    assert (without.cells[tall] == 0).all() and np.array_equal(np.where(tall, 0, with_them.cells), without.cells)
    assert with_them.mobs == without.mobs and with_them.spawn == without.spawn


# ---------------------------------------------------------------- breaking them
def flat(kb, blocks, agent=(8, 65, 8), inventory=None):
    w = GridWorld(kb, size=(16, 16))
    layout = {"ground": 64, "blocks": [list(b) for b in blocks], "mobs": [], "agent": list(agent)}
    w.reset(seed=0, options={"layout": layout, "inventory": inventory or {}})
    return w


def plant(name, x=9, z=8):
    return [(x, 65, z, name), (x, 66, z, "tall_plant_top")]


def cells_at(w, *points):
    return [w.env.vocab.cells[int(w.env.cells[0, x, z, y])] for x, y, z in points]


@pytest.mark.parametrize("name", ["rose_bush", "lilac", "peony", "sunflower"])
def test_breaking_the_lower_half_gives_the_flower_once_and_clears_both(kb, name):
    w = flat(kb, plant(name))
    w.step({"action": "face_east"})
    _, _, _, _, info = w.step({"action": "attack"})
    assert info["ok"] and info["gained"] == {name: 1} and info["broke"] == name
    assert w.inventory == {name: 1} and cells_at(w, (9, 65, 8), (9, 66, 8)) == ["air", "air"]
    assert w.env.inv[0, w.env.vocab.item_id["double_plant"]] == 1  # 1.11.2's one slot for the four


def test_breaking_the_upper_half_breaks_the_plant_below_for_the_same_one_item(kb):
    w = flat(kb, [*plant("rose_bush"), (8, 65, 8, "dirt")], agent=(8, 66, 8))  # standing one up, beside the top
    w.step({"action": "face_east"})
    _, _, _, _, info = w.step({"action": "attack"})
    assert info["ok"] and info["gained"] == {"rose_bush": 1} and info["broke"] == "rose_bush"
    assert w.inventory == {"rose_bush": 1} and cells_at(w, (9, 65, 8), (9, 66, 8)) == ["air", "air"]
    w.step({"action": "attack"})  # nothing is left there to break again
    assert w.inventory == {"rose_bush": 1}


def test_double_tallgrass_and_a_large_fern_give_two_small_ones_to_shears_and_no_flower(kb):
    w = flat(kb, [*plant("tall_grass"), *plant("large_fern", z=9)], inventory={"shears": 1})
    w.step({"action": "face_east"})
    _, _, _, _, info = w.step({"action": "attack"})
    assert info["gained"] == {"tallgrass": 2} and cells_at(w, (9, 65, 8), (9, 66, 8)) == ["air", "air"]
    bare = flat(kb, plant("large_fern"))
    bare.step({"action": "face_east"})
    _, _, _, _, info = bare.step({"action": "attack"})
    assert info["ok"] and not info["gained"] and bare.inventory == {}  # 1.11: a large fern drops nothing by hand
    assert kb.chance_drops("tall_grass") == {"wheat_seeds": 0.125} and kb.block_drops("tall_grass") == {}


# ---------------------------------------------------------------- the dyes
@pytest.mark.parametrize(
    ("flower", "dye"),
    [("rose_bush", "rose_red"), ("lilac", "magenta_dye"), ("peony", "pink_dye"), ("sunflower", "dandelion_yellow")],
)
def test_each_flower_crafts_into_two_of_its_dye_kept_apart_in_dyes_slot(kb, flower, dye):
    assert refusal(kb, {dye: 1}) is None
    w = flat(kb, [], inventory={flower: 1, "lapis_lazuli": 1})
    obs, _, _, _, info = w.step({"action": "craft", "item": dye})
    assert info["ok"], info["error"]
    assert w.inventory == {dye: 2, "lapis_lazuli": 1}  # 1.11.2's dye:N, named apart
    assert (
        obs["inventory"][w.env.vocab.item_id["dye"]] == 3 and obs["inventory"][w.env.vocab.item_id["double_plant"]] == 0
    )


def test_a_tall_flower_is_mined_when_asked_for_and_a_dye_still_comes_from_the_common_flower(capsys):
    """A tall flower is priced as a searched-for block (skill_costs.yaml), so its two dyes do not
    make it the cheaper way to one dye: rose red stays a poppy's, as before tall flowers came."""
    import json

    from agent.cli import main

    def plan(item: str) -> list[str]:
        assert main(["kb", item, "--world", "gridworld", "--json"]) == 0
        return json.loads(capsys.readouterr().out.strip().splitlines()[-1])["oracle_plan"]

    assert plan("peony") == ["mine({'peony':1}, null)"]
    assert plan("rose_red") == ["mine({'red_flower':1}, null)", "craft({'rose_red':1}, {'red_flower':1}, null)"]
    assert not any("rose_bush" in g or "sunflower" in g for item in ("orange_dye", "purple_dye") for g in plan(item))
    assert main(["kb", "double_plant", "--world", "gridworld"]) == 0
    assert "sunflower, lilac, rose_bush, peony" in capsys.readouterr().out
    assert "double_plant" not in (game_data().get("not_built") or {})


# ---------------------------------------------------------------- the scripted expert
@pytest.mark.parametrize(
    ("item", "seed", "biome"),
    [("rose_bush", 2, "flower_forest"), ("lilac", 1, "flower_forest"), ("peony", 3, "flower_forest"),
     ("sunflower", 4, "sunflower_plains")],
)  # fmt: skip
def test_the_scripted_expert_gets_each_on_a_map_made_where_it_grows(kb, item, seed, biome):
    w = GridWorld(kb)
    w.reset(seed=seed, options={"target": {item: 1}})
    assert w.env.vocab.biomes[w.env.biome_map[0, w.env.X // 2, w.env.Z // 2]] == biome
    assert source_blocks(w.env, 0, Goal("mine", {item: 1})) >= 2  # each plant counted once (its lower half)
    out = GridScriptedController(kb).run(Goal("mine", {item: 1}), w)
    assert out["ok"], out["error"]
    assert w.inventory[item] == 1  # (and what it dug on the way)


def test_a_forest_map_too_thin_in_rose_bushes_is_made_larger_until_it_holds_two(kb):
    w = GridWorld(kb)
    w.reset(seed=1, options={"target": {"rose_bush": 1}, "biome": "forest"})
    assert w.env.X > 48 and source_blocks(w.env, 0, Goal("mine", {"rose_bush": 1})) >= 2
    assert GridScriptedController(kb).run(Goal("mine", {"rose_bush": 1}), w)["ok"]


# ---------------------------------------------------------------- the learned controller
def test_the_networks_read_the_flowers_as_small_ones_and_the_tall_checkpoint_drives_them(kb, vocab):
    assert [vocab.cells[vocab.cell_as[vocab.cell_id[c]]] for c in PLANTS] == [
        "dandelion", "poppy", "poppy", "poppy", "grass", "grass"
    ]  # fmt: skip
    from skills.learned.controller import make_learned_controller
    from skills.learned.options import LearnedOptions
    from skills.learned.paths import SHIPPED
    from training.controller.data import NEW_IN_ROUND_40
    from worlds.tasks import task_from_instruction

    if not (SHIPPED / "controller-tall.pt").is_file():
        pytest.skip("no shipped controller-tall.pt")
    settings = SimpleNamespace(world="gridworld", device="cpu", seed=0, option=lambda part: LearnedOptions())
    for item, seed in (("lilac", 1), ("sunflower", 4)):  # round 40: no fallback, the policy alone
        task = task_from_instruction(f"obtain a {item}", kb.canonical)
        ctl = make_learned_controller(kb, settings, None, task=task)
        assert not ctl.use_fallback
        part = ctl.policy.part_for(Goal("mine", {item: 1}))  # controller-tall.pt, cut to the five
        assert part.goals == {f"mine:{i}" for i in NEW_IN_ROUND_40}
        w = GridWorld(kb)
        w.reset(seed=seed, options={"target": {item: 1}})
        out = ctl.run(Goal("mine", {item: 1}), w)
        assert out["ok"], out["error"]
        assert w.inventory[item] == 1
