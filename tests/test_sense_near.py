"""The near map (skills/learned/sense.py: near_map, issue 20 round 19): the goal's sources on
each level from feet - 5 to feet + 5, cell by cell over the 15 x 15 cells around the agent. It
equals a plain count; a network widened to read it acts exactly as before until its new
weights move; a network that does not read it is unchanged when it is packed in; and the
controller and the pipeline carry it where a network reads it, and only for the goals such a
network drives (issue 21: it cost every other goal's step 5 ms in a batch of 256)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from skills.learned import sense
from skills.learned.features import net_shape
from skills.learned.model import GoalNet
from skills.learned.surround import KEY, SIDE, around
from tests.test_sense_fast import GOALS, add_mobs, edit_cells, scatter_agents, source_offsets
from worlds.gridworld.batch import BatchGridWorld
from worlds.gridworld.spec import make_vocab
from worlds.knowledge import load_kb
from worlds.types import Goal

R = SIDE // 2


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def reference(env, rows, luts) -> np.ndarray:
    """The near map by a plain count of every source cell and mob of each world."""
    levels = {dy: b for b, dy in enumerate(sense.NEAR_LEVELS)}
    out = np.zeros((len(rows), len(levels), SIDE, SIDE), np.int64)
    for k, e in enumerate(rows):
        for dx, dy, dz in source_offsets(env, e, luts[k]):
            if abs(dx) <= R and abs(dz) <= R and dy in levels:
                out[k, levels[dy], dz + R, dx + R] += 1
    return np.minimum(out, 255).astype(np.uint8)


def test_the_near_map_equals_a_plain_count_through_edits_moves_and_mobs(kb):
    rng = np.random.default_rng(11)
    env = BatchGridWorld(10, kb, size=(30, 30))
    env.reset(rng.integers(0, 1000, env.n).tolist())
    goals = [GOALS[i % len(GOALS)] for i in range(env.n)]
    filled = 0
    for round_ in range(8):
        rows = np.arange(env.n) if round_ % 2 else np.sort(rng.choice(env.n, size=4, replace=False))
        luts = [sense.lut(env, goals[r]) for r in rows]
        got = sense.near_map(env, rows, luts)
        assert got.dtype == np.uint8 and got.shape == (len(rows), len(sense.NEAR_LEVELS), SIDE, SIDE)
        np.testing.assert_array_equal(got, reference(env, rows, luts))
        filled += int(got.sum() > 0)
        [edit_cells, lambda e, r, k: (scatter_agents(e, r), add_mobs(e, r))][round_ % 2](env, rng, kb)
    assert filled >= 4  # the maps compared were not all empty


def test_a_gravel_block_three_levels_down_is_its_own_cell_in_the_near_map_and_pooled_in_the_target_map(kb):
    env = BatchGridWorld(1, kb, size=(30, 30))
    env.reset([4])
    x, y, z = (int(v) for v in env.pos[0])
    env.cells[0, x + 2, z - 1, y - 3] = env.vocab.cell_id["gravel"]
    luts = [sense.lut(env, Goal("mine", {"flint": 1}))]
    near = sense.near_map(env, [0], luts)[0]
    assert near[sense.NEAR_LEVELS.index(-3), R - 1, R + 2] >= 1
    target = sense.target_map(env, [0], luts)[0]
    assert target[sense.BANDS.index((-6, -3))].sum() >= 1  # the target map has it only in a 3 x 3 block of 4 levels


def test_add_to_packs_the_near_map_after_the_target_bands_only_when_asked(kb):
    env = BatchGridWorld(2, kb)
    obs = env.reset([1, 2])
    goals = [Goal("mine", {"log": 1}), Goal("kill", {"cow": 1})]
    luts = [sense.lut(env, g) for g in goals]
    plain = sense.add_to({KEY: around(env)}, env, [0, 1], luts)[KEY]
    both = sense.add_to({**obs, KEY: around(env)}, env, [0, 1], luts, near=True)[KEY]
    c = plain.shape[1]
    assert both.shape[1] == c + len(sense.NEAR_LEVELS)
    np.testing.assert_array_equal(both[:, :c], plain)
    np.testing.assert_array_equal(both[:, c:], sense.near_map(env, [0, 1], luts))


def test_add_to_packs_the_near_map_of_the_rows_asked_for_and_zeros_in_the_others(kb):
    env = BatchGridWorld(4, kb)
    obs = env.reset([1, 2, 3, 4])
    goals = [Goal("mine", {"log": 1}), Goal("mine", {"dirt": 1}), Goal("kill", {"cow": 1}), Goal("mine", {"log": 1})]
    luts = [sense.lut(env, g) for g in goals]
    full = sense.add_to({**obs, KEY: around(env)}, env, [0, 1, 2, 3], luts, near=True)[KEY]
    some = sense.add_to({**obs, KEY: around(env)}, env, [0, 1, 2, 3], luts, near=np.array([0, 1, 0, 1], bool))[KEY]
    none = sense.add_to({**obs, KEY: around(env)}, env, [0, 1, 2, 3], luts, near=np.zeros(4, bool))[KEY]
    c = none.shape[1]
    assert full.shape == some.shape and full.shape[1] == c + len(sense.NEAR_LEVELS)
    assert full[[1, 3], c:].any()  # the near maps compared are not empty
    np.testing.assert_array_equal(some[[1, 3]], full[[1, 3]])
    np.testing.assert_array_equal(some[[0, 2], :c], full[[0, 2], :c])
    assert not some[[0, 2], c:].any()
    np.testing.assert_array_equal(none, full[:, :c])  # no row asked for: no near levels at all


def _inputs(shape, b, rng, near_levels):
    grid = torch.as_tensor(rng.integers(0, shape.n_cells, (b, shape.grid_layers, shape.view, shape.view)))
    vec = torch.as_tensor(rng.random((b, shape.vec_dim)), dtype=torch.float32)
    goal = torch.as_tensor(np.stack([rng.integers(0, shape.n_skills, b), rng.integers(0, shape.n_targets, b)], 1))
    channels = shape.n_cells + shape.target + near_levels
    around_ = torch.as_tensor(rng.integers(0, 4, (b, channels, shape.around, shape.around)), dtype=torch.uint8)
    faced = torch.as_tensor(rng.integers(0, shape.n_cells, (b, 2)))
    return grid, vec, goal, around_, faced


def test_a_widened_net_acts_as_before_and_its_near_map_is_wired_in(kb):
    from training.controller.widen import with_near

    torch.manual_seed(0)
    vocab = make_vocab(kb)
    old = GoalNet(net_shape(vocab, channels=4, hidden=16, target=len(sense.BANDS), aux=1)).eval()
    wide = with_near(old).eval()
    assert wide.shape.near == len(sense.NEAR_LEVELS) and old.shape.near == 0
    rng = np.random.default_rng(0)
    grid, vec, goal, a, faced = _inputs(wide.shape, 5, rng, len(sense.NEAR_LEVELS))
    with torch.no_grad():
        before = old(grid, vec, goal, a, faced)[0]  # the old net skips the near levels packed after its bands
        after = wide(grid, vec, goal, a, faced)[0]
        torch.testing.assert_close(after, before)
        torch.testing.assert_close(old(grid, vec, goal, a[:, : -len(sense.NEAR_LEVELS)], faced)[0], before)
        wide.near_fc.weight.normal_()
        moved = wide(grid, vec, goal, a, faced)[0]
        a2 = a.clone()
        a2[:, -len(sense.NEAR_LEVELS) :] = 0
        blind = wide(grid, vec, goal, a2, faced)[0]
    assert not torch.allclose(moved, before) and not torch.allclose(moved, blind)


def test_a_near_map_of_the_wrong_size_is_refused_in_one_line(kb):
    vocab = make_vocab(kb)
    net = GoalNet(net_shape(vocab, channels=4, hidden=16, target=len(sense.BANDS), near=len(sense.NEAR_LEVELS)))
    grid, vec, goal, a, faced = _inputs(net.shape, 2, np.random.default_rng(1), 3)
    with pytest.raises(ValueError, match="near map has 3 levels, this network reads 11"):
        net(grid, vec, goal, a, faced)
    with pytest.raises(ValueError, match="packed after the target map"):
        GoalNet(net_shape(vocab, channels=4, hidden=16, near=len(sense.NEAR_LEVELS)))


def two_checkpoints(kb, tmp_path, plain_goal: str, near_goal: str):
    """A shipped-like set of two: a network without the near map trained for `plain_goal`, then one
    that reads it trained for `near_goal`; (the set as one policy, the plain net)."""
    import os

    from skills.learned import checkpoint
    from skills.learned.policy import GoalPolicy

    vocab = make_vocab(kb)
    plain = GoalNet(net_shape(vocab, channels=4, hidden=8, target=len(sense.BANDS), aux=1))
    near = GoalNet(net_shape(vocab, channels=4, hidden=8, target=len(sense.BANDS), aux=1, near=11))
    a = checkpoint.save(tmp_path / "a.pt", plain, vocab_version=vocab.version, goals=[plain_goal], card={})
    b = checkpoint.save(tmp_path / "b.pt", near, vocab_version=vocab.version, goals=[near_goal], card={})
    return GoalPolicy.load("controller", kb=kb, device="cpu", path=f"{a}{os.pathsep}{b}"), plain


def test_the_controller_feeds_the_near_map_when_any_checkpoint_reads_it(kb, tmp_path):
    from tests.test_learned_sense import mine_a_log_watching

    policy, plain = two_checkpoints(kb, tmp_path, "mine:dirt", "mine:log")
    assert sense.near_rows(policy, policy.codes([Goal("mine", {"dirt": 1}), Goal("mine", {"log": 1})])).tolist() == [
        False,
        True,
    ]
    out, seen = mine_a_log_watching(kb, policy, policy.parts)
    assert out["driver"] == "policy" and seen
    want = plain.shape.n_cells + len(sense.BANDS) + len(sense.NEAR_LEVELS)
    assert all(s[0] == want for s in seen)


def test_the_controller_leaves_the_near_map_out_for_a_goal_whose_network_does_not_read_it(kb, tmp_path):
    from tests.test_learned_sense import mine_a_log_watching

    policy, plain = two_checkpoints(kb, tmp_path, "mine:log", "mine:flint")
    codes = policy.codes([Goal("mine", {"log": 1}), Goal("mine", {"flint": 1})])
    assert sense.near_rows(policy, codes).tolist() == [False, True]
    out, seen = mine_a_log_watching(kb, policy, policy.parts)
    assert out["driver"] == "policy" and seen
    assert all(s[0] == plain.shape.n_cells + len(sense.BANDS) for s in seen)  # the log's net: no near levels


def test_the_pipeline_widens_an_init_net_with_near_and_refuses_to_drop_it(kb, tmp_path, capsys):
    import json

    from skills.learned import checkpoint
    from training.controller.pipeline import main

    vocab = make_vocab(kb)
    torch.manual_seed(3)
    init = GoalNet(net_shape(vocab, channels=4, hidden=16, target=len(sense.BANDS), aux=1))
    path = checkpoint.save(tmp_path / "init.pt", init, vocab_version=vocab.version, goals=["mine:log"], card={})
    out = tmp_path / "run"
    args = ["--out", str(out), "--workers", "1", "--episodes", "2", "--steps", "2", "--batch-size", "8"]
    args += ["--focus", "mine:dirt=1,*=0.001"]  # two short pursuits that end well, whatever the goals list holds
    assert main([*args, "--rounds", "0", "--init", str(path), "--near"]) == 0
    assert "the near map joins" in capsys.readouterr().err
    card = json.loads((out / "controller.card.json").read_text())
    assert card["shape"]["near"] == len(sense.NEAR_LEVELS)
    data = torch.load(out / "data" / "bc-0.pt", weights_only=True)
    n = init.shape.n_cells + len(sense.BANDS) + len(sense.NEAR_LEVELS)
    assert data["around"].shape[1] == n
    assert main([*args, "--out", str(tmp_path / "again"), "--init", str(out / "controller.pt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "reads the near map; give --near too" in err[0]
