"""Recipe rules of issue 22: unpacking what is held, mixed materials, 1.11.2's data gaps
and its dye colours resolved exactly."""

from __future__ import annotations

import pytest

from tests.test_solver import replay
from worlds.knowledge import VERSIONS, load_kb
from worlds.solver import solve
from worlds.textworld import TextWorld


def _plan_runs(kb, target, inventory):
    goals = solve(kb, target, inventory)
    ok, err, w = replay(kb, goals, inventory=inventory, target=target)
    assert ok, err
    assert w.target_reached()
    return goals


# ---------------------------------------------------------------- unpacking
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    "target, held, made_from",
    [
        ({"iron_ingot": 1}, {"iron_nugget": 9}, "iron_nugget"),
        ({"diamond": 3}, {"diamond_block": 1}, "diamond_block"),
        ({"wheat": 5}, {"hay_block": 1}, "hay_block"),
        ({"gold_ingot": 4}, {"gold_block": 1}, "gold_block"),
    ],
)
def test_held_blocks_and_nuggets_are_unpacked_not_mined_again(version, target, held, made_from):
    kb = load_kb(version)
    goals = _plan_runs(kb, target, held)
    (item,) = target
    assert [(g.action, g.materials) for g in goals if item in g.obj] == [("craft", {made_from: held[made_from]})]
    assert not any(g.action in ("mine", "smelt") and item in g.obj for g in goals)


def test_unpacking_uses_what_is_held_and_gets_the_rest_the_usual_way():
    kb = load_kb("1.11.2")
    goals = _plan_runs(kb, {"iron_ingot": 2}, {"iron_nugget": 9})
    made = [(g.action, g.obj["iron_ingot"]) for g in goals if "iron_ingot" in g.obj]
    assert made == [("craft", 1), ("smelt", 1)]


def test_unpacking_is_never_a_way_to_start():
    kb = load_kb("1.16.5")
    goals = solve(kb, {"diamond": 1})
    assert not any("diamond_block" in g.obj or "diamond_block" in g.materials for g in goals)


# ---------------------------------------------------------------- mixed materials
@pytest.mark.parametrize("version", ("1.16.5", "1.19.2"))
def test_a_stone_hoe_from_cobblestone_and_blackstone_mixed(version):
    kb = load_kb(version)
    (hoe,) = kb.recipes("stone_hoe")
    assert {"cobblestone", "blackstone"} <= set(hoe.fillers("cobblestone"))
    held = {"cobblestone": 1, "blackstone": 1, "stick": 2, "crafting_table": 1}
    w = TextWorld(kb)
    w.reset(seed=0, options={"inventory": held})
    _, _, _, _, info = w.step({"action": "craft", "item": "stone_hoe"})
    assert info["ok"], info["error"]
    assert w.inventory == {"stone_hoe": 1, "crafting_table": 1}
    goals = _plan_runs(kb, {"stone_hoe": 1}, held)
    assert [g.action for g in goals] == ["craft"]  # nothing mined: the two stones make it


@pytest.mark.parametrize("version", ("1.16.5", "1.19.2"))
def test_a_smoker_from_mixed_stripped_logs_and_a_furnace(version):
    kb = load_kb(version)
    held = {"stripped_oak_log": 2, "stripped_birch_log": 1, "oak_wood": 1, "furnace": 1, "crafting_table": 1}
    goals = _plan_runs(kb, {"smoker": 1}, held)
    assert [g.action for g in goals] == ["craft"]


@pytest.mark.parametrize("version", ("1.16.5", "1.19.2"))
def test_red_sandstone_slabs_from_plain_and_chiseled_mixed(version):
    kb = load_kb(version)
    held = {"red_sandstone": 2, "chiseled_red_sandstone": 1, "crafting_table": 1}
    goals = _plan_runs(kb, {"red_sandstone_slab": 6}, held)
    assert [g.action for g in goals] == ["craft"]


def test_mixed_planks_make_one_chest_in_every_version():
    kb = load_kb("1.19.2")
    goals = _plan_runs(kb, {"chest": 1}, {"oak_planks": 3, "birch_planks": 5, "crafting_table": 1})
    assert [g.action for g in goals] == ["craft"]


def test_a_recipe_missing_both_alternatives_names_the_first_and_what_fills_it():
    kb = load_kb("1.16.5")
    w = TextWorld(kb)
    w.reset(seed=0, options={"inventory": {"blackstone": 1, "stick": 2, "crafting_table": 1}})
    _, _, _, _, info = w.step({"action": "craft", "item": "stone_hoe"})
    assert not info["ok"] and "needs 2 cobblestone, has 1" in info["error"]


# ---------------------------------------------------------------- 1.11.2 data gaps
PATCHED_1_11 = [  # 1.11.2 name, its 1.16.5 name: the same recipe in the data-pack data set
    ("redstone_torch", "redstone_torch"),
    ("observer", "observer"),
    ("nether_brick", "nether_bricks"),
    ("beetroot_soup", "beetroot_soup"),
    ("sea_lantern", "sea_lantern"),
    ("magma", "magma_block"),
    ("sandstone_stairs", "sandstone_stairs"),
    ("red_sandstone_stairs", "red_sandstone_stairs"),
    ("lapis_block", "lapis_block"),
    ("bone_block", "bone_block"),
    ("daylight_detector", "daylight_detector"),
    ("stone_slab2", "red_sandstone_slab"),
    ("cookie", "cookie"),
    ("writable_book", "writable_book"),
]
LEGACY_TO_MODERN = {
    "netherbrick": "nether_brick",
    "quartz": "quartz",
    "prismarine_shard": "prismarine_shard",
    "lapis_lazuli": "lapis_lazuli",
    "bone_meal": "bone_meal",
    "wooden_slab": "wooden_slab",
    "cocoa_beans": "cocoa_beans",
    "ink_sac": "ink_sac",
    "magma_cream": "magma_cream",
}


@pytest.mark.parametrize("old, new", PATCHED_1_11)
def test_the_1_11_recipes_patched_in_agree_with_the_data_pack_recipes(old, new):
    kb11, kb16 = load_kb("1.11.2"), load_kb("1.16.5")
    mine = {
        (r.count, tuple(sorted((LEGACY_TO_MODERN.get(k, k), n) for k, n in r.ingredients.items())))
        for r in kb11.recipes(old)
    }
    theirs = {(r.count, tuple(sorted(r.ingredients.items()))) for c in kb16.recipes(new) for r in c.choices()}
    assert mine and mine <= theirs, (mine, theirs)


@pytest.mark.parametrize(
    "item",
    [
        "redstone_torch",
        "repeater",
        "comparator",
        "activator_rail",
        "observer",
        "nether_brick",
        "sandstone_stairs",
        "red_sandstone_stairs",
        "lapis_block",
        "bone_block",
        "stained_glass_pane",
        "daylight_detector",
        "stone_slab2",
        "cookie",
        "writable_book",
    ],
)
def test_the_1_11_gaps_are_planned_and_run(item):
    kb = load_kb("1.11.2")
    _plan_runs(kb, {item: 1}, {})


def test_redstone_parts_take_the_lit_torch_item():
    kb = load_kb("1.11.2")
    for item in ("repeater", "comparator", "activator_rail"):
        (r,) = kb.recipes(item)
        assert "redstone_torch" in r.ingredients and "unlit_redstone_torch" not in r.ingredients


@pytest.mark.parametrize("version", VERSIONS)
def test_iron_and_gold_gear_smelts_into_nuggets(version):
    kb = load_kb(version)
    iron = {s.input for s in kb.smelting("iron_nugget")}
    gold = {s.input for s in kb.smelting("gold_nugget")}
    assert {"iron_pickaxe", "iron_chestplate", "chainmail_helmet", "iron_horse_armor"} <= iron
    assert {"golden_sword", "golden_boots", "golden_horse_armor"} <= gold
    w = TextWorld(kb)
    w.reset(seed=0, options={"inventory": {"furnace": 1, "iron_sword": 1, "coal": 1}})
    _, _, _, _, info = w.step({"action": "smelt", "item": "iron_nugget"})
    assert info["ok"] and w.inventory.get("iron_nugget") == 1 and "iron_sword" not in w.inventory


def test_the_1_11_nugget_recipes_are_the_data_pack_ones():
    legacy = {s.input for s in load_kb("1.11.2").smelting("iron_nugget")}
    modern = {s.input for s in load_kb("1.16.5").smelting("iron_nugget")}
    assert legacy == modern


def test_charcoal_from_acacia_and_dark_oak_logs_at_1_11():
    kb = load_kb("1.11.2")
    w = TextWorld(kb)
    w.reset(seed=0, options={"inventory": {"furnace": 1, "log2": 2}})
    _, _, _, _, info = w.step({"action": "smelt", "item": "coal"})
    assert info["ok"] and w.inventory == {"furnace": 1, "coal": 1}


# ---------------------------------------------------------------- one dye colour, exactly
@pytest.mark.parametrize(
    "item, dye",
    [
        ("cookie", "cocoa_beans"),
        ("lapis_block", "lapis_lazuli"),
        ("writable_book", "ink_sac"),
        ("bone_block", "bone_meal"),
    ],
)
def test_1_11_recipes_that_need_one_dye_colour_ask_for_it(item, dye):
    kb = load_kb("1.11.2")
    assert [dye in r.ingredients for r in kb.recipes(item)] == [True]
    goals = _plan_runs(kb, {item: 1}, {})
    used = {m for g in goals for m in g.materials}
    assert dye in used and not (used & (set(kb.variants("dye")) - {dye}))


def test_another_colour_does_not_make_a_writable_book():
    kb = load_kb("1.11.2")
    w = TextWorld(kb)
    w.reset(seed=0, options={"inventory": {"book": 1, "feather": 1, "cocoa_beans": 1}})
    _, _, _, _, info = w.step({"action": "craft", "item": "writable_book"})
    assert not info["ok"] and "ink_sac" in info["error"]


def test_the_dye_colours_come_from_their_own_sources_and_count_as_dye():
    kb = load_kb("1.11.2")
    assert kb.mob_drops("squid") == {"ink_sac": 1}
    assert kb.block_drops("lapis_ore") == {"lapis_lazuli": 4}
    assert kb.block_drops("cocoa") == {"cocoa_beans": 3}
    assert [s.output for s in kb.smelting("cactus_green")] == ["cactus_green"]
    assert kb.count({"ink_sac": 1, "bone_meal": 2}, "dye") == 3
    # dyeing wool takes any colour: the colour of wool is not told apart at 1.11
    assert any("dye" in r.ingredients for r in kb.recipes("stained_glass"))


def test_the_grid_encoding_of_1_11_is_unchanged_by_the_named_colours():
    from worlds.gridworld.spec import make_vocab

    kb = load_kb("1.11.2")
    v = make_vocab(kb)
    assert "lapis_lazuli" not in v.items and v.item_id["lapis_lazuli"] == v.item_id["dye"]
    assert len(v.items) == len(kb.item_names()) - len(kb.variant_items())


@pytest.mark.parametrize("version", ("1.16.5", "1.19.2"))
def test_a_furnace_does_not_burn_the_charcoal_it_makes(version):
    kb = load_kb(version)
    _plan_runs(kb, {"charcoal": 3}, {})
    w = TextWorld(kb)
    w.reset(seed=0, options={"inventory": {"furnace": 1, "oak_log": 2, "charcoal": 1, "oak_planks": 1}})
    _, _, _, _, info = w.step({"action": "smelt", "item": "charcoal"})
    assert info["ok"] and w.inventory.get("charcoal") == 2  # a log burnt, not the charcoal held
    w.reset(seed=0, options={"inventory": {"furnace": 1, "oak_log": 1, "charcoal": 1}})
    _, _, _, _, info = w.step({"action": "smelt", "item": "charcoal"})
    assert info["ok"] and w.inventory == {"furnace": 1, "charcoal": 1}  # no other fuel: the charcoal burns


@pytest.mark.parametrize("version", ("1.16.5", "1.19.2"))
def test_a_campfire_mixes_in_two_slots_logs_and_woods_coal_or_charcoal(version):
    kb = load_kb(version)
    (campfire,) = kb.recipes("campfire")
    assert {"coal", "charcoal"} <= set(campfire.fillers("coal"))
    assert {"oak_log", "stripped_birch_wood"} <= set(campfire.fillers("log")) | set(kb.variants("log"))
    held = {"oak_log": 1, "birch_wood": 1, "stripped_spruce_log": 1, "charcoal": 1, "stick": 3, "crafting_table": 1}
    goals = _plan_runs(kb, {"campfire": 1}, held)
    assert [g.action for g in goals] == ["craft"]


def test_every_recipe_patch_and_nugget_smelt_names_its_source():
    import yaml

    from worlds.knowledge import DATA

    patches = yaml.safe_load((DATA / "recipe_patches.yaml").read_text())
    entries = [r for v in patches.values() for key in ("add_recipes", "replace_recipes") for r in v.get(key, [])]
    assert entries and all(r.get("source") for r in entries)
    smelt = yaml.safe_load((DATA / "smelting.yaml").read_text())["legacy"]
    nuggets = [e for e in smelt if e["output"].endswith("_nugget")]
    assert len(nuggets) == 24 and all(e.get("source") for e in nuggets)


def test_the_rocket_patched_in_at_1_11_and_1_16_is_the_one_minecraft_data_has_at_1_19():
    (theirs,) = load_kb("1.19.2").recipes("firework_rocket")
    for version, name in (("1.11.2", "fireworks"), ("1.16.5", "firework_rocket")):
        (mine,) = load_kb(version).recipes(name)
        assert (mine.count, mine.ingredients) == (theirs.count, theirs.ingredients)


def test_the_suspicious_stew_takes_any_small_flower_and_a_dye_only_its_own():
    for version in ("1.16.5", "1.19.2"):
        kb = load_kb(version)
        (stew,) = kb.recipes("suspicious_stew")  # a special recipe: no minecraft-data lists it
        assert stew.ingredients == {"red_mushroom": 1, "brown_mushroom": 1, "bowl": 1, "small_flowers": 1}
        assert not stew.needs_table and kb.matches("small_flowers", "cornflower")
        # three of the small flowers make light grey dye: they stay those three, not the whole group
        (dye,) = [r for r in kb.recipes("light_gray_dye") if r.count == 1]
        assert set(dye.fillers(next(iter(dye.ingredients)))) == {"azure_bluet", "oxeye_daisy", "white_tulip"}
