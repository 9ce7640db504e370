"""The learned parts' wider observation (skills/learned/surround.py): the pooled surroundings
map puts a source where it is, relative to the agent, and the faced cell is the one attack
hits; a network with both inputs trains (a few steps lower the loss)."""

from __future__ import annotations

import numpy as np
import pytest

from skills.learned import surround
from worlds.gridworld.world import GridWorld
from worlds.knowledge import load_kb


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def flat(kb, blocks=(), mobs=(), agent=(24, 65, 24)):
    w = GridWorld(kb, size=(48, 48))
    layout = {"ground": 64, "blocks": [list(b) for b in blocks], "mobs": [list(m) for m in mobs], "agent": list(agent)}
    w.reset(seed=0, options={"layout": layout, "time_of_day": 0.1})
    return w


def test_the_surroundings_map_puts_a_far_tree_and_cow_where_they_are(kb):
    w = flat(kb, blocks=[(24 + 15, 65 + k, 24 - 6, "oak_log") for k in range(3)], mobs=[(24 - 18, 65, 24 + 20, "cow")])
    obs = surround.observe(w)
    a = obs[surround.KEY]
    v = w.env.vocab
    assert a.shape == (v.n_policy_cells + v.n_policy_mobs, surround.SIDE, surround.SIDE) and a.dtype == np.uint8
    log = a[v.cell_id["oak_log"]]
    assert log.sum() == 3 and log[(-6 + 22) // 3, (15 + 22) // 3] == 3  # [z, x] like the local grid
    cow = a[v.n_policy_cells + v.mobs.index("cow")]
    assert cow.sum() == 1 and cow[(20 + 22) // 3, (-18 + 22) // 3] == 1
    assert obs["blocks"].shape[-1] == 9 and (obs["blocks"] == v.cell_id["oak_log"]).sum() == 0  # not in the 9x9 view


def test_a_kind_the_networks_never_saw_counts_as_its_stand_in(kb):
    """Jungle logs and obsidian came after the networks' vocabulary: the map of a world holding them
    is the map of the same world with their stand-ins (vocab.cell_as) in their place."""
    v = flat(kb).env.vocab
    grown = ("jungle_log", "obsidian")
    assert all(v.cell_id[k] >= v.first_cell_as for k in grown)
    stand_in = {k: v.cells[int(v.cell_as[v.cell_id[k]])] for k in grown}
    assert all(stand_in[k] != k for k in grown)
    cells = [(24 + 4, 65 + k, 24, "jungle_log") for k in range(4)] + [(24 + 5, 65, 24, "oak_log")]
    cells += [(24 - 9, 65, 24 - 9, "obsidian"), (24 - 10, 65, 24 - 9, "obsidian"), (24 + 20, 66, 24 - 21, "obsidian")]
    with_grown = surround.observe(flat(kb, blocks=cells))[surround.KEY]
    with_stand_ins = surround.observe(flat(kb, blocks=[(*c[:3], stand_in.get(c[3], c[3])) for c in cells]))
    assert np.array_equal(with_grown, with_stand_ins[surround.KEY])
    assert with_grown[v.cell_id["oak_log"]].sum() == 4  # three jungle logs on the map's five levels, and the oak


def test_faced_is_the_cell_that_attack_hits(kb):
    w = flat(kb, blocks=[(24, 65, 23, "oak_log")])
    v = w.env.vocab
    w.step({"action": "move_north"})  # into the log: only turns to face it
    cell, mob = surround.faced(w.observation())[0]
    assert v.cells[cell] == "oak_log" and mob == 0
    w.step({"action": "face_south"})
    assert v.cells[surround.faced(w.observation())[0][0]] == "air"
    w.step({"action": "face_down"})
    assert v.cells[surround.faced(w.observation())[0][0]] != "air"


def test_a_net_with_the_surroundings_and_faced_inputs_learns(kb):
    import torch

    from skills.learned.features import net_shape
    from skills.learned.model import GoalNet
    from training.controller.data import collect
    from training.controller.fit import fit
    from worlds.gridworld.spec import make_vocab

    torch.set_num_threads(1)
    data, stats = collect(kb, 4, seed=5, n_envs=2)
    v = make_vocab(kb)
    kinds = v.n_policy_cells + v.n_policy_mobs  # a channel for each kind a network reads
    assert kinds == 48  # 40 cells, 8 mobs (the skeleton one of them since 2026-12-03)
    assert stats["ok"] >= 1 and data["around"].shape[1:] == (kinds, surround.SIDE, surround.SIDE)
    net = GoalNet(net_shape(make_vocab(kb), hidden=32))
    assert net.shape.around == surround.SIDE and net.shape.faced == 1
    hist = fit(net, data, steps=30, batch_size=32, device="cpu", seed=0)
    assert np.mean(hist[-5:]) < np.mean(hist[:5])
