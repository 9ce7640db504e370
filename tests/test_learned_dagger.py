"""DAgger (training/controller/dagger.py): one round lets the policy drive and labels the states
it visits with the scripted expert's action, adding those rows to the training data."""

from __future__ import annotations

import numpy as np
import pytest

from skills.learned.features import net_shape
from skills.learned.model import GoalNet
from training.controller import dagger
from training.controller.data import collect
from training.controller.fit import concat
from worlds.gridworld.spec import PRIMITIVE_ID, make_vocab
from worlds.knowledge import load_kb


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def test_one_dagger_round_adds_expert_labelled_rows_from_the_policys_states(kb, monkeypatch):
    noop = PRIMITIVE_ID["noop"]
    # a learner that stands still: every state it visits is off the expert's path
    monkeypatch.setattr(dagger.SampledPolicy, "act", lambda self, obs, codes: np.full(len(codes), noop))
    monkeypatch.setattr("training.controller.data.PURSUIT_CAP", 40)
    bc, _ = collect(kb, 2, 1, n_envs=2)
    net = GoalNet(net_shape(make_vocab(kb)))
    more, stats = dagger.dagger_round(net, kb, pursuits=2, seed=2, n_envs=2)
    assert stats["pursuits"] >= 2 and stats["rows"] == len(more["action"]) > 0
    # the learner never moved, so its pursuits failed; their rows are kept, labelled by the expert
    assert stats["ok"] == 0 and len(more["action"]) >= 2 * 40 - 2
    assert (more["action"] != noop).float().mean() > 0.9  # the expert's labels, not the learner's noop
    assert bool((more["horizon"] == -1).all())  # no horizon label from a learner's pursuit
    agg = concat(bc, more)  # aggregated with the expert's own rows
    assert len(agg["action"]) == len(bc["action"]) + len(more["action"])
    assert set(agg) == set(bc) and bool((bc["horizon"] >= 1).all())
    # a round whose time ran out before any pursuit ended brings no rows: the data stays as it was
    assert concat(bc, None) is bc and concat(None, more) is more


def test_a_learners_long_pursuit_gives_at_most_max_rows_rows(kb, monkeypatch):
    """A learner stuck for 40 steps would give 40 near-copies of one state; with max_rows the
    round keeps 10 of them, spread over the pursuit, so they cannot swamp the expert's rows."""
    noop = PRIMITIVE_ID["noop"]
    monkeypatch.setattr(dagger.SampledPolicy, "act", lambda self, obs, codes: np.full(len(codes), noop))
    monkeypatch.setattr("training.controller.data.PURSUIT_CAP", 40)
    net = GoalNet(net_shape(make_vocab(kb)))
    full, st_full = dagger.dagger_round(net, kb, pursuits=2, seed=2, n_envs=2)
    capped, st_cap = dagger.dagger_round(net, kb, pursuits=2, seed=2, n_envs=2, max_rows=10)
    assert st_full["pursuits"] == st_cap["pursuits"]
    assert len(full["action"]) >= 2 * 40 - 2
    assert 0 < len(capped["action"]) <= 10 * st_cap["pursuits"]
    assert len(set(capped["pursuit"].tolist())) == len(set(full["pursuit"].tolist()))  # every pursuit still there


def test_the_capped_rows_are_where_the_policy_decides_not_the_held_attack_between(kb, monkeypatch):
    """A learner that hits whatever it faces spends most steps holding attack while a block breaks
    (the controller's rule, not the policy's choice): the capped rows skip those, so a dig by hand
    to lava, 30 steps a block, still gives rows where the policy chose."""
    calls = []

    def dig_down(self, obs, codes):  # face down once, then attack: a dig straight down
        calls.append(1)
        return np.full(len(codes), PRIMITIVE_ID["face_down" if len(calls) == 1 else "attack"])

    monkeypatch.setattr(dagger.SampledPolicy, "act", dig_down)
    monkeypatch.setattr("training.controller.data.PURSUIT_CAP", 12)
    net = GoalNet(net_shape(make_vocab(kb)))
    full, _ = dagger.dagger_round(net, kb, pursuits=2, seed=3, n_envs=2)
    calls.clear()
    capped, _ = dagger.dagger_round(net, kb, pursuits=2, seed=3, n_envs=2, max_rows=5)
    assert not bool(full["decide"].all())  # held attack between the decisions
    assert int(full["decide"].sum()) >= 2 * 12 - 2  # the cap counts decisions, not steps
    assert len(capped["action"]) > 0 and bool(capped["decide"].all())


def test_the_expert_is_asked_afresh_where_the_learner_decides_not_at_each_hit(kb, monkeypatch):
    """A learner digging by hand holds attack some 30 steps a block, off the expert's path; the
    expert is asked afresh once the block breaks (one path search), not at every hit, and the
    rows where the learner decides carry a fresh expert's label and heading."""
    from training.controller import data

    calls, asked = [], []

    def dig_down(self, obs, codes):
        calls.append(1)
        return np.full(len(codes), PRIMITIVE_ID["face_down" if len(calls) == 1 else "attack"])

    real = data.afresh

    def fresh(env, i, goal, expert):
        asked.append(int(env.mine_prog[i]))
        return real(env, i, goal, expert)

    monkeypatch.setattr(dagger.SampledPolicy, "act", dig_down)
    monkeypatch.setattr(data, "afresh", fresh)
    monkeypatch.setattr("training.controller.data.PURSUIT_CAP", 12)
    net = GoalNet(net_shape(make_vocab(kb), target=6, aux=1))  # the shipped shape: rows carry the heading
    rows, _ = dagger.dagger_round(net, kb, pursuits=2, seed=3, n_envs=2)
    held = ~rows["decide"]
    assert int(held.sum()) > 20 and int(rows["decide"].sum()) >= 2 * 12 - 2
    assert len(asked) > 2 and all(p == 0 for p in asked)  # never while a block was breaking
    assert len(asked) < len(rows["action"]) / 3  # not at each step
    assert bool((rows["aux_dir"][held] == -1).all()) and bool((rows["aux_dir"][rows["decide"]] >= 0).any())


def test_a_dagger_fit_can_draw_a_set_share_of_each_batch_from_the_learners_rows():
    import torch

    from training.controller.pipeline import _sampler

    data = {"action": torch.zeros(100, dtype=torch.long), "horizon": torch.tensor([-1] * 10 + [5] * 90)}
    g = torch.Generator().manual_seed(0)
    draw = _sampler(data, 8, 0.5, g)
    for _ in range(20):
        idx = draw()
        assert len(idx) == 8 and int((data["horizon"][idx] < 0).sum()) == 4
    uniform = _sampler(data, 8, 0.0, g)
    learner = sum(int((data["horizon"][uniform()] < 0).sum()) for _ in range(200))
    assert 80 < learner < 240  # about a tenth of 1600 draws


def test_steps_0_without_a_checkpoint_and_a_learner_share_out_of_range_are_refused(capsys, tmp_path):
    from training.controller.pipeline import main

    assert main(["--out", str(tmp_path), "--steps", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--steps 0 only with --init" in err[0]
    assert main(["--out", str(tmp_path), "--learner-share", "1.5"]) == 2
    assert "--learner-share" in capsys.readouterr().err


def test_repeat_p_gives_a_world_the_mine_or_kill_goal_it_just_finished_again(kb, monkeypatch, capsys, tmp_path):
    """`--repeat-p 1`: a plan's `mine 3 iron_ore` as training data, each ore sought from where the
    last one was got; out of range is one line and exit 2."""
    from training.controller import data
    from training.controller.pipeline import main

    seen: list[tuple[int, str]] = []
    real = data.find_goals.settle

    def settle(env, i, g, rng):
        seen.append((i, data.goal_key_of(g)))
        return real(env, i, g, rng)

    monkeypatch.setattr(data.find_goals, "settle", settle)
    monkeypatch.setattr(data, "PURSUIT_CAP", 30)
    monkeypatch.setattr(data, "GOALS_PER_WORLD", 1000)  # no fresh world within the test
    collect(kb, 8, 5, n_envs=2, repeat_p=1.0)
    checked = 0
    for w in (0, 1):
        keys = [k for i, k in seen if i == w]
        if not keys[0].startswith("find:"):  # a find is followed by a fresh draw
            assert len(keys) >= 3 and set(keys) == {keys[0]}, keys
            checked += 1
    assert checked, seen  # a seed whose worlds start with a mine or kill goal
    assert main(["--out", str(tmp_path), "--repeat-p", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--repeat-p" in err[0]


def test_the_dagger_speed_probe_measures_a_goal_and_refuses_an_unknown_one(capsys):
    import json

    from experiments import dagger_speed
    from training.controller import data
    from worlds.gridworld import paths

    search = paths.search
    assert dagger_speed.main(["--goal", "mine:nothing"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown goal 'mine:nothing'" in err and "mine:flint" in err
    assert dagger_speed.main(["--goal", "mine:gravel", "--seconds", "2", "--envs", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["goal"] == "mine:gravel" and out["batch_steps"] > 0 and out["searches"] > 0
    assert paths.search is search and data.WEIGHTS == {}  # the process left as it was


def test_a_pursuit_that_waits_for_its_item_may_take_a_tasks_steps(kb, monkeypatch):
    """Round 24: the felling expert waits for an oak's leaves to decay and drop an apple, decisions
    that break no block; cut at PURSUIT_CAP of them, its pursuits stopped while it waited."""
    from training.controller import data
    from worlds.gridworld.batch import BatchGridWorld
    from worlds.types import Goal

    env = BatchGridWorld(1, kb)
    monkeypatch.setattr(data, "PURSUIT_CAP", 30)  # read when a pursuit begins, as the tests above set it
    assert data.pursuit_cap(env, Goal("mine", {"apple": 1})) == data.STEP_CAP
    assert data.pursuit_cap(env, Goal("mine", {"log": 1})) == 30
    assert data.pursuit_cap(env, Goal("mine", {"sapling": 1})) == 30  # about 3 a tree: broken, not waited for
    assert data.pursuit_cap(env, Goal("kill", {"cow": 1})) == 30


def test_learner_rows_headed_far_above_can_be_left_out(tmp_path, capsys):
    """Round 26: with --learner-above N the DAgger fit leaves out the learner's rows whose expert
    heads for a cell above the agent more than N cells away, read from the same auxiliary labels
    expert_target writes (a target below, level or none is always kept)."""
    from types import SimpleNamespace

    import torch

    from training.controller.data import above_rows, expert_target
    from training.controller.pipeline import main

    def label(target):
        return expert_target(SimpleNamespace(fetch=None, target=target), (5, 20, 5))

    rows = [label((5, 30, 5)), label((6, 22, 5)), label((5, 0, 5)), label((9, 20, 5)), label(None)]
    data = {"aux_dir": torch.tensor([d for d, _ in rows]), "aux_dist": torch.tensor([x for _, x in rows])}
    assert above_rows(data, 8).tolist() == [True, False, False, False, False]
    assert above_rows(data, 0).tolist() == [True, True, False, False, False]
    assert main(["--out", str(tmp_path), "--learner-above", "-2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--learner-above" in err[0] and "-1" in err[0]


def test_the_held_out_split_leaves_one_pursuit_at_least_to_fit():
    """Two expert pursuits with one success gave one pursuit of rows, which the 5 % held-out
    split took whole: "bc: no rows to fit" (a 2-episode pipeline run, once the worlds changed)."""
    import torch

    from training.controller.fit import split

    one = {"pursuit": torch.zeros(11, dtype=torch.long), "goal": torch.zeros(11, dtype=torch.long)}
    train, held = split(one, 0.05, seed=0)
    assert len(train["goal"]) == 11 and len(held["goal"]) == 0
    many = {"pursuit": torch.arange(40).repeat_interleave(3), "goal": torch.zeros(120, dtype=torch.long)}
    train, held = split(many, 0.05, seed=0)
    assert len(train["goal"]) == 38 * 3 and len(held["goal"]) == 2 * 3  # whole pursuits, as before
