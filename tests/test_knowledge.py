"""The knowledge base: game facts from minecraft-data plus the hand tables in worlds/data."""

from __future__ import annotations

import pytest

from worlds.costs import SkillCosts
from worlds.knowledge import VERSIONS, load_kb, tool_tier
from worlds.options import closure, how_to_make

ALL = list(VERSIONS)


@pytest.fixture(scope="module", params=ALL)
def kb(request):
    return load_kb(request.param)


@pytest.fixture(scope="module")
def kb11():
    return load_kb("1.11.2")


@pytest.fixture(scope="module")
def kb19():
    return load_kb("1.19.2")


def test_versions_load_and_are_cached():
    for v in ALL:
        kb = load_kb(v)
        assert kb.version == v
        assert len(kb.item_names()) > 300
        assert load_kb(v) is kb


def test_bad_version_is_a_one_line_value_error():
    with pytest.raises(ValueError) as e:
        load_kb("1.7")
    msg = str(e.value)
    assert "\n" not in msg and "1.7" in msg
    assert all(v in msg for v in ALL)


def test_wooden_pickaxe_is_3_planks_2_sticks_on_a_table(kb):
    (r,) = kb.recipes("wooden_pickaxe")
    assert r.ingredients == {"planks": 3, "stick": 2}
    assert r.count == 1 and r.needs_table
    assert how_to_make(kb, "Wooden Pickaxe") == "craft 1 wooden_pickaxe from 3 planks + 2 stick on a crafting_table"


def test_log_makes_4_planks_and_planks_make_4_sticks(kb):
    assert any(r.ingredients == {"log": 1} and r.count == 4 and not r.needs_table for r in kb.recipes("planks"))
    assert ({"planks": 2}, 4, False) in [(r.ingredients, r.count, r.needs_table) for r in kb.recipes("stick")]
    assert not kb.recipes("crafting_table")[0].needs_table


def test_torch_is_coal_and_stick(kb):
    assert any(r.ingredients == {"coal": 1, "stick": 1} and r.count == 4 for r in kb.recipes("torch"))


def test_diamond_ore_needs_an_iron_pickaxe(kb):
    tools = kb.harvest_tools("diamond_ore")
    assert "iron_pickaxe" in tools and "diamond_pickaxe" in tools
    assert "stone_pickaxe" not in tools and "wooden_pickaxe" not in tools
    src = kb.mine_sources("diamond")[0]
    assert (src.block, src.min_tool, src.tier) == ("diamond_ore", "iron_pickaxe", 2)


def test_iron_ore_needs_stone_pickaxe_or_better(kb):
    src = (kb.mine_sources("iron_ore") or kb.mine_sources("raw_iron"))[0]  # raw_iron since 1.17
    assert src.block == "iron_ore" and src.min_tool == "stone_pickaxe" and src.tier == tool_tier("stone_pickaxe")
    assert "wooden_pickaxe" not in src.tools and "iron_pickaxe" in src.tools


def test_tool_tiers():
    assert tool_tier("wooden_pickaxe") == tool_tier("golden_pickaxe") == 0
    assert (
        tool_tier("wooden_pickaxe")
        < tool_tier("stone_pickaxe")
        < tool_tier("iron_pickaxe")
        < tool_tier("diamond_pickaxe")
    )
    assert tool_tier(None) == -1


def test_1_11_mining_rules(kb11):
    assert kb11.block_drops("iron_ore") == {"iron_ore": 1}  # smelted to ingots, not dropped
    assert kb11.block_drops("stone") == {"cobblestone": 1}
    assert kb11.mine_sources("stone") == []  # stone only by smelting
    assert [s.input for s in kb11.smelting("stone")] == ["cobblestone"]
    assert kb11.harvest_tools("log") is None  # by hand


def test_1_16_uses_the_non_silk_touch_drops():
    kb = load_kb("1.16.5")  # its blocks.json lists stone -> stone (silk touch)
    assert kb.block_drops("stone") == {"cobblestone": 1}
    assert kb.block_drops("coal_ore") == {"coal": 1}


def test_iron_ingot_is_smelted_in_a_furnace(kb11, kb19):
    assert [(s.input, s.output) for s in kb11.smelting("iron_ingot")] == [("iron_ore", "iron_ingot")]
    assert ("raw_iron", "iron_ingot") in [(s.input, s.output) for s in kb19.smelting("iron_ingot")]
    assert kb19.block_drops("iron_ore") == {"raw_iron": 1}
    assert kb11.recipes("iron_ingot")  # from a block / nuggets: circular, never the way to start
    assert how_to_make(kb11, "iron_ingot").startswith("smelt 1 iron_ore into 1 iron_ingot in a furnace")


def test_fuels(kb):
    f = kb.fuels()
    assert f["coal"] == 8 and f["planks"] == 1.5 and f["log"] == 1.5 and f["stick"] == 0.5
    assert kb.fuel_value("stick") == 0.5 and kb.fuel_value("cobblestone") == 0


def test_generic_planks_count_variants(kb19, kb11):
    inv = {"oak_planks": 2, "birch_planks": 3, "stick": 1}
    assert kb19.count(inv, "planks") == 5
    assert kb19.count(inv, "oak_planks") == 2
    assert "birch_planks" in kb19.variants("planks") and kb19.matches("planks", "birch_planks")
    assert kb19.variants("oak_planks") == ["oak_planks"]
    assert kb11.variants("log") == ["log", "log2"]
    assert kb11.count({"log": 1, "log2": 2}, "log") == 3
    assert kb11.count({"wool": 2}, "wool") == 2


def test_modern_recipes_accept_any_wood(kb19):
    assert kb19.recipes("chest")[0].ingredients == {"planks": 8}
    bed = kb19.recipes("white_bed")
    assert bed[0].ingredients == {"white_wool": 3, "planks": 3}
    assert {"wool": 3, "planks": 3} in [r.ingredients for r in kb19.recipes("bed")]
    # oak stairs need oak planks specifically
    assert kb19.recipes("oak_stairs")[0].ingredients == {"oak_planks": 6}


def test_1_11_wood_recipes_are_patched(kb11):
    for item in ("oak_stairs", "fence", "fence_gate", "wooden_door", "boat", "spruce_boat"):
        assert kb11.recipes(item), item
    assert kb11.recipes("boat")[0].ingredients == {"planks": 5}  # not + a wooden shovel
    assert kb11.is_item("iron_nugget")
    assert kb11.recipes("iron_nugget")[0].ingredients == {"iron_ingot": 1}
    # the quartz block comes from quartz, not from "two slabs" of any kind
    assert [r.ingredients for r in kb11.recipes("quartz_block")] == [{"quartz": 4}]


@pytest.mark.parametrize(
    "name,v11,v19",
    [
        ("Wooden Pickaxe", "wooden_pickaxe", "wooden_pickaxe"),
        ("wooden pickaxe", "wooden_pickaxe", "wooden_pickaxe"),
        ("minecraft:stick", "stick", "stick"),
        ("sticks", "stick", "stick"),
        ("wooden_pressure", "wooden_pressure_plate", "wooden_pressure_plate"),
        ("door", "wooden_door", "wooden_door"),
        ("stone_brick", "stonebrick", "stone_bricks"),
        ("stonebrick", "stonebrick", "stone_bricks"),
        ("level", "lever", "lever"),
        ("heavy_weighted_plate", "heavy_weighted_pressure_plate", "heavy_weighted_pressure_plate"),
        ("stonebrick_stairs", "stone_brick_stairs", "stone_brick_stairs"),
        ("planks", "planks", "planks"),
        ("log", "log", "log"),
        ("oak_log", "log", "oak_log"),
        ("Stone Bricks", "stonebrick", "stone_bricks"),
        ("no_such_thing", None, None),
    ],
)
def test_canonical(kb11, kb19, name, v11, v19):
    assert kb11.canonical(name) == v11
    assert kb19.canonical(name) == v19


def test_mobs(kb):
    wool = "wool" if kb.version == "1.11.2" else "white_wool"
    assert {"leather", "beef"} <= set(kb.mob_drops("cow"))
    assert kb.mob_drops("sheep").get(wool) == 1 and "mutton" in kb.mob_drops("sheep")
    assert "cow" in kb.mob_sources("leather")
    assert "sheep" in kb.mob_sources("wool")
    assert "iron_golem" not in kb.mob_sources("iron_ingot")  # not hunted (data/mobs.yaml)
    assert "cow" in kb.mobs()


def test_1_11_entity_loot_falls_back_to_the_nearest_version(kb11, kb19):
    assert kb11.loot_version == "1.14.4"  # minecraft-data has no 1.11 entity loot
    assert kb19.loot_version == "1.19"  # pc/1.19 serves 1.19.2
    assert kb11.mob_drops("squid") == {"ink_sac": 1}  # dye:0, named apart (recipe_patches.yaml)
    assert kb11.count(kb11.mob_drops("squid"), "dye") == 1


def test_closure(kb):
    assert closure(kb, "wooden_pickaxe") == {"log": 2}
    assert closure(kb, "planks", 6) == {"log": 2}
    assert closure(kb, "stick") == {"log": 1}
    c = closure(kb, "diamond")
    assert c == {"diamond": 1}
    c = closure(kb, "iron_pickaxe")
    ore = "iron_ore" if kb.version != "1.19.2" else "raw_iron"
    assert c[ore] == 3 and "log" in c


def test_how_to_make(kb):
    assert how_to_make(kb, "diamond") == "mine 1 diamond_ore with an iron_pickaxe or better (drops 1 diamond)"
    assert how_to_make(kb, "foo") == "unknown item 'foo'"
    assert how_to_make(kb, "leather").startswith("kill 1 ")


def test_skill_costs_follow_table_18():
    c = SkillCosts()
    log = c.mine("oak_log")
    assert log.success_rate == 0.39
    assert log.cost == round(c.base + c.k * 600 * (1 - 0.39))
    assert c.mine("diamond_ore").success_rate == 0.35
    assert c.mine("diamond_ore").cost == round(c.base + c.k * 12000 * 0.65)
    assert c.mine("iron_ore").success_rate == 0.40
    assert c.mine("birch_log").success_rate == 0.29
    assert log.cost > c.craft(True).cost > c.craft(False).cost
    assert c.kill("cow").success_rate == 0.60 and c.kill("sheep").success_rate == 0.44
    assert c.smelt().success_rate == 0.80 and c.equip().success_rate == 1.0


def test_the_name_a_placed_block_shows_names_its_item():
    # 1.11.2's item list calls it "Daylight Detector"; the game shows "Daylight Sensor" on the block
    kb = load_kb("1.11.2")
    assert kb.canonical("daylight sensor") == "daylight_detector"
    assert kb.canonical("Stained Clay") == "stained_hardened_clay"
    assert kb.canonical("bricks") == "brick_block"  # an existing name keeps its meaning
    assert kb.canonical("wooden planks") == "planks" and kb.canonical("brick") == "brick"
    assert load_kb("1.16.5").canonical("wheat crops") == "wheat"


def test_a_mine_breaks_the_blocks_that_drop_the_item_or_the_named_block_for_its_drop(kb):
    iron = kb.sources_to_mine("iron_ore")
    assert [s.block for s in iron] == ["iron_ore"] and "wooden_pickaxe" not in iron[0].tools
    assert "stone_pickaxe" in iron[0].tools
    # "mine stone": stone drops cobblestone, so the mine breaks stone for it, with a pickaxe
    stone = kb.sources_to_mine("stone")
    assert {s.block for s in stone} == {"stone"} and {s.item for s in stone} == {"cobblestone"}
    assert kb.sources_to_mine("iron_ingot") == []  # smelted or crafted only
