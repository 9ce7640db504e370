"""Checkpoints joined by '+' act as one policy (skills/learned/ensemble.py): the mean of their
action distributions, the goals all of them were trained for, a place in a routed set like one
checkpoint's, and a member that does not fit refused in one line."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

from skills.learned import sense
from skills.learned.ensemble import Ensemble
from skills.learned.paths import CheckpointError
from skills.learned.policy import GoalPolicy
from skills.learned.routed import RoutedPolicy
from skills.learned.surround import KEY, around
from tests.test_learned_routed import _save  # a small checkpoint trained for the goals named
from worlds.gridworld.batch import BatchGridWorld
from worlds.knowledge import load_kb
from worlds.types import Goal

LOG, FLINT, COW = Goal("mine", {"log": 1}), Goal("mine", {"flint": 1}), Goal("kill", {"cow": 1})


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def _obs(kb, goals):
    env = BatchGridWorld(len(goals), kb)
    obs = env.reset(list(range(len(goals))))
    obs[KEY] = around(env)
    sense.add_to(obs, env, np.arange(len(goals)), [sense.lut(env, g) for g in goals])
    return obs


def test_the_mixture_is_the_mean_of_the_members_distributions_over_the_goals_all_know(kb, tmp_path):
    a = _save(kb, tmp_path / "a.pt", ["mine:log", "mine:flint"], 1)
    b = _save(kb, tmp_path / "b.pt", ["mine:log", "kill:cow"], 2)
    both = GoalPolicy.load("controller", kb=kb, device="cpu", path=f"{a}+{b}")
    first, second = (GoalPolicy.load("controller", kb=kb, device="cpu", path=str(p)) for p in (a, b))
    assert isinstance(both, Ensemble) and both.goals == {"mine:log"}
    assert both.knows(LOG) and not both.knows(FLINT) and not both.knows(COW)
    assert both.card["ensemble"] == [str(a), str(b)]

    goals = [LOG] * 4
    obs = _obs(kb, goals)
    codes = both.codes(goals)
    pa, ha = (torch.softmax(x, -1) for x in first.logits(obs, codes))
    pb, hb = (torch.softmax(x, -1) for x in second.logits(obs, codes))
    assert not torch.allclose(pa, pb)  # two different nets, so the mean is not either one
    got_p, got_h = both.logits(obs, codes)
    torch.testing.assert_close(torch.exp(got_p), (pa + pb) / 2)
    torch.testing.assert_close(torch.exp(got_h), (ha + hb) / 2)
    want = (first.expected_horizon(obs, codes) + second.expected_horizon(obs, codes)) / 2
    np.testing.assert_allclose(both.expected_horizon(obs, codes), want, rtol=1e-5)
    greedy = both.act(obs, codes, greedy=True)
    assert (greedy == ((pa + pb) / 2).argmax(-1).numpy()).all()
    only_attack = np.zeros(18, dtype=bool)
    only_attack[7] = True
    assert (both.act(obs, codes, only_attack, greedy=False, rng=np.random.default_rng(0)) == 7).all()


def test_an_ensemble_is_one_part_of_a_routed_set_and_a_member_that_does_not_fit_is_one_line(kb, tmp_path):
    a = _save(kb, tmp_path / "a.pt", ["mine:log", "mine:flint"], 1)
    b = _save(kb, tmp_path / "b.pt", ["mine:flint"], 2)
    c = _save(kb, tmp_path / "c.pt", ["mine:log", "kill:cow"], 3)
    routed = GoalPolicy.load("controller", kb=kb, device="cpu", path=f"{a}+{b}{os.pathsep}{c}")
    assert isinstance(routed, RoutedPolicy) and isinstance(routed.part_for(FLINT), Ensemble)
    assert routed.part_for(LOG).card["seed"] == 3 and routed.part_for(COW).card["seed"] == 3  # the ensemble lacks them
    goals = [FLINT, LOG, FLINT]
    obs = _obs(kb, goals)
    got = routed.act(obs, routed.codes(goals), greedy=True)
    alone = routed.part_for(FLINT).act(
        {k: v[[0, 2]] for k, v in obs.items()}, routed.codes([FLINT, FLINT]), greedy=True
    )
    assert (got[[0, 2]] == alone).all()
    with pytest.raises(CheckpointError) as e:
        GoalPolicy.load("controller", kb=kb, device="cpu", path=f"{a}+{tmp_path / 'missing.pt'}")
    assert "missing.pt" in str(e.value) and "\n" not in str(e.value)


def test_doctor_checks_each_member_and_the_controller_counts_as_there_only_when_all_are(kb, tmp_path, monkeypatch):
    from agent.doctor import _checkpoint
    from skills.learned.paths import available, checkpoint_files

    a = _save(kb, tmp_path / "a.pt", ["mine:log"], 1)
    b = _save(kb, tmp_path / "b.pt", ["mine:log"], 2)
    monkeypatch.setenv("DEPS_CONTROLLER_CHECKPOINT", f"{a}+{b}")
    assert checkpoint_files("controller") == [a, b] and available("controller")
    found = _checkpoint("controller")()
    assert str(a) in found and str(b) in found
    monkeypatch.setenv("DEPS_CONTROLLER_CHECKPOINT", f"{a}+/etc/passwd")
    assert available("controller")  # a file is there; whether it fits is the loader's and the doctor's to say
    with pytest.raises(RuntimeError, match="not a torch checkpoint"):
        _checkpoint("controller")()
    monkeypatch.setenv("DEPS_CONTROLLER_CHECKPOINT", f"{a}+{tmp_path / 'missing.pt'}")
    assert not available("controller")
