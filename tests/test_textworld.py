"""MC-TextWorld: rules, failure messages, seeded stochastic outcomes."""

from __future__ import annotations

import pytest

from worlds.knowledge import load_kb
from worlds.textworld import TextWorld


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def make(kb, inventory=None, **kw):
    opts = kw.pop("options", {})
    w = TextWorld(kb, **kw)
    w.reset(seed=kw.get("seed", 0), options={"inventory": inventory or {}, **opts})
    return w


def act(w, action, item, **extra):
    return w.step({"action": action, "item": item, **extra})


def test_reset_and_obs_shape(kb):
    w = TextWorld(kb)
    obs, info = w.reset(seed=3, options={"inventory": {"planks": 2}, "biome": "forest", "max_steps": 100})
    assert obs == {"inventory": {"planks": 2}, "equipment": {}, "biome": "forest", "steps": 0}
    assert info["ok"] and info["error"] is None and info["cost"] == 0 and info["gained"] == {}
    assert w.max_steps == 100 and w.steps == 0
    with pytest.raises(ValueError, match="unknown item 'foo'"):
        w.reset(options={"inventory": {"foo": 1}})


def test_craft_failure_is_precise_and_changes_nothing(kb):
    w = make(kb, {"planks": 2})
    _, r, term, trunc, info = act(w, "craft", "wooden_pickaxe")
    assert not info["ok"] and r == 0.0
    assert "needs 3 planks, has 2" in info["error"]
    assert "needs 2 stick, has 0" in info["error"]
    assert "needs a crafting_table" in info["error"]
    assert info["missing"] == {"planks": 1, "stick": 2, "crafting_table": 1}
    assert w.inventory == {"planks": 2} and w.steps == 0 and info["cost"] == 0


def test_materials_consumed_tools_kept(kb):
    w = make(kb, {"planks": 5, "crafting_table": 1})
    _, _, _, _, info = act(w, "craft", "stick")
    assert info["ok"] and info["gained"] == {"stick": 4}
    assert w.inventory == {"planks": 3, "stick": 4, "crafting_table": 1}
    _, _, _, _, info = act(w, "craft", "wooden_pickaxe")
    assert info["ok"] and info["gained"] == {"wooden_pickaxe": 1}
    assert w.inventory == {"stick": 2, "crafting_table": 1, "wooden_pickaxe": 1}
    _, _, _, _, info = act(w, "mine", "cobblestone")
    assert info["ok"] and info["gained"] == {"cobblestone": 1}
    assert w.has("wooden_pickaxe") and w.has("crafting_table")


def test_mining_needs_the_right_tier(kb):
    w = make(kb, {"wooden_pickaxe": 1})
    _, _, _, _, info = act(w, "mine", "iron_ore")
    assert not info["ok"]
    assert info["error"] == "needs a stone_pickaxe or better to mine iron_ore"
    assert info["missing"] == {"tool": "stone_pickaxe"}
    assert info["cost"] > 0 and w.inventory == {"wooden_pickaxe": 1}  # the swing costs time, drops nothing
    _, _, _, _, info = act(w, "mine", "diamond")
    assert info["error"] == "needs an iron_pickaxe or better to mine diamond_ore"
    w = make(kb, {"iron_pickaxe": 1})
    _, _, _, _, info = act(w, "mine", "iron_ore")
    assert info["ok"] and w.inventory["iron_ore"] == 1  # 1.11: the ore itself, smelt it
    _, _, _, _, info = act(w, "mine", "stone")  # break the block, get what it drops
    assert info["ok"] and info["gained"] == {"cobblestone": 1}


def test_unknown_and_uncraftable(kb):
    w = make(kb)
    assert act(w, "craft", "foo")[4]["error"] == "unknown item 'foo'"
    err = act(w, "craft", "diamond")[4]["error"]
    assert "cannot be crafted" in err and "mining diamond_ore" in err
    err = act(w, "craft", "log")[4]["error"]
    assert err.startswith("log cannot be crafted; obtain it by mining log")
    err = act(w, "mine", "planks")[4]["error"]
    assert err.startswith("planks cannot be mined")
    assert act(w, "fly", "log")[4]["error"].startswith("unknown action 'fly'")


def test_smelting_needs_furnace_and_fuel_and_burns_fractionally(kb):
    w = make(kb, {"iron_ore": 9})
    info = act(w, "smelt", "iron_ingot")[4]
    assert "needs a furnace" in info["error"] and info["missing"]["furnace"] == 1
    w = make(kb, {"iron_ore": 9, "furnace": 1})
    info = act(w, "smelt", "iron_ingot")[4]
    assert "needs fuel (coal, planks, log...)" in info["error"] and info["missing"] == {"fuel": 1}
    w = make(kb, {"iron_ore": 9, "furnace": 1, "coal": 1})
    for i in range(8):  # one coal smelts 8 items
        info = act(w, "smelt", "iron_ingot")[4]
        assert info["ok"], (i, info)
    assert w.inventory == {"iron_ore": 1, "furnace": 1, "iron_ingot": 8}
    info = act(w, "smelt", "iron_ingot")[4]
    assert not info["ok"] and "needs fuel" in info["error"]
    # planks burn 1.5 items each: 2 planks for 3 smelts
    w = make(kb, {"cobblestone": 3, "furnace": 1, "planks": 2})
    for _ in range(3):
        assert act(w, "smelt", "stone")[4]["ok"]
    assert w.inventory == {"stone": 3, "furnace": 1}
    # a named fuel is the one burnt
    w = make(kb, {"beef": 1, "furnace": 1, "planks": 1, "coal": 1})
    assert act(w, "smelt", "cooked_beef", fuel="planks")[4]["ok"]
    assert w.inventory == {"cooked_beef": 1, "furnace": 1, "coal": 1}


def test_kill_by_mob_or_by_item(kb):
    w = make(kb)
    info = act(w, "kill", "cow")[4]
    assert info["ok"] and info["gained"] == {"leather": 1, "beef": 1}
    info = act(w, "kill", "wool")[4]
    assert info["ok"] and info["gained"]["wool"] == 1  # a sheep
    info = act(w, "kill", "porkchop")[4]
    assert info["ok"] and "porkchop" in info["gained"]
    assert not act(w, "kill", "diamond")[4]["ok"]


def test_equip_counts_as_held_and_reaches_target(kb):
    w = TextWorld(kb)
    w.reset(options={"inventory": {"iron_helmet": 1}, "target": {"iron_helmet": 1}})
    assert w.target_reached()
    w.reset(options={"inventory": {"iron_helmet": 1}, "target": {"iron_helmet": 1, "stick": 1}})
    _, r, term, _, info = act(w, "equip", "iron_helmet")
    assert info["ok"] and w.equipment == {"head": "iron_helmet"} and "iron_helmet" not in w.inventory
    assert w.has("iron_helmet") and not term and r == 0.0
    assert act(w, "equip", "iron_helmet")[4]["error"] == "cannot equip iron_helmet: needs 1 iron_helmet, has 0"


def test_reward_terminated_truncated(kb):
    w = TextWorld(kb)
    w.reset(options={"inventory": {"log": 1}, "target": {"planks": 4}, "max_steps": 1000})
    _, r, term, trunc, info = act(w, "craft", "planks")
    assert info["ok"] and r == 1.0 and term and not trunc
    w.reset(options={"target": {"diamond": 1}, "max_steps": 150})
    _, _, term, trunc, info = act(w, "mine", "log")
    assert info["ok"] and not trunc and w.steps == info["cost"]
    _, _, term, trunc, info = act(w, "mine", "log")
    assert trunc and not term and w.steps >= 150
    info = act(w, "mine", "log")[4]
    assert not info["ok"] and "episode is over" in info["error"]


def test_allowed_skills(kb):
    w = make(kb, {"log": 1}, allowed_skills={"craft", "smelt"})
    info = act(w, "mine", "log")[4]
    assert info["error"] == "skill 'mine' is not allowed here (allowed: craft, smelt)"
    assert info["cost"] == 0 and w.steps == 0
    assert act(w, "craft", "planks")[4]["ok"]
    with pytest.raises(ValueError, match="unknown skill"):
        TextWorld(kb, allowed_skills={"teleport"})


def test_biome_picks_the_log_variant():
    kb19 = load_kb("1.19.2")
    w = TextWorld(kb19)
    w.reset(options={"biome": "birch_forest"})
    assert act(w, "mine", "log")[4]["gained"] == {"birch_log": 1}
    assert act(w, "craft", "planks")[4]["gained"] == {"birch_planks": 4}
    assert w.has("planks", 4) and not w.has("oak_planks")
    assert "needs 1 oak_log, has 0" in act(w, "craft", "oak_planks")[4]["error"]
    assert act(w, "mine", "oak_log")[4]["gained"] == {"oak_log": 1}  # asked by name
    w.reset(options={})
    assert act(w, "mine", "log")[4]["gained"] == {"oak_log": 1}  # plains: oak
    kb11 = load_kb("1.11.2")
    w = TextWorld(kb11)
    w.reset(options={"biome": "savanna"})
    assert act(w, "mine", "log")[4]["gained"] == {"log2": 1}
    assert act(w, "craft", "planks")[4]["ok"]  # log2 makes planks too


def test_costs_mining_a_log_costs_more_than_crafting(kb):
    w = make(kb)
    mine = act(w, "mine", "log")[4]["cost"]
    craft = act(w, "craft", "planks")[4]["cost"]
    assert mine > craft > 0 and w.steps == mine + craft


def _outcomes(kb, seed, n=60):
    w = TextWorld(kb, stochastic=True)
    w.reset(seed=seed, options={"max_steps": 10**9})
    return [act(w, "mine", "log")[4]["ok"] for _ in range(n)]


def test_stochastic_is_seeded(kb):
    a, b, c = _outcomes(kb, 7), _outcomes(kb, 7), _outcomes(kb, 8)
    assert a == b and a != c
    rate = sum(_outcomes(kb, 1, 2000)) / 2000
    assert abs(rate - 0.39) < 0.04  # Table 18: mine 1 oak wood, 0.39
    w = TextWorld(kb, stochastic=True)
    w.reset(seed=1, options={"max_steps": 10**9})
    fails = [i for i in (act(w, "mine", "log")[4] for _ in range(20)) if not i["ok"]]
    assert fails and all(f["chance"] and f["cost"] > 0 and "success rate 0.39" in f["error"] for f in fails)
    assert w.inventory.get("log", 0) == 20 - len(fails)


def test_the_mob_hunted_for_an_item_is_chosen_by_one_rule_both_worlds_share(kb):
    """worlds/options.py: mob_for, used by the text and the Mineflayer world: of the mobs that
    always drop the item the one with the fewest steps per item, for a rare drop the best chance
    per kill's steps, none for an item no mob drops (the world then says how to obtain it)."""
    from worlds.costs import default_costs
    from worlds.options import mob_for

    costs = default_costs()
    assert mob_for(kb, costs, "leather") == "cow" and mob_for(kb, costs, "bone") == "skeleton"
    assert not kb.mob_sources("rabbit_foot") and mob_for(kb, costs, "rabbit_foot") == "rabbit"
    assert mob_for(kb, costs, "diamond") is None
    w = make(kb)
    info = act(w, "kill", "diamond")[-1]
    assert not info["ok"] and "no mob here drops diamond" in info["error"]
