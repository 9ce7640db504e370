"""training/controller/restrict.py: a checkpoint cut down to some of its goals drives those, and
in a routed controller it takes them from every whole checkpoint, before or after it."""

from __future__ import annotations

import json

import pytest
import torch

from skills.learned.paths import SHIPPED
from skills.learned.policy import GoalPolicy
from training.controller.data import NEW_IN_ROUND_40
from training.controller.restrict import main, restrict
from worlds.knowledge import load_kb
from worlds.types import Goal

HARVEST = SHIPPED / "controller-harvest.pt"


def test_a_restricted_copy_drives_only_its_goals_and_routes_them_first(tmp_path):
    out = restrict(HARVEST, ["mine:emerald", "mine:flint"], tmp_path / "two.pt", why="a test")
    card = json.loads(out.with_suffix(".card.json").read_text())
    assert card["restricted"]["drives"] == ["mine:emerald", "mine:flint"] and card["restricted"]["why"] == "a test"
    assert "skill_success" not in card  # the whole checkpoint's figures are not the copy's
    kb = load_kb("1.11.2")
    two = GoalPolicy.load("controller", kb=kb, path=str(out))
    assert two.goals == {"mine:emerald", "mine:flint"}
    whole = GoalPolicy.load("controller", kb=kb, path=str(HARVEST))
    for a, b in zip(two.net.state_dict().values(), whole.net.state_dict().values()):
        assert torch.equal(a, b)  # the same weights
    routed = GoalPolicy.load("controller", kb=kb, path=f"{out}:{HARVEST}")
    assert routed.part_for(Goal("mine", {"flint": 1})).goals == two.goals
    assert routed.part_for(Goal("mine", {"lava_bucket": 1})).goals == whole.goals


def test_a_cut_copy_takes_its_goals_from_a_whole_checkpoint_listed_before_it(tmp_path):
    # round 42: a fine-tune of controller.pt cut to iron ore comes after controller.pt in the set
    one = restrict(HARVEST, ["mine:flint"], tmp_path / "flint.pt", why="a test")
    kb = load_kb("1.11.2")
    routed = GoalPolicy.load("controller", kb=kb, path=f"{HARVEST}:{one}")
    flint, lava = Goal("mine", {"flint": 1}), Goal("mine", {"lava_bucket": 1})
    assert routed.part_for(flint) is routed.parts[1] and routed.part_for(lava) is routed.parts[0]
    assert routed.codes([flint, lava])[:, 2].tolist() == [1, 0]
    # two cut copies naming one goal: the first of them drives it
    two = restrict(HARVEST, ["mine:flint", "mine:emerald"], tmp_path / "two.pt", why="a test")
    routed = GoalPolicy.load("controller", kb=kb, path=f"{HARVEST}:{two}:{one}")
    assert routed.part_for(flint) is routed.parts[1] and routed.part_for(lava) is routed.parts[0]


def test_a_copy_cut_again_keeps_what_it_was_cut_from_before(tmp_path):
    two = restrict(HARVEST, ["mine:emerald", "mine:flint"], tmp_path / "two.pt", why="first")
    one = restrict(two, ["mine:flint"], tmp_path / "one.pt", why="second")
    card = json.loads(one.with_suffix(".card.json").read_text())
    assert card["restricted"]["trained_on"] == ["mine:emerald", "mine:flint"] and card["restricted"]["why"] == "second"
    assert card["restricted"]["earlier"]["drives"] == ["mine:emerald", "mine:flint"]
    assert card["restricted"]["earlier"]["from"] == str(HARVEST)


def test_a_goal_it_was_not_trained_on_gets_one_line_and_exit_2(tmp_path, capsys):
    assert main([str(HARVEST), "--goals", "mine:emerald,kill:zombie", "--out", str(tmp_path / "x.pt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "kill:zombie not among the goals" in err[0] and "mine:emerald" in err[0]
    assert not (tmp_path / "x.pt").exists()


@pytest.mark.parametrize("goals", ["", " , "])
def test_no_goal_is_refused(tmp_path, goals, capsys):
    assert main([str(HARVEST), "--goals", goals, "--out", str(tmp_path / "x.pt")]) == 2
    assert "no goal" in capsys.readouterr().err


@pytest.mark.skipif(not (SHIPPED / "controller-harvest11.pt").is_file(), reason="no shipped controller-harvest11.pt")
def test_the_shipped_set_routes_rounds_14_to_42s_goals_to_their_cut_checkpoints(monkeypatch):
    monkeypatch.delenv("DEPS_CONTROLLER_CHECKPOINT", raising=False)
    kb = load_kb("1.11.2")
    shipped = GoalPolicy.load("controller", kb=kb)
    cut = [p.card.get("restricted", {}) for p in shipped.parts]
    assert shipped.parts[1].card["restricted"]["why"].startswith("round 86")  # controller-iron2.pt
    assert shipped.parts[6].card["restricted"]["why"].startswith("round 63")  # controller-harvest11.pt
    assert shipped.parts[10].card["restricted"]["why"].startswith("round 64")  # controller-harvest12.pt
    assert shipped.parts[11].card["restricted"]["why"].startswith("round 70")  # controller-harvest13.pt
    assert shipped.parts[12].card["restricted"]["why"].startswith("round 80")  # controller-harvest14.pt
    assert shipped.parts[13].card["restricted"]["why"].startswith("round 85")  # controller-harvest15.pt
    assert len(shipped.parts) == 16 and not cut[0] and all(cut[1:15]) and not cut[15]
    jungle = {"mine:melon", "mine:cocoa_beans", "mine:dye", "mine:vine", "mine:waterlily"}
    cold = {"mine:brown_mushroom", "mine:red_mushroom", "mine:snowball", "kill:rabbit", "kill:rabbit_foot"}
    tall = {f"mine:{i}" for i in NEW_IN_ROUND_40}
    cards = {  # the goals each cut checkpoint's card lists, and those it drives (the first that knows one)
        1: ({"mine:iron_ore"}, {"mine:iron_ore"}),  # controller-iron2.pt, round 86 from round 42's: repeats
        2: ({"mine:obsidian"}, {"mine:obsidian"}),  # controller-obsidian.pt, round 36: lava and a water bucket
        3: (cold, cold),  # controller-swamp-snow.pt, round 37: mushrooms, snowballs, rabbits (kill:rabbit by key)
        4: (tall, tall),  # controller-tall.pt, round 40: the tall flowers
        5: (jungle, jungle),  # controller-jungle.pt, round 35: the jungle's and the swamp's goals
        6: ({"mine:flint"}, {"mine:flint"}),  # controller-harvest11.pt: round 63, harvest10 on the world since 6c1a799
        7: ({"mine:leaves"}, {"mine:leaves"}),  # controller-harvest9.pt (leaves left controller-harvest.pt)
        8: ({"mine:lava_bucket"}, {"mine:lava_bucket"}),  # controller-harvest6.pt
        9: ({"mine:flint", "mine:sapling"}, {"mine:sapling"}),  # controller-harvest5.pt
        10: ({"mine:emerald"}, {"mine:emerald"}),  # controller-harvest12.pt: round 64, harvest4 on today's world
        11: ({"mine:pumpkin", "mine:cactus"}, {"mine:pumpkin", "mine:cactus"}),  # controller-harvest13.pt: round 70
        12: ({"mine:leaves2"}, {"mine:leaves2"}),  # controller-harvest14.pt: round 80, harvest3 on today's world
        13: ({"mine:sand", "mine:diamond"}, {"mine:sand", "mine:diamond"}),  # controller-harvest15.pt: round 85
        14: ({"mine:lava_bucket", "mine:leaves2", "mine:deadbush"}, {"mine:deadbush"}),  # controller-harvest3.pt
    }
    for part, (listed, driven) in cards.items():
        assert shipped.parts[part].goals == listed
        for key in driven:
            action, _, thing = key.partition(":")
            assert shipped.part_for(Goal(action, {thing: 1})) is shipped.parts[part]
    near = [i for i, p in enumerate(shipped.parts) if p.net.shape.near]
    assert near == [1, 6]  # controller-iron2.pt and controller-harvest11.pt read the near map
    assert shipped.part_for(Goal("mine", {"lapis_lazuli": 1})) is shipped.parts[0]  # dye's slot, its own key
    assert shipped.part_for(Goal("mine", {"clay_ball": 1})) is shipped.parts[15]  # the other harvest goals
    assert shipped.part_for(Goal("mine", {"pumpkin": 1})) is shipped.parts[11]  # round 70 took it from harvest
    assert shipped.part_for(Goal("mine", {"log": 1})) is shipped.parts[0]  # deps71's goals: round 5's
    assert shipped.part_for(Goal("mine", {"iron_ore": 1})) is shipped.parts[1]  # but iron ore: round 86's cut
    assert (
        shipped.part_for(Goal("kill", {"chicken": 1})) is shipped.parts[0]
    )  # kill rabbit shares its code, not its key
