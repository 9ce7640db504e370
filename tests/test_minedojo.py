"""`--world minedojo`: MineDojo's ids and masks (worlds/data/minedojo.json), the skills as its
MultiDiscrete actions, the stand-in behind its spaces, the adapter playing plans, and, where
MineDojo's own environment exists (make minedojo-env), every skill of the oracle planner's
deps71 plans checked against the objects the minedojo package builds."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from skills.controller import ScriptedController
from tests.minedojo_sweep import sweep
from worlds.knowledge import load_kb
from worlds.minedojo import MineDojoOptions, ids, make_world
from worlds.minedojo import actions as act
from worlds.minedojo.standin import StandinSim
from worlds.minedojo.world import MineDojoWorld
from worlds.solver import solve
from worlds.types import Goal, Task

ROOT = Path(__file__).resolve().parent.parent
MINEDOJO_PY = ROOT / ".venv-minedojo" / "bin" / "python"
KB = load_kb("1.11.2")


def _world(observer=None) -> MineDojoWorld:
    return MineDojoWorld(StandinSim(KB), KB, observer=observer)


def _checked_world() -> tuple[MineDojoWorld, list]:
    """A world whose every MineDojo action is checked against the range and the masks as sent."""
    sent: list = []

    def check(obs: dict, a: np.ndarray) -> None:
        sent.append((a.copy(), ids.action_valid(a), ids.mask_refusal(a, obs["masks"])))

    return _world(check), sent


# ------------------------------------------------------------------ ids (from the minedojo package)


def test_ids_are_minedojo_own():
    d = ids.data()
    assert "minedojo" in d["source"] and "mc_constants.json" in d["source"]
    assert d["action_nvec"] == [3, 3, 4, 25, 25, 8, 244, 36]
    assert d["action_noop"] == [0, 0, 0, 12, 12, 0, 0, 0]
    # the ids the probe read from minedojo.make("harvest_milk")
    assert {n: ids.craft_index()[n] for n in ("planks", "stick", "crafting_table", "wooden_pickaxe", "iron_ingot")} == {
        "planks": 29,
        "stick": 41,
        "crafting_table": 7,
        "wooden_pickaxe": 219,
        "iron_ingot": 239,
    }
    assert ids.craft_kind("stick") == "hand" and ids.craft_kind("wooden_pickaxe") == "table"
    assert ids.craft_kind("iron_ingot") == "smelt"


def test_every_item_of_the_knowledge_base_has_a_minedojo_id():
    for n in KB.item_names():
        md, variant = ids.to_minedojo(n)
        back = ids.from_minedojo(md, variant)
        # every item has an id there and reads back as itself; a variant 0 (ink_sac is dye:0) as its bare id
        assert back == n or (variant == 0 and back == md and ids.from_minedojo(md) == md), (n, md, variant, back)
    assert ids.to_minedojo("bone_meal") == ("dye", 15) and ids.from_minedojo("dye", 15) == "bone_meal"
    assert ids.from_minedojo("crafting table") == "crafting_table"
    with pytest.raises(ids.MineDojoError, match="MineDojo has no item"):
        ids.to_minedojo("unobtainium")


# ------------------------------------------------------------------ skills as actions


def test_functional_skills_map_to_minedojo_actions_exactly():
    a = act.craft("wooden_pickaxe")
    assert a.tolist() == [0, 0, 0, 12, 12, 4, 219, 0] and ids.action_valid(a)
    assert act.craft("iron_ingot").tolist()[5:7] == [4, 239]  # smelting is MineDojo's craft action too
    inv = {
        "name": np.array(["air", "planks", "crafting table", "dye"] + ["air"] * 32),
        "variant": np.array([0, 0, 0, 15] + [0] * 32),
    }
    assert act.place(inv, "crafting_table").tolist()[5:] == [6, 0, 2]
    assert act.equip(inv, "planks").tolist()[5:] == [5, 0, 1]
    assert act.destroy(inv, "bone_meal").tolist()[5:] == [7, 0, 3]
    with pytest.raises(ids.MineDojoError, match="no inventory slot holds furnace"):
        act.place(inv, "furnace")
    with pytest.raises(ids.MineDojoError, match="cannot craft or smelt"):
        act.craft("log")
    assert act.turn(30, -90).tolist()[3:5] == [14, 6] and act.camera_delta(act.turn(30, -90)) == (30, -90)
    assert not ids.action_valid(np.array([0, 0, 0, 12, 12, 4, 244, 0]))


def test_masks_follow_minedojo_rule():
    def inv(*items):
        names = [ids.obs_name(n) for n, _ in items] + ["air"] * (36 - len(items))
        return {"name": np.array(names), "quantity": np.array([q for _, q in items] + [0] * (36 - len(items)))}

    m = ids.masks(inv(("air", 0), ("planks", 3), ("stick", 2)), nearby_table=False, nearby_furnace=False)
    assert m["craft_smelt"][ids.craft_index()["stick"]]
    assert not m["craft_smelt"][ids.craft_index()["wooden_pickaxe"]], "a table recipe needs a table nearby"
    assert ids.mask_refusal(act.craft("wooden_pickaxe"), m) == "MineDojo's mask forbids crafting wooden_pickaxe now"
    m = ids.masks(inv(("air", 0), ("planks", 3), ("stick", 2)), nearby_table=True, nearby_furnace=False)
    assert ids.mask_refusal(act.craft("wooden_pickaxe"), m) is None
    # the main-hand slot may be equipped only with what is worn elsewhere; placing needs a block
    m = ids.masks(inv(("planks", 3), ("iron_helmet", 1)), nearby_table=False, nearby_furnace=False)
    assert not m["equip"][0] and m["equip"][1] and m["place"][0] and not m["place"][1]
    assert not m["action_type"][ids.CRAFT] or m["craft_smelt"].any()


# ------------------------------------------------------------------ the stand-in behind MineDojo's spaces


def _leaves(obs: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in obs.items():
        if isinstance(v, dict):
            out.update(_leaves(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = np.asarray(v)
    return out


def test_standin_observation_has_minedojo_layout():
    sim = StandinSim(KB)
    obs = sim.reset(seed=3, options={"inventory": {"planks": 70, "stick": 1}})
    leaves, layout = _leaves(obs), ids.data()["observation_space"]
    assert set(leaves) == set(layout)
    for key, spec in layout.items():
        assert list(leaves[key].shape) == spec["shape"], key
        if spec["type"] == "Text":
            assert leaves[key].dtype.kind == "U", key
        else:
            assert np.can_cast(leaves[key].dtype, np.dtype(spec["dtype"])), (key, leaves[key].dtype)
    names = list(obs["inventory"]["name"])
    assert names[1:4] == ["planks", "planks", "stick"] and obs["inventory"]["quantity"][1:4].tolist() == [64, 6, 1]


def test_standin_is_seeded():
    a, b = StandinSim(KB), StandinSim(KB)
    first, again = _leaves(a.reset(seed=11, options={})), _leaves(b.reset(seed=11, options={}))
    assert all(np.array_equal(first[k], again[k]) for k in first)
    other = _leaves(StandinSim(KB).reset(seed=12, options={}))
    assert not all(np.array_equal(first[k], other[k]) for k in first)


def test_standin_refuses_actions_outside_minedojo_space():
    sim = StandinSim(KB)
    sim.reset(seed=0, options={})
    with pytest.raises(ids.MineDojoError, match="not in MultiDiscrete"):
        sim.step([0, 0, 0, 12, 12, 9, 0, 0])


# ------------------------------------------------------------------ the adapter


def test_adapter_plays_the_oracle_wooden_pickaxe_plan():
    world, sent = _checked_world()
    world.reset(seed=2, options={"target": {"wooden_pickaxe": 1}, "max_steps": 5000})
    for goal in solve(KB, {"wooden_pickaxe": 1}, {}):
        out = ScriptedController(KB).run(goal, world)
        assert out["ok"], f"{goal.code()}: {out['error']}"
    assert world.target_reached() and world.has("wooden_pickaxe")
    # the table was placed for the pickaxe (MineDojo's place action), then broken and held again
    assert world.has("crafting_table") and not bool(world.obs["nearby_tools"]["table"])
    assert sent and all(valid for _, valid, _ in sent)
    assert [why for _, _, why in sent if why] == []
    fns = {int(a[ids.FN]) for a, _, _ in sent}
    assert {ids.ATTACK, ids.CRAFT, ids.PLACE} <= fns


def test_a_cow_that_walks_on_is_followed_not_its_empty_cell_hit():
    """A mob is hit only where a ray sees it now: the navigator once kept hitting the cell a cow
    had left (its remembered place, face-adjacent), to the end of the budget."""
    layout = {"ground": 64, "mobs": [[10, 65, 8, "cow"]], "blocks": [], "agent": [8, 65, 8]}
    world = _world()
    world.reset(seed=0, options={"layout": layout, "time_of_day": 0.1, "max_steps": 400})
    env = world.env.grid.env
    send = world.nav.send

    def walk_on(a):  # the cow steps away as soon as the agent is beside it, once
        out = send(a)
        if not walk_on.done and abs(env.mob_pos[0, 0] - env.pos[0]).sum() == 1:
            env.mob_pos[0, 0] += (0, 0, 3)
            walk_on.done = True
        return out

    walk_on.done = False
    world.nav.send = walk_on
    env.mob_strolling[0] = False
    out = ScriptedController(KB).run(Goal("kill", {"cow": 1}), world)
    assert walk_on.done and out["ok"], out["error"]  # before the fix: the 400 steps ran out at the empty cell


def test_adapter_refusals_say_why_before_acting():
    world, sent = _checked_world()
    world.reset(seed=0, options={"inventory": {"planks": 3, "stick": 2}})
    _, _, _, _, info = world.step({"action": "craft", "item": "wooden_pickaxe"})
    assert not info["ok"] and "crafting_table" in info["error"] and info["cost"] == 0 and not sent
    _, _, _, _, info = world.step({"action": "craft", "item": "unobtainium"})
    assert info["error"] == "unknown item 'unobtainium'"
    _, _, _, _, info = world.step({"action": "fly", "item": "log"})
    assert info["error"].startswith("unknown action 'fly'")
    _, _, _, _, info = world.step({"action": "mine", "item": "iron_ore"})
    assert info["missing"] == {"tool": "stone_pickaxe"} and not sent


def test_minedojo_mask_refusal_is_the_cause():
    """MineDojo's mask tests only each item's first recipe: stone slabs from cobblestone are
    masked off (its first recipe takes sandstone), and the adapter says so instead of sending."""
    world, sent = _checked_world()
    world.reset(seed=0, options={"inventory": {"cobblestone": 3, "crafting_table": 1}})
    out = ScriptedController(KB).run(Goal("craft", {"stone_slab": 6}), world)
    assert not out["ok"] and "MineDojo's mask forbids crafting stone_slab" in out["error"]
    assert "sandstone" in out["error"]
    assert all(why is None for _, _, why in sent)


def test_factory_makes_a_reset_world_and_says_when_the_simulator_is_missing():
    settings = SimpleNamespace(inventory={}, skills=None, seed=4, option=lambda name: MineDojoOptions())
    task = Task(
        id="t", group="g", instruction="obtain a stick", target={"stick": 1}, max_steps=3000, inventory={"planks": 2}
    )
    world = make_world(settings, KB, task)
    assert world.inventory == {"planks": 2} and world.steps == 0 and world.max_steps > 0
    real = SimpleNamespace(inventory={}, skills=None, seed=4, option=lambda name: MineDojoOptions(backend="simulator"))
    try:
        import minedojo  # noqa: F401

        pytest.skip("minedojo is installed in this environment; its reset() would build Minecraft")
    except ImportError:
        pass
    with pytest.raises(ids.MineDojoError, match="needs the minedojo package"):
        make_world(real, KB, task)


def test_sweep_of_deps71_plans_in_the_main_environment():
    """The first goals of the deps71 plans through the adapter, every action checked by the
    project's copy of MineDojo's rules (the full sweep against minedojo itself is below)."""
    bad: list = []

    def check(obs: dict, a: np.ndarray) -> None:
        if not ids.action_valid(a) or ids.mask_refusal(a, obs["masks"]):
            bad.append(a.tolist())

    stats = sweep(check, limit=40, body_budget=300)
    assert stats["actions"] > 40 and bad == []
    assert stats["by_skill"]["craft"]["ok"] == stats["by_skill"]["craft"]["goals"] > 0


@pytest.mark.skipif(not MINEDOJO_PY.exists(), reason="MineDojo's environment is absent (make minedojo-env builds it)")
def test_every_deps71_skill_passes_minedojo_own_spaces_and_masks():
    """In .venv-minedojo: the minedojo package's action_space.contains, ARMasksWrapper's masks and
    observation_space.contains on every action and observation of the deps71 sweep."""
    run = subprocess.run(
        [str(MINEDOJO_PY), str(ROOT / "tests" / "minedojo_check.py")],
        capture_output=True,
        text=True,
        timeout=1800,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    res = json.loads(run.stdout.strip().splitlines()[-1])
    c = res["counts"]
    assert c["actions"] > 1000, c
    assert c["space_ok"] == c["mask_ok"] == c["masks_equal"] == c["obs_ok"] == c["actions"], res["bad"]
    assert c["controls"] == {
        "out_of_range_refused": True,
        "equip_empty_slot_refused": True,
        "wrong_shape_refused": True,
    }
    assert (
        res["by_skill"]["craft"]["goals"] >= 300 and res["by_skill"]["smelt"]["ok"] == res["by_skill"]["smelt"]["goals"]
    )
