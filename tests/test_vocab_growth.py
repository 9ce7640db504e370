"""A kind grown into the networks' vocabulary (`grown_from:` in worlds/data/gridworld.yaml, the
skeleton): a network trained since tells it from its stand-in, and a checkpoint trained before
loads grown (skills/learned/checkpoint.py: grow), reading it exactly as it read the stand-in."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from skills.learned import checkpoint
from skills.learned.features import encode_obs, net_shape
from skills.learned.policy import GoalPolicy
from skills.learned.surround import KEY, around
from worlds.gridworld.spec import goal_code, make_vocab
from worlds.gridworld.world import GridWorld
from worlds.knowledge import load_kb
from worlds.types import Goal

SHIPPED = checkpoint.SHIPPED
HARVEST = SHIPPED / "controller-harvest.pt"


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def test_the_skeleton_is_a_network_kind_and_the_rabbit_still_reads_as_a_chicken(kb):
    v = make_vocab(kb)
    sk, zo, rb, ch = (v.mob_id[m] for m in ("skeleton", "zombie", "rabbit", "chicken"))
    assert v.mob_as[sk] not in (v.mob_as[zo], v.mob_as[rb]) and v.mob_as[rb] == v.mob_as[ch]
    assert v.n_policy_mobs == int(v.mob_as[sk]) + 1  # the next network id after the shipped networks' own
    assert goal_code(Goal("kill", {"skeleton": 1}), v) != goal_code(Goal("kill", {"zombie": 1}), v)
    # a local grid whose only mob is a rabbit: its id is below the skeleton's network id, yet it is moved
    obs = {k: np.asarray(a) for k, a in GridWorld(kb, size=(16, 16)).reset(seed=0)[0].items()}
    obs["mobs"] = np.zeros_like(obs["mobs"])
    obs["mobs"][2, 3, 3] = rb
    grid, _ = encode_obs(obs, v)
    assert set(np.unique(grid[0, len(obs["blocks"]) :]).tolist()) == {v.n_policy_cells, v.n_policy_cells + v.mob_as[ch]}


def test_the_grown_vocabulary_remembers_the_shipped_one(kb):
    v = make_vocab(kb)
    shipped = json.loads(HARVEST.with_suffix(".card.json").read_text())["vocab_version"]
    assert v.version != shipped and [g.version for g in v.growths] == [shipped]
    g = v.growths[0]
    zombie = int(v.mob_as[v.mob_id["zombie"]])
    assert len(g.kinds) == v.n_policy_cells + v.n_policy_mobs and g.kinds[-1] == v.n_policy_cells + zombie
    assert len(g.targets) == v.n_items + v.n_policy_mobs and g.targets[-1] == v.n_items + zombie


@pytest.mark.skipif(not HARVEST.is_file(), reason="no controller-harvest.pt")
def test_a_checkpoint_from_before_reads_a_skeleton_as_it_read_a_zombie(kb):
    v = make_vocab(kb)
    net, _ = checkpoint.load(HARVEST, expected=net_shape(v), vocab=v)
    policy = GoalPolicy(net, kb, {"goals": []}, "cpu", precision="fp32")
    w = GridWorld(kb, size=(16, 16))
    layout = {"ground": 64, "blocks": [], "mobs": [], "agent": [8, 65, 8]}
    w.reset(seed=0, options={"layout": layout, "inventory": {}, "time_of_day": "night"})
    w.spawn("skeleton", 10, 65, 8)  # two cells east: in the local grid and the surroundings map
    logits, obs = {}, {}
    for kind in ("zombie", "skeleton"):
        w.env.mob_kind[0][w.env.mob_kind[0] > 0] = w.env.vocab.mob_id[kind]
        obs[kind] = {**w.observation(), KEY: around(w.env, np.array([0]))[0]}
        for goal in ("skeleton", "zombie"):
            codes = policy.codes([Goal("kill", {goal: 1})])
            logits[kind, goal] = policy.logits(obs[kind], codes)[0]
    same = logits["zombie", "zombie"]
    assert all(torch.equal(x, same) for x in logits.values())  # mob and goal alike, bit for bit
    # a network trained since gives the skeleton rows of its own: the same state reads otherwise
    with torch.no_grad():
        net.cells.weight[-1] += 1.0
    assert not torch.equal(policy.logits(obs["skeleton"], codes)[0], same)
    assert torch.equal(policy.logits(obs["zombie"], codes)[0], same)


def test_a_checkpoint_of_an_unknown_vocabulary_is_still_refused(kb, tmp_path):
    v = make_vocab(kb)
    blob = torch.load(HARVEST, map_location="cpu", weights_only=True)
    torch.save({**blob, "vocab_version": "grid-1/1.11.2/0000000000"}, tmp_path / "other.pt")
    with pytest.raises(checkpoint.CheckpointError, match="retrain"):
        checkpoint.load(tmp_path / "other.pt", expected=net_shape(v), vocab=v)


def test_the_data_file_rules_for_a_grown_kind():
    from worlds.gridworld.spec import GridWorldError, _stand_ins

    names = ["none", "cow", "zombie", "rabbit", "skeleton", "stray"]
    rows = [{}, {}, {}, {"policy_as": "cow"}, {"grown_from": "zombie"}, {"policy_as": "skeleton"}]
    assert _stand_ins(names, rows, "mobs").tolist() == [0, 1, 2, 1, 3, 3]  # a later kind may name the grown one
    assert _stand_ins(names, rows, "mobs", grown=False).tolist() == [0, 1, 2, 1, 2, 2]  # as the older networks read
    with pytest.raises(GridWorldError, match="'skeleton' comes after"):
        _stand_ins(names[:5], [*rows[:4], {"grown_from": "creeper"}], "mobs")
