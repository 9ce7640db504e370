"""Jungles and swamps in the grid world (issue 20, parity with the text world): their trees, cocoa
pods, melons, vines and lily pads where the game grows them, the scripted experts getting each,
the maps of every seed unchanged, and the shipped networks reading the new kinds as stand-ins."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from skills.grid_controller import GridScriptedController
from skills.learned.features import encode_obs, net_shape
from worlds.gridworld.generation import generate
from worlds.gridworld.spec import GridWorldError, _stand_ins, game_data
from worlds.gridworld.world import GridWorld
from worlds.types import Goal

SIDES = ((0, 0, -1), (0, 0, 1), (1, 0, 0), (-1, 0, 0))


def cells_of(m, vocab, name):
    return np.argwhere(m.cells == vocab.cell_id[name])  # x, z, y


def hangs(m, cid, x, z, y, leaves):
    """A vine hangs from the side of a leaf: up through the vine to its top, a leaf beside it (or
    the log of a tree grown through that leaf after it)."""
    while m.cells[x, z, y + 1] == cid["vine"]:
        y += 1
    X, Z, _ = m.cells.shape
    return any(
        m.cells[x + dx, z + dz, y] in (cid[leaves], cid[leaves.replace("leaves", "log")])
        for dx, _, dz in SIDES
        if 0 <= x + dx < X and 0 <= z + dz < Z
    )


def test_every_seeds_map_is_the_one_it_was_before_jungles_and_swamps(vocab):
    h = hashlib.sha1()
    tall = [c for c, r in zip(vocab.cells[2:], game_data()["cells"]) if r.get("upper")] + ["tall_plant_top"]
    for seed in range(7):  # the seven biomes of the seeds' cycle
        m = generate(seed, vocab, (48, 48))
        # the tall plants, grown since in cells that were air (tests/test_tall_flowers.py), taken out
        h.update(np.where(np.isin(m.cells, [vocab.cell_id[c] for c in tall]), 0, m.cells).tobytes())
        h.update(m.biome.tobytes())
        h.update(repr((m.mobs, m.spawn)).encode())
    # recorded on commit 9f652ec, before the jungle and the swamp were built: a seed's map, its
    # animals and spawn are what the recorded figures were measured on
    assert h.hexdigest() == "a316bb3d1e77ee5aceb0734f43f5fa773325f495"


@pytest.mark.parametrize("seed", [0, 1])
def test_a_jungle_grows_cocoa_on_its_trunks_vines_under_its_leaves_and_melons_on_grass(vocab, seed):
    m = generate(seed, vocab, (48, 48), "jungle")
    cid = vocab.cell_id
    assert len(cells_of(m, vocab, "jungle_log")) > 100 and len(cells_of(m, vocab, "melon_block")) > 0
    pods = cells_of(m, vocab, "cocoa")
    assert len(pods) > 0
    for x, z, y in pods:  # each on a jungle trunk's side
        assert any(m.cells[x + dx, z + dz, y] == cid["jungle_log"] for dx, _, dz in SIDES)
    vines = cells_of(m, vocab, "vine")
    assert len(vines) > 0
    for x, z, y in vines:
        assert hangs(m, cid, x, z, y, "jungle_leaves")
    for x, z, y in cells_of(m, vocab, "melon_block"):
        assert m.cells[x, z, y - 1] == cid["grass_block"]


@pytest.mark.parametrize("seed", [0, 2])
def test_a_swamp_is_flooded_at_sea_level_with_lily_pads_on_its_water(vocab, seed):
    m = generate(seed, vocab, (48, 48), "swampland")
    cid = vocab.cell_id
    swamp = m.biome == vocab.biome_id["swampland"]
    assert (m.cells[:, :, 62][swamp] == cid["water"]).sum() > 100  # its hollows under still water
    pads = cells_of(m, vocab, "lily_pad")
    assert len(pads) > 0
    for x, z, y in pads:
        assert m.cells[x, z, y - 1] == cid["water"] and m.cells[x, z, y + 1] == 0
    for x, z, y in cells_of(m, vocab, "vine"):  # a swamp oak's
        assert hangs(m, cid, x, z, y, "oak_leaves")


@pytest.mark.parametrize(
    "item, biome",
    [("melon", "jungle"), ("cocoa_beans", "jungle"), ("vine", "jungle"), ("waterlily", "swampland")],
)
def test_the_scripted_expert_gets_each_on_a_map_made_of_its_biome(kb, item, biome):
    w = GridWorld(kb)
    w.reset(seed=0, options={"target": {item: 1}})  # seed 0's is a plains map: a task's is where they grow
    assert w.biome == biome
    held = {"vine": {"shears": 1}}.get(item, {})  # only shears collect vines (the route makes them first)
    for k, n in held.items():
        w.env.inv[0, w.env.vocab.item_id[k]] = n
    out = GridScriptedController(kb).run(Goal("mine", {item: 1}), w)
    assert out["ok"], out["error"]
    assert w.has(item)


def test_a_map_asked_of_another_biome_grows_a_jungle_among_its_neighbours(kb):
    w = GridWorld(kb)
    w.reset(seed=0, options={"target": {"melon": 1}, "biome": "desert"})
    assert w.biome == "desert" and "jungle" in {w.env.vocab.biomes[b] for b in np.unique(w.env.biome_map[0])}
    assert w.goal_distance(Goal("mine", {"melon": 1})) > 0
    plain = GridWorld(kb)
    plain.reset(seed=0, options={"target": {"log": 1}})  # what the seeds' biomes grow: the seed's own map
    assert plain.biome == "plains"


def test_a_jungle_and_a_swamp_can_be_asked_for_and_unbuilt_biomes_still_say_why(kb):
    for biome in ("jungle", "swampland"):
        w = GridWorld(kb)
        w.reset(seed=0, options={"biome": biome})
        assert w.biome == biome
    with pytest.raises(GridWorldError, match="not built.*mushroom"):
        GridWorld(kb).reset(seed=0, options={"biome": "mushroom_island"})


def test_the_networks_read_the_new_kinds_as_their_stand_ins(kb, vocab):
    from skills.learned.policy import GoalPolicy

    assert vocab.grown and vocab.version != vocab.world_version
    assert vocab.cells[vocab.cell_as[vocab.cell_id["jungle_log"]]] == "oak_log"
    assert vocab.biomes[vocab.biome_as[vocab.biome_id["jungle"]]] == "forest"
    policy = GoalPolicy.load("controller", kb=kb, device="cpu")  # the shipped weights check vocab.version
    assert policy.net.shape.n_cells == net_shape(vocab).n_cells == vocab.n_policy_cells + vocab.n_policy_mobs
    w = GridWorld(kb)
    w.reset(seed=1, options={"biome": "jungle"})
    obs = w.observation()
    assert (obs["blocks"] >= vocab.n_policy_cells).any()  # a jungle log or leaves in view
    as_stand_ins = {**obs, "blocks": vocab.cell_as[obs["blocks"]], "biome": np.int32(vocab.biome_id["forest"])}
    for got, want in zip(encode_obs(obs, vocab), encode_obs(as_stand_ins, vocab)):
        np.testing.assert_array_equal(got, want)


def test_the_surroundings_map_counts_a_jungles_kinds_as_their_stand_ins(kb, vocab):
    from skills.learned.surround import around
    from worlds.gridworld.batch import BatchGridWorld

    grown, plain = BatchGridWorld(2, kb), BatchGridWorld(2, kb)
    for env in (grown, plain):
        env.reset([1, 2], [{"biome": "jungle"}, {"biome": "forest"}])
    plain.cells[:] = vocab.cell_as[plain.cells]  # the same worlds written in the networks' kinds
    assert (grown.cells[0] >= vocab.n_policy_cells).any() and not (plain.cells >= vocab.n_policy_cells).any()
    np.testing.assert_array_equal(around(grown), around(plain))


def test_a_kind_after_the_networks_must_name_a_stand_in_before_it():
    rows = [{}, {"name": "a"}, {"name": "b", "policy_as": "a"}]
    np.testing.assert_array_equal(_stand_ins(["none", "a", "b"], rows, "cells"), [0, 1, 1])
    with pytest.raises(GridWorldError, match="'c' comes after the networks' kinds.*policy_as"):
        _stand_ins(["none", "a", "b", "c"], [*rows, {"name": "c"}], "cells")
    with pytest.raises(GridWorldError, match="got 'b'"):
        _stand_ins(["none", "a", "b", "c"], [*rows, {"name": "c", "policy_as": "b"}], "cells")


def test_the_learned_controller_fells_a_jungle_tree_as_the_oak_it_reads(kb):
    from types import SimpleNamespace

    from skills.learned.controller import make_learned_controller
    from skills.learned.options import LearnedOptions

    settings = SimpleNamespace(world="gridworld", device="cpu", seed=0, option=lambda part: LearnedOptions())
    ctl = make_learned_controller(kb, settings, None)
    w = GridWorld(kb)
    w.reset(seed=0, options={"biome": "jungle"})
    out = ctl.run(Goal("mine", {"log": 1}), w)  # the shipped log network, never shown a jungle
    assert out["ok"] and out["driver"] == "policy", out
    assert w.has("log")
