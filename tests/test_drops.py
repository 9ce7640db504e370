"""Chance and tool-dependent drops (issue 22, item 5): modelled with the expected number of
tries in the knowledge base, the solver and the text world, never filtered out."""

from __future__ import annotations

import pytest

from tests.test_solver import replay
from worlds.knowledge import VERSIONS, load_kb
from worlds.solver import solve, steps_estimate
from worlds.textworld import TextWorld


def _world(kb, inventory, stochastic=False, seed=0):
    w = TextWorld(kb, stochastic=stochastic)
    w.reset(seed=seed, options={"inventory": inventory, "max_steps": 10**7})
    return w


@pytest.mark.parametrize("version", VERSIONS)
def test_gravel_gives_flint_one_break_in_ten(version):
    kb = load_kb(version)
    (src,) = kb.mine_sources("flint")
    assert (src.block, src.chance, src.tries) == ("gravel", 0.1, 10)
    w = _world(kb, {})
    for _ in range(10):
        _, _, _, _, info = w.step({"action": "mine", "item": "flint"})
        assert info["ok"]
    assert w.inventory == {"gravel": 10, "flint": 1}


@pytest.mark.parametrize("version", VERSIONS)
def test_flint_and_steel_is_planned_with_the_expected_gravel(version):
    kb = load_kb(version)
    goals = solve(kb, {"flint_and_steel": 1})
    (flint,) = [g for g in goals if "flint" in g.obj]
    assert flint.action == "mine" and flint.obj == {"flint": 1} and "1 in 10" in flint.text
    ok, err, w = replay(kb, goals, target={"flint_and_steel": 1}, max_steps=10**6)
    assert ok, err
    assert w.inventory.get("gravel") == 10  # ten breaks for one flint
    assert steps_estimate(kb, goals) == w.steps


def test_a_stochastic_world_draws_each_chance_drop_with_its_seed():
    kb = load_kb("1.16.5")
    counts = []
    for seed in (1, 2):
        w = _world(kb, {}, stochastic=True, seed=seed)
        for _ in range(200):
            w.step({"action": "mine", "item": "gravel"})
        counts.append(w.inventory.get("flint", 0))
        w2 = _world(kb, {}, stochastic=True, seed=seed)
        for _ in range(200):
            w2.step({"action": "mine", "item": "gravel"})
        assert w2.inventory == w.inventory  # seeded: the same draws again
    assert all(5 <= c <= 40 for c in counts)  # about 1 in 10 of the breaks that succeed


@pytest.mark.parametrize("version", VERSIONS)
def test_zombies_rarely_drop_carrots_and_potatoes(version):
    kb = load_kb(version)
    assert dict(kb.mob_chance_sources("carrot"))["zombie"] == pytest.approx(1 / 120, rel=1e-3)
    assert "carrot" not in kb.mob_drops("zombie")  # not a drop of every kill
    w = _world(kb, {})
    kills = 0
    while "potato" not in w.inventory:
        _, _, _, _, info = w.step({"action": "kill", "item": "zombie"})
        assert info["ok"]
        kills += 1
    assert kills == 120 and w.inventory["rotten_flesh"] == 120


def test_a_carrot_from_zombies_when_no_crop_may_be_mined():
    kb = load_kb("1.19.2")
    goals = solve(kb, {"carrot": 1}, allowed_skills={"kill", "craft"})
    assert [(g.action, g.obj) for g in goals] == [("kill", {"carrot": 1})]
    ok, err, w = replay(kb, goals, target={"carrot": 1}, max_steps=10**7)
    assert ok, err
    assert w.inventory.get("rotten_flesh") == 120


@pytest.mark.parametrize("version", VERSIONS)
def test_crops_give_their_produce(version):
    kb = load_kb(version)
    for crop, item in (("carrots", "carrot"), ("potatoes", "potato"), ("beetroots", "beetroot")):
        assert kb.block_drops(crop).get(item) == 1, (crop, kb.block_drops(crop))


# ---------------------------------------------------------------- shears
@pytest.mark.parametrize(
    "version, leaves, block",
    [
        ("1.11.2", "leaves", "leaves"),
        ("1.16.5", "oak_leaves", "oak_leaves"),
        ("1.19.2", "birch_leaves", "birch_leaves"),
    ],
)
def test_leaves_are_taken_whole_with_shears_only(version, leaves, block):
    kb = load_kb(version)
    (src,) = [s for s in kb.mine_sources(leaves) if s.block == block]
    assert src.with_tool and src.tools == ("shears",)
    w = _world(kb, {})
    _, _, _, _, info = w.step({"action": "mine", "item": leaves})
    assert not info["ok"] and "shears" in info["error"]
    w = _world(kb, {"shears": 1})
    _, _, _, _, info = w.step({"action": "mine", "item": leaves})
    assert info["ok"] and info["gained"] == {leaves: 1}  # the leaves, no sapling or apple
    goals = solve(kb, {leaves: 2})
    assert ("craft", "shears") in [(g.action, next(iter(g.obj))) for g in goals]
    ok, err, w = replay(kb, goals, target={leaves: 2})
    assert ok, err


@pytest.mark.parametrize("version", ("1.16.5", "1.19.2"))
def test_a_cobweb_to_shears_string_to_a_sword(version):
    kb = load_kb(version)
    assert [s.min_tool for s in kb.mine_sources("cobweb")] == ["shears"]
    w = _world(kb, {"iron_sword": 1})
    _, _, _, _, info = w.step({"action": "mine", "item": "string"})
    assert info["ok"] and info["gained"] == {"string": 1}
    goals = solve(kb, {"cobweb": 1})
    ok, err, w = replay(kb, goals, target={"cobweb": 1})
    assert ok, err


@pytest.mark.parametrize("version", ("1.16.5", "1.19.2"))
def test_grass_and_ferns_to_shears_seeds_by_chance_by_hand(version):
    kb = load_kb(version)
    assert kb.chance_drops("grass") == {"wheat_seeds": 0.125}
    assert [s.min_tool for s in kb.mine_sources("fern") if s.block == "fern"] == ["shears"]
    goals = solve(kb, {"fern": 1})
    ok, err, w = replay(kb, goals, target={"fern": 1})
    assert ok, err


def test_the_1_11_grass_block_is_not_taken_by_shears():
    kb = load_kb("1.11.2")
    assert not [s for s in kb.mine_sources("grass") if s.with_tool]
    assert kb.block_drops("grass") == {"dirt": 1}


@pytest.mark.parametrize("version", VERSIONS)
def test_vines_only_to_shears(version):
    kb = load_kb(version)
    assert [(s.min_tool, s.with_tool) for s in kb.mine_sources("vine")] == [("shears", True)]
    assert kb.block_drops("vine") == {}


def test_the_grid_worlds_apples_fall_from_oak_leaves_only():
    """1.11.2's `leaves` block holds oak, birch and spruce (and `leaves2` acacia): the grid world's
    own leaf cells give apples only where the game does (Minecraft Wiki, "Leaves": oak and dark oak),
    saplings from every species."""
    from worlds.gridworld.batch import BatchGridWorld

    env = BatchGridWorld(1, load_kb("1.11.2"))
    v, r = env.vocab, env.rules
    apple, sapling = v.item_id["apple"], v.item_id["sapling"]
    for name in ("oak_leaves", "birch_leaves", "spruce_leaves", "acacia_leaves"):
        got = dict(r.chance[v.cell_id[name]])
        assert sapling in got and (apple in got) == (name == "oak_leaves"), (name, got)
