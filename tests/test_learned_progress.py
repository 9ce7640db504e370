"""A mine goal's budget bounds its steps of no progress (skills/learned/progress.py): a policy
breaking gravel after gravel for flint (1 in 10) keeps going, as the scripted controller does;
one hitting a block the goal does not come from stops after the budget, as before."""

from __future__ import annotations

from skills.learned.controller import LearnedController
from skills.learned.progress import WAIT_REACH, Progress
from tests.fakes import FakeGoalPolicy
from worlds.gridworld.spec import PRIMITIVE_ID
from worlds.gridworld.world import GridWorld
from worlds.knowledge import load_kb
from worlds.types import Goal

ATTACK, EAST = PRIMITIVE_ID["attack"], PRIMITIVE_ID["move_east"]


def _world(kb, row: str) -> GridWorld:
    """The agent faces east along a row of 6 `row` blocks at its feet."""
    w = GridWorld(kb, size=(16, 16))
    blocks = [[9 + k, 65, 8, row] for k in range(6)]
    w.reset(seed=0, options={"layout": {"ground": 64, "blocks": blocks, "agent": [8, 65, 8]}, "time_of_day": 0.1})
    w.step({"action": "face_east"})
    return w


def test_each_source_broken_renews_the_budget_and_a_wrong_block_does_not():
    kb = load_kb("1.11.2")
    budget = 6  # fewer steps than two gravel blocks take by hand
    w = _world(kb, "gravel")
    gravel = w.env.vocab.cell_id["gravel"]

    def dig_east(mask) -> int:  # hit the gravel ahead, else step into the gap it left
        x, y, z = (int(c) for c in w.env.pos[0])
        return ATTACK if w.env.cells[0, min(x + 1, 15), z, y] == gravel else EAST

    flint = LearnedController(kb, FakeGoalPolicy({"mine:flint"}, dig_east), None, goal_budget=budget)
    out = flint.run(Goal("mine", {"flint": 1}), w)
    broken = 6 - int((w.env.cells[0, 9:15, 8, 65] == gravel).sum())
    assert broken >= 2 and out["steps"] > budget, (broken, out)  # went on past the budget, block after block
    assert out["ok"] == (kb.count(out["gained"], "flint") >= 1)
    if not out["ok"]:  # every gravel gone without a flint: then the budget of no progress ended it
        assert "steps of no progress" in out["error"]

    w = _world(kb, "stone")  # no sapling comes from stone: no progress, the budget ends it
    sapling = LearnedController(kb, FakeGoalPolicy({"mine:sapling"}, lambda m: ATTACK), None, goal_budget=budget)
    out = sapling.run(Goal("mine", {"sapling": 1}), w)
    assert not out["ok"] and out["steps"] == budget and "6 steps of no progress" in out["error"], out


def test_waiting_by_a_chicken_is_progress_for_an_egg_only_within_reach():
    kb = load_kb("1.11.2")
    w = _world(kb, "stone")
    env, v = w.env, w.env.vocab
    env.mob_kind[0] = 0
    egg, milk = Progress(env, 0, Goal("mine", {"egg": 1})), Progress(env, 0, Goal("mine", {"milk_bucket": 1}))
    assert not egg.made(None)
    env.add_mob(0, v.mob_id["chicken"], 8 + WAIT_REACH + 1, 65, 8)
    assert egg.made(None)  # the first chicken seen: nearer than any before
    assert not egg.made(None)  # too far to be waiting by it
    env.add_mob(0, v.mob_id["chicken"], 8, 65, 8 + WAIT_REACH)
    assert egg.made(None) and egg.made(None)  # waiting by it, step after step
    env.add_mob(0, v.mob_id["cow"], 7, 65, 8)
    assert milk.made(None)  # a cow is nearer than ever ...
    assert not milk.made(None)  # ... but milk takes a bucket used on it: standing by one is not progress
    assert not Progress(env, 0, Goal("mine", {"sapling": 1})).made({"broke": "stone"})
    assert Progress(env, 0, Goal("mine", {"sapling": 1})).made({"broke": "oak_leaves"})
    assert not Progress(env, 0, Goal("kill", {"cow": 1})).made({"broke": "oak_leaves"})


def test_each_step_nearer_the_source_than_ever_is_progress_and_going_back_and_forth_is_not():
    """Lava 25 levels under a bucket holder: each level dug renews the budget; climbing back up,
    or stepping aside and back, does not; 25 levels is the most the distance can renew."""
    kb = load_kb("1.11.2")
    w = GridWorld(kb, size=(16, 16))
    layout = {"ground": 64, "blocks": [[8, 40, 8, "lava"]], "agent": [8, 65, 8]}
    w.reset(seed=0, options={"layout": layout, "time_of_day": 0.1, "inventory": {"bucket": 1}})
    env = w.env
    env.mob_kind[0] = 0
    lava = Progress(env, 0, Goal("mine", {"lava_bucket": 1}))
    assert lava.distance() == 25 and not lava.made(None)
    env.pos[0, 1] = 60
    assert lava.made(None) and lava.distance() == 20
    env.pos[0, 1] = 61
    assert not lava.made(None)
    env.pos[0] = (9, 60, 8)
    assert not lava.made(None)  # as far as the best so far
    env.pos[0] = (8, 41, 8)
    assert lava.made(None) and lava.distance() == 1
    env.pos[0] = (8, 46, 8)  # a second unit of the goal begins further off (another lake, say)
    lava.restart()
    assert not lava.made(None)
    env.pos[0, 1] = 45
    assert lava.made(None)  # nearer than anywhere since the unit began
    assert not Progress(env, 0, Goal("mine", {"sapling": 1})).made(None)  # no leaf anywhere: never nearer


def test_after_a_source_is_broken_the_way_to_the_next_one_is_progress():
    """Flint: the gravel at hand broken without a flint, each step towards the next gravel renews
    the budget; a step back does not, and the broken cell no longer counts as a source."""
    kb = load_kb("1.11.2")
    w = GridWorld(kb, size=(16, 16))
    layout = {"ground": 64, "blocks": [[10, 65, 8, "gravel"], [14, 65, 8, "gravel"]], "agent": [8, 65, 8]}
    w.reset(seed=0, options={"layout": layout, "time_of_day": 0.1})
    env = w.env
    env.mob_kind[0] = 0
    flint = Progress(env, 0, Goal("mine", {"flint": 1}))
    assert flint.distance() == 2
    env.pos[0] = (9, 65, 8)
    assert flint.made(None)  # nearer the first gravel
    env.cells[0, 10, 8, 65] = env.vocab.cell_id["air"]  # broken, no flint this time
    assert flint.made({"broke": "gravel"}) and flint.distance() == 5  # the next gravel, 5 steps off
    env.pos[0] = (10, 65, 8)  # where the broken gravel was: before, no nearer than the best of 0
    assert flint.made(None)
    env.pos[0] = (9, 65, 8)
    assert not flint.made(None)  # back again
    env.pos[0] = (13, 65, 8)
    assert flint.made(None) and flint.distance() == 1


def test_the_skill_table_s_rollout_ends_a_mine_goal_by_the_same_rule(monkeypatch):
    """training/controller/rollout.py: `budget` steps of no progress end a learned mine try,
    `mine_budget` steps end it in all (an untrained network on a bare map makes no progress)."""
    from skills.learned import progress
    from tests.test_learned_find import CountingPolicy
    from training.controller.rollout import rollout

    kb = load_kb("1.11.2")
    bare = (Goal("mine", {"sapling": 1}), 0, {"layout": {"ground": 64, "agent": [8, 65, 8]}, "time_of_day": 0.1})
    policy = CountingPolicy(kb, ["mine:sapling"])
    assert rollout(kb, [bare], "learned", policy, budget=5, mine_budget=40) == [
        {"ok": False, "steps": 5, "end": "stalled"}
    ]
    monkeypatch.setattr(progress.Progress, "made", lambda self, event: True)  # as if every step broke a leaf
    assert rollout(kb, [bare], "learned", policy, budget=5, mine_budget=40) == [
        {"ok": False, "steps": 40, "end": "out_of_steps"}
    ]
    assert rollout(kb, [bare], "learned", policy, budget=7) == [
        {"ok": False, "steps": 7, "end": "out_of_steps"}
    ]  # default: `budget`


def test_a_kill_goal_s_quarry_coming_nearer_is_progress_and_on_a_night_hunt_any_hostile_killed():
    """A kill goal's budget is renewed as a mine goal's: its mob spawned or come nearer than ever,
    and on a hunt of the night's mobs any hostile killed (the expert clears them); an animal hunt
    gains nothing from a zombie killed, and a mob moving away is no progress."""
    kb = load_kb("1.11.2")
    w = GridWorld(kb, size=(24, 24))
    w.reset(seed=0, options={"layout": {"ground": 64, "agent": [8, 65, 8]}, "time_of_day": 0.7})
    zombie = Progress(w.env, w.i, Goal("kill", {"zombie": 1}))
    cow = Progress(w.env, w.i, Goal("kill", {"cow": 1}))
    assert zombie.distance() == float("inf") and not zombie.made(None)  # nothing to hunt in view
    w.spawn("zombie", 20, 65, 8)
    assert zombie.made(None) and zombie.distance() == 12  # one spawned: nearer than none
    w.env.mob_pos[w.i, w.env.mob_kind[w.i] == w.env.vocab.mob_id["zombie"]] = (21, 65, 8)
    assert not zombie.made(None)  # moved away
    assert zombie.made({"killed": "skeleton"}) and not cow.made({"killed": "zombie"})
    assert not cow.made({"killed": "skeleton"})


def test_the_skill_table_s_rollout_ends_a_kill_goal_as_the_controller_does(monkeypatch):
    """With `kill_budget`, a learned kill try runs as LearnedController runs a kill goal: `budget`
    steps of no progress end it, `kill_budget` steps in all; without it, `budget` steps in all
    (by day on a bare map no zombie comes, so an untrained network makes no progress)."""
    from skills.learned import progress
    from tests.test_learned_find import CountingPolicy
    from training.controller.rollout import rollout

    kb = load_kb("1.11.2")
    bare = (Goal("kill", {"zombie": 1}), 0, {"layout": {"ground": 64, "agent": [8, 65, 8]}, "time_of_day": 0.1})
    policy = CountingPolicy(kb, ["kill:zombie"])
    assert rollout(kb, [bare], "learned", policy, budget=5, kill_budget=40) == [
        {"ok": False, "steps": 5, "end": "stalled"}
    ]
    monkeypatch.setattr(progress.Progress, "made", lambda self, event: True)  # as if a zombie came nearer each step
    assert rollout(kb, [bare], "learned", policy, budget=5, kill_budget=40) == [
        {"ok": False, "steps": 40, "end": "out_of_steps"}
    ]
    assert rollout(kb, [bare], "learned", policy, budget=7) == [{"ok": False, "steps": 7, "end": "out_of_steps"}]
    assert rollout(kb, [bare], "scripted", None, budget=7, kill_budget=12)[0]["steps"] == 12  # the teacher too


def test_the_skill_table_records_its_mine_budget_and_can_leave_the_policy_out(tmp_path):
    import json

    from experiments.skill_table import main
    from training.controller.rollout import ENDS

    out = tmp_path / "t.json"
    assert main(["--episodes", "1", "--skills", "mine:tallgrass", "--no-learned", "--out", str(out)]) == 0
    got = json.loads(out.read_text())
    assert got["mine_budget"] == got["kill_budget"] == 2400 and got["checkpoint"] is None
    assert [set(r) for r in got["rows"]] == [
        {"skill", "episodes", "scripted_success", "scripted_mean_steps", "scripted_failures"}
    ] * 2
    assert all(set(r["scripted_failures"]) <= set(ENDS) for r in got["rows"])


def test_the_rollout_says_a_try_that_ends_in_lava_died():
    """A try's `end` names why it stopped: an agent standing in lava burns on its first step."""
    from tests.test_learned_find import CountingPolicy
    from training.controller.rollout import rollout

    kb = load_kb("1.11.2")
    layout = {"ground": 64, "blocks": [[8, 65, 8, "lava"]], "agent": [8, 65, 8]}
    in_lava = (Goal("mine", {"sapling": 1}), 0, {"layout": layout, "time_of_day": 0.1})
    policy = CountingPolicy(kb, ["mine:sapling"])
    assert rollout(kb, [in_lava], "learned", policy, budget=50) == [{"ok": False, "steps": 1, "end": "died"}]
    from training.controller.why import describe

    (out,) = rollout(kb, [in_lava], "learned", policy, budget=50, why=3)
    assert out["why"]["killed_by"] == "lava" and describe(out["why"]).endswith("; burned in lava")


def test_a_failed_try_says_what_it_did_last_and_where_its_source_was():
    """`rollout(..., why=N)` (the skill table's --why): a policy that swings at the air while the
    gravel lies 4 steps east stalls, and its result says so: nothing broken, N attacks, no move,
    the nearest source 4 steps off at (4, 0, 0) the whole time."""
    import numpy as np

    from tests.test_learned_find import CountingPolicy
    from training.controller.rollout import rollout
    from training.controller.why import describe

    class Swinger(CountingPolicy):
        def act(self, obs, codes, mask=None, greedy=True, rng=None, temperature=1.0):
            return np.full(len(codes), ATTACK)

    kb = load_kb("1.11.2")
    layout = {"ground": 64, "blocks": [[12, 65, 8, "gravel"]], "agent": [8, 65, 8]}
    try_ = (Goal("mine", {"flint": 1}), 0, {"layout": layout, "time_of_day": 0.1})
    (out,) = rollout(kb, [try_], "learned", Swinger(kb, ["mine:flint"]), budget=5, why=3)
    assert out["end"] == "stalled" and out["steps"] == 5
    assert out["why"] == {
        "steps": 3,
        "broke": {},
        "actions": {"attack": 3},
        "moved": [0, 0, 0],
        "nearest_source": 4,
        "nearest_source_least": 4,
        "nearest_source_at": [4, 0, 0],
    }
    assert describe(out["why"]) == (
        "last 3 steps broke nothing; nearest source 4 steps away at (4, 0, 0) (least 4); moved (0, 0, 0); attack 3"
    )
    (same,) = rollout(kb, [try_], "learned", Swinger(kb, ["mine:flint"]), budget=5)
    assert "why" not in same  # off by default: the results of before


def test_the_skill_table_s_why_lists_each_goal_s_failed_tries_and_refuses_a_negative_count(tmp_path, capsys):
    import json

    import pytest

    from experiments.skill_table import main

    out = tmp_path / "t.json"
    assert (
        main(["--episodes", "1", "--skills", "mine:tallgrass", "--no-learned", "--why", "50", "--out", str(out)]) == 0
    )
    (row, total) = json.loads(out.read_text())["rows"]
    assert isinstance(row["scripted_why"], list) and "scripted_why" not in total  # per goal, not for "all"
    assert len(row["scripted_why"]) == round(row["episodes"] * (1 - row["scripted_success"]))
    with pytest.raises(SystemExit) as e:
        main(["--why", "-1"])
    assert e.value.code == 2 and "--why must be 0 (off) or a number of steps, got -1" in capsys.readouterr().err
