"""The learned controller and the horizon selector (skills/learned/, nodes/horizon.py):
a short training run through `deps train` lowers the loss and writes a loadable
checkpoint with its card; checkpoints of another shape, vocabulary or no checkpoint at
all are refused with one line; the shipped predictor ranks a near goal before a far one;
the shipped policy mines a log next to it."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
import torch

from agent.cli import main
from skills.learned import checkpoint
from skills.learned.features import net_shape
from skills.learned.model import GoalNet
from skills.learned.paths import SHIPPED, CheckpointError
from worlds.gridworld.world import GridWorld
from worlds.types import Goal

SIZE = (24, 24)


def flat(kb, blocks=(), mobs=(), agent=(12, 65, 12)):
    w = GridWorld(kb, size=SIZE)
    layout = {"ground": 64, "blocks": [list(b) for b in blocks], "mobs": [list(m) for m in mobs], "agent": list(agent)}
    w.reset(seed=0, options={"layout": layout, "time_of_day": 0.1})
    return w


def tree(x, z, height=3):
    return [(x, 65 + k, z, "oak_log") for k in range(height)]


def test_short_training_run_lowers_the_loss_and_writes_a_loadable_checkpoint(tmp_path, capsys, kb, vocab):
    rc = main(
        [
            "train",
            "controller",
            "--out",
            str(tmp_path),
            "--episodes",
            "4",
            "--steps",
            "40",
            "--batch-size",
            "32",
            "--envs",
            "2",
            "--dagger",
            "0",
            "--eval-episodes",
            "0",
            "--device",
            "cpu",
            "--seed",
            "3",
            "--quiet",
            "--json",
        ]
    )
    assert rc == 0
    card = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert card["measured"]["loss_last"] < card["measured"]["loss_first"]
    assert card["data"]["successful"] >= 1 and card["data"]["rows"] > 0
    assert (tmp_path / "controller.pt").is_file()
    on_disk = json.loads((tmp_path / "controller.card.json").read_text())
    assert on_disk["vocab_version"] == vocab.version and on_disk["config"]["seed"] == 3
    net, loaded = checkpoint.load(tmp_path / "controller.pt", expected=net_shape(vocab), vocab_version=vocab.version)
    assert isinstance(net, GoalNet) and "mine:log" in loaded["goals"]


def _save(path, vocab, version=None, **shape):
    net = GoalNet(replace(net_shape(vocab), **shape))
    return checkpoint.save(path, net, vocab_version=version or vocab.version, goals=["mine:log"], card={})


def test_checkpoints_of_another_shape_or_vocabulary_are_refused(tmp_path, vocab):
    want = net_shape(vocab)
    other = _save(tmp_path / "a" / "c.pt", vocab, n_actions=want.n_actions + 1)
    with pytest.raises(CheckpointError, match="another shape.*n_actions"):
        checkpoint.load(other, expected=want, vocab_version=vocab.version)
    old = _save(tmp_path / "b" / "c.pt", vocab, version="grid-0/1.11.2/0000000000")
    with pytest.raises(CheckpointError, match="grid vocabulary 'grid-0"):
        checkpoint.load(old, expected=want, vocab_version=vocab.version)
    with pytest.raises(CheckpointError, match="not found"):
        checkpoint.load(tmp_path / "none.pt", expected=want, vocab_version=vocab.version)
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a torch file")
    with pytest.raises(CheckpointError, match="not a readable torch file"):
        checkpoint.load(junk, expected=want, vocab_version=vocab.version)
    # weights edited after saving: the first fault, named in one short phrase
    ck = torch.load(small_path := _save(tmp_path / "d" / "c.pt", vocab), weights_only=False)
    ck["state_dict"]["conv1.weight"] = ck["state_dict"]["conv1.weight"][:3]
    torch.save(ck, small_path)
    with pytest.raises(CheckpointError, match=r"conv1\.weight is \[3, 40, 3, 3\] there, the network wants \[16, 40"):
        checkpoint.load(small_path, expected=want, vocab_version=vocab.version)
    del ck["state_dict"]["conv1.weight"]
    torch.save(ck, small_path)
    with pytest.raises(CheckpointError, match=r'missing key\(s\): "conv1\.weight"\); accepted: '):
        checkpoint.load(small_path, expected=want, vocab_version=vocab.version)
    # a net of other hidden sizes is fine: only what the world fixes is checked, the card's shape rebuilds it
    small = _save(tmp_path / "c" / "c.pt", vocab, hidden=32)
    net, _ = checkpoint.load(small, expected=want, vocab_version=vocab.version)
    assert net.shape.hidden == 32


@pytest.mark.parametrize(
    "flag,env", [("--controller", "DEPS_CONTROLLER_CHECKPOINT"), ("--selector", "DEPS_SELECTOR_CHECKPOINT")]
)
def test_a_bad_checkpoint_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch, vocab, flag, env):
    bad = _save(tmp_path / "bad.pt", vocab, n_actions=3)
    for path, why in ((tmp_path / "missing.pt", "not found"), (bad, "another shape")):
        monkeypatch.setenv(env, str(path))
        rc = main(
            [
                "run",
                "obtain a stone pickaxe",
                "--world",
                "gridworld",
                "--planner",
                "oracle",
                flag,
                "learned" if flag == "--controller" else "horizon",
                "--quiet",
            ]
        )
        err = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
        assert rc == 2 and len(err) == 1 and err[0].startswith("deps run: error: ") and why in err[0], err


def test_train_refuses_bad_sizes(tmp_path, capsys):
    assert main(["train", "selector", "--out", str(tmp_path), "--episodes", "0"]) == 2
    assert "--episodes must be a whole number from 1 to" in capsys.readouterr().err


def shipped(kind: str):
    return pytest.mark.skipif(
        not (SHIPPED / f"{kind}.pt").is_file(),
        reason=f"no shipped checkpoint (deps train {kind} --out skills/checkpoints)",
    )


@shipped("selector")
def test_the_shipped_predictor_ranks_a_near_goal_before_a_far_one(kb):
    from nodes.horizon import HorizonSelector
    from skills.learned.predictor import HorizonPredictor

    predictor = HorizonPredictor.load(kb=kb, device="cpu")
    log, cow = Goal("mine", {"log": 1}), Goal("kill", {"cow": 1})
    near_tree = flat(kb, blocks=tree(13, 11), mobs=[(2, 65, 22, "cow")])
    near_cow = flat(kb, blocks=tree(1, 1), mobs=[(13, 65, 11, "cow")])
    h_log, h_cow = predictor.horizons(near_tree, [log, cow])
    assert h_log < h_cow
    h_log, h_cow = predictor.horizons(near_cow, [log, cow])
    assert h_cow < h_log

    class Ctx:
        world = near_tree

    pick, why = HorizonSelector(predictor).choose([cow, log], [0, 1], [0, 1], {}, Ctx())
    assert pick == 1 and why["rule"] == "least predicted horizon"


@shipped("controller-bc")
def test_the_shipped_policy_fells_a_tree_it_walks_to(kb):
    """The learned controller on one goal: walk to a tree 3 cells away and hit it (the old
    checkpoint kept walking into the log; the faced cell is now an input)."""
    from skills.grid_controller import GridScriptedController
    from skills.learned.controller import LearnedController
    from skills.learned.policy import GoalPolicy

    policy = GoalPolicy.load("controller", kb=kb, device="cpu", path=str(SHIPPED / "controller-bc.pt"))
    ctl = LearnedController(kb, policy, GridScriptedController(kb), seed=0)
    w = flat(kb, blocks=tree(15, 12, height=4))
    out = ctl.run(Goal("mine", {"log": 1}), w)
    assert out["ok"], out
    assert kb.count(out["gained"], "log") >= 1 and out["steps"] <= 600


def test_the_policy_never_turns_to_the_facing_it_already_has(kb, vocab):
    """A turn to the facing already held changes nothing; a policy that picks it sees the
    same state again (the shipped one looped on face_up under a tree). act() masks it,
    whatever the logits say, and leaves every other action alone."""
    import numpy as np
    import torch

    from skills.learned.policy import GoalPolicy, idle_turns
    from worlds.gridworld.spec import FACINGS, PRIMITIVE_ID

    idle = idle_turns(np.arange(len(FACINGS)))
    assert idle.sum() == len(FACINGS)
    for f, name in enumerate(FACINGS):
        assert idle[f, PRIMITIVE_ID[f"face_{name}"]]

    policy = GoalPolicy(GoalNet(net_shape(vocab)), kb, {"goals": ["mine:log"]})
    w = flat(kb, blocks=tree(15, 12))
    up = PRIMITIVE_ID["face_up"]
    w.step({"action": "face_up"})
    from skills.learned.surround import observe

    obs = observe(w)
    assert int(np.asarray(obs["facing"]).reshape(-1)[0]) == FACINGS.index("up")
    logits = torch.full((1, len(PRIMITIVE_ID)), -10.0)
    logits[0, up] = 10.0  # the net all but insists on face_up
    logits[0, PRIMITIVE_ID["attack"]] = 5.0
    policy.logits = lambda obs, codes: (logits, None)
    codes = policy.codes([Goal("mine", {"log": 1})])
    assert int(policy.act(obs, codes, greedy=True)[0]) == PRIMITIVE_ID["attack"]
    rng = np.random.default_rng(0)
    assert up not in {int(policy.act(obs, codes, greedy=False, rng=rng)[0]) for _ in range(50)}


def test_a_goal_the_policy_has_not_mastered_goes_to_the_scripted_expert(tmp_path, kb, vocab, monkeypatch):
    """The card's measured success gates the policy: under the bar, the scripted expert runs
    the goal (and the controller says so); at or over it, or with the bar at 0, the policy."""
    from skills.learned.checkpoint import _measured_success
    from skills.learned.controller import LearnedController, mastery_bar
    from skills.learned.paths import LearnedError
    from skills.learned.policy import GoalPolicy

    class Expert:
        calls: list = []

        def run(self, goal, world):
            self.calls.append(goal.code())
            return {"ok": True, "error": None, "steps": 1, "gained": {}, "missing": {}}

    goal = Goal("mine", {"log": 1})
    card = {"goals": ["mine:log"], "skill_success": {"mine:log": 0.5}}
    policy = GoalPolicy(GoalNet(net_shape(vocab)), kb, card)
    assert policy.measured_success(goal) == 0.5
    expert = Expert()
    ctl = LearnedController(kb, policy, expert, goal_budget=2, mastery=0.9)
    assert ctl.run(goal, flat(kb, blocks=tree(15, 12)))["ok"]
    assert expert.calls == [goal.code()] and "under 0.90" in ctl.notes[-1]
    out = LearnedController(kb, policy, expert, goal_budget=2, mastery=0.0).run(goal, flat(kb, blocks=tree(15, 12)))
    assert expert.calls == [goal.code()]  # the policy ran it (and ran out of its 2 steps)
    assert not out["ok"] and "within 2 steps" in out["error"]

    monkeypatch.setenv("DEPS_LEARNED_MASTERY", "0.5")
    assert mastery_bar() == 0.5
    monkeypatch.setenv("DEPS_LEARNED_MASTERY", "high")
    with pytest.raises(LearnedError, match="accepted: a number from 0 to 1"):
        mastery_bar()

    side = tmp_path / "c.card.json"
    assert _measured_success(side) is None
    side.write_text(json.dumps({"skill_success": {"mine:log": 0.95}}))
    assert _measured_success(side) == {"mine:log": 0.95}
    side.write_text(json.dumps({"skill_success": ["mine:log"]}))
    with pytest.raises(CheckpointError, match="skill_success"):
        _measured_success(side)
