"""The controller as several checkpoints (skills/learned/routed.py): each goal is driven by the
first checkpoint trained for it, a batch of mixed goals is split by goal, and a path list with a
checkpoint that does not fit is refused in one line."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

from skills.learned import checkpoint, sense
from skills.learned.features import net_shape
from skills.learned.model import GoalNet
from skills.learned.paths import CheckpointError, checkpoint_paths
from skills.learned.policy import GoalPolicy
from skills.learned.routed import RoutedPolicy
from skills.learned.surround import KEY, around
from worlds.gridworld.batch import BatchGridWorld
from worlds.gridworld.spec import make_vocab
from worlds.knowledge import load_kb
from worlds.types import Goal


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def _save(kb, path, goals, seed):
    vocab = make_vocab(kb)
    torch.manual_seed(seed)
    net = GoalNet(net_shape(vocab, channels=4, hidden=8, target=len(sense.BANDS), aux=1))
    return checkpoint.save(path, net, vocab_version=vocab.version, goals=goals, card={"seed": seed})


def test_each_goal_goes_to_the_first_checkpoint_trained_for_it_and_a_mixed_batch_is_split(kb, tmp_path):
    a = _save(kb, tmp_path / "a.pt", ["mine:log", "kill:cow"], 1)
    b = _save(kb, tmp_path / "b.pt", ["mine:log", "mine:flint"], 2)
    routed = GoalPolicy.load("controller", kb=kb, device="cpu", path=f"{a}{os.pathsep}{b}")
    first, second = (GoalPolicy.load("controller", kb=kb, device="cpu", path=str(p)) for p in (a, b))
    assert isinstance(routed, RoutedPolicy) and routed.goals == {"mine:log", "kill:cow", "mine:flint"}
    log, cow, flint = Goal("mine", {"log": 1}), Goal("kill", {"cow": 1}), Goal("mine", {"flint": 1})
    assert routed.part_for(log).card["seed"] == 1 and routed.part_for(flint).card["seed"] == 2  # first wins
    assert routed.knows(flint) and not first.knows(flint)

    env = BatchGridWorld(6, kb)
    obs = env.reset(list(range(6)))
    goals = [log, flint, cow, flint, log, flint]
    obs[KEY] = around(env)
    sense.add_to(obs, env, np.arange(6), [sense.lut(env, g) for g in goals])
    codes = routed.codes(goals)
    got = routed.act(obs, codes, greedy=True)
    rows_a, rows_b = [0, 2, 4], [1, 3, 5]
    want = np.zeros(6, np.int64)
    want[rows_a] = first.act({k: v[rows_a] for k, v in obs.items()}, codes[rows_a], greedy=True)
    want[rows_b] = second.act({k: v[rows_b] for k, v in obs.items()}, codes[rows_b], greedy=True)
    assert (got == want).all(), (got, want)
    logits_a, _ = first.logits({k: v[rows_b] for k, v in obs.items()}, codes[rows_b])
    logits_b, _ = second.logits({k: v[rows_b] for k, v in obs.items()}, codes[rows_b])
    assert not torch.equal(logits_a, logits_b)  # the two nets differ, so the split is what made them agree


def test_the_environment_may_list_several_and_one_that_does_not_fit_is_one_line(kb, tmp_path, monkeypatch):
    a = _save(kb, tmp_path / "a.pt", ["mine:log"], 1)
    monkeypatch.setenv("DEPS_CONTROLLER_CHECKPOINT", f"{a}{os.pathsep}{tmp_path / 'missing.pt'}")
    assert checkpoint_paths("controller") == [a, tmp_path / "missing.pt"]
    with pytest.raises(CheckpointError) as e:
        GoalPolicy.load("controller", kb=kb, device="cpu")
    assert "missing.pt" in str(e.value) and "\n" not in str(e.value)
    monkeypatch.delenv("DEPS_CONTROLLER_CHECKPOINT")
    shipped = checkpoint_paths("controller")
    assert shipped[0].name == "controller.pt" and all(p.is_file() for p in shipped[1:])
