"""Issue 20, round 38: hunts of the night's mobs (a zombie for rotten flesh, a skeleton for a bone,
a spider for string) as training goals. Their worlds start after dusk and hold the route's sword;
the scripted expert on such a hunt clears every hostile mob around it, nearest first, as a player
does, rather than wait under a skeleton's arrows for its quarry; and the learned controller's
night hole is not dug on a hunt (the hunt fights what comes, as the expert it learned from)."""

from __future__ import annotations

import numpy as np
import pytest

from skills.experts import Expert
from skills.find import Shelter
from tests.test_skeletons import flat as skeletons_flat
from training.controller.data import NEW_KILLS_IN_ROUND_38, own_time
from worlds.gridworld import mobs
from worlds.gridworld.spec import game_data
from worlds.knowledge import load_kb
from worlds.types import Goal


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def flat(kb, **options):
    """test_skeletons' flat 16x16 map, the agent holding a wooden sword."""
    return skeletons_flat(kb, inventory={"wooden_sword": 1}, **options)


def test_a_night_hunt_s_worlds_start_after_dusk_and_the_others_are_as_they_were(monkeypatch):
    from training.controller import train

    dusk, dawn = game_data()["night"]
    everything = train.eval_episodes(2 * len(train.TRAIN_GOALS), 1)
    hunts = [e for e in everything if next(iter(e[0].obj)) in NEW_KILLS_IN_ROUND_38]
    assert len(hunts) == 2 * len(NEW_KILLS_IN_ROUND_38)
    for goal, _, options in hunts:
        assert goal.action == "kill" and dusk < options["time_of_day"] <= dusk + (dawn - dusk) / 7
        assert options["inventory"].get("wooden_sword", 0) >= 1
    assert all(e[2]["time_of_day"] == 0.1 for e in everything if e[0].action == "mine")
    monkeypatch.setattr(train, "TRAIN_GOALS", tuple(g for g in train.TRAIN_GOALS if g[1] not in NEW_KILLS_IN_ROUND_38))
    before = train.eval_episodes(2 * len(train.TRAIN_GOALS), 1)
    old = [(g.code(), s, o) for g, s, o in everything if next(iter(g.obj)) not in NEW_KILLS_IN_ROUND_38]
    assert old == [(g.code(), s, o) for g, s, o in before]


def test_own_time_draws_only_for_a_mob_of_the_night(kb):
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    assert own_time(kb, Goal("kill", {"cow": 1}), rng) == {} and own_time(kb, Goal("mine", {"log": 1}), rng) == {}
    assert rng.bit_generator.state == state  # nothing drawn: those worlds are as they were
    assert "time_of_day" in own_time(kb, Goal("kill", {"spider": 1}), rng)


def test_the_expert_on_a_night_hunt_goes_for_the_skeleton_shooting_it(kb, monkeypatch):
    monkeypatch.setattr(mobs, "NIGHT_SPAWN_CHANCE", 0.0)  # this skeleton alone
    w = flat(kb, time_of_day="night")
    env, v = w.env, w.env.vocab
    w.spawn("skeleton", 8, 65, 3)  # 5 cells north; no zombie about
    hunt = Expert(env, 0, Goal("kill", {"zombie": 1}))
    assert v.mob_id["skeleton"] in hunt._quarry({v.mob_id["zombie"]})
    killed = []
    for _ in range(120):
        a = hunt.act()
        assert a is not None, hunt.result
        info = w.step(np.array(a))[4]
        hunt.feedback(info)
        if info.get("killed"):
            killed.append(info["killed"])
            break
    assert killed == ["skeleton"]
    assert hunt.progress() == 0  # a skeleton is not the zombie it hunts: the hunt goes on


def test_by_day_and_for_a_cow_the_quarry_is_its_own(kb):
    w = flat(kb, time_of_day=0.1)
    v = w.env.vocab
    assert Expert(w.env, 0, Goal("kill", {"zombie": 1}))._quarry({v.mob_id["zombie"]}) == {v.mob_id["zombie"]}
    night = flat(kb, time_of_day="night")
    assert Expert(night.env, 0, Goal("kill", {"cow": 1}))._quarry({v.mob_id["cow"]}) == {v.mob_id["cow"]}


def test_the_night_s_hole_is_dug_for_a_mine_pursuit_and_not_on_a_hunt(kb, monkeypatch):
    monkeypatch.setattr(mobs, "NIGHT_SPAWN_CHANCE", 0.0)
    w = flat(kb, time_of_day="night")
    w.spawn("zombie", 10, 65, 8)
    assert Shelter(w.env, 0, Goal("mine", {"dirt": 1})).needed()
    assert not Shelter(w.env, 0, Goal("kill", {"spider": 1})).needed()  # a hunt fights the zombie
    assert not Shelter(w.env, 0, Goal("kill", {"zombie": 1})).needed()


def test_a_hurt_hunter_digs_in_heals_and_hunts_on(kb, monkeypatch):
    from skills.experts import HEAL_BELOW, HEALED_AT

    monkeypatch.setattr(mobs, "NIGHT_SPAWN_CHANCE", 0.0)
    w = flat(kb, time_of_day="night")
    env = w.env
    w.spawn("zombie", 8, 65, 2)  # its quarry, 6 cells north
    env.health[0] = HEAL_BELOW - 3
    hunt = Expert(env, 0, Goal("kill", {"zombie": 1}))
    for _ in range(40):  # into the hole, two blocks down, and waiting there
        a = hunt.act()
        assert a is not None, hunt.result
        hunt.feedback(w.step(np.array(a))[4])
    assert hunt.healing and hunt._sheltered() and int(env.pos[0, 1]) == 63
    env.health[0] = HEALED_AT  # healed: the hunt goes on, out of the hole toward the zombie
    a = hunt.act()
    assert not hunt.healing and a is not None and hunt.plan


def test_a_hurt_digger_by_day_or_on_a_mine_goal_does_not_stop_to_heal(kb):
    from skills.experts import HEAL_BELOW

    day = flat(kb, time_of_day=0.1)
    day.env.health[0] = HEAL_BELOW - 3
    assert Expert(day.env, 0, Goal("kill", {"zombie": 1}))._heal() is None
    night = flat(kb, time_of_day="night")
    night.env.health[0] = HEAL_BELOW - 3
    assert Expert(night.env, 0, Goal("mine", {"dirt": 1}))._heal() is None
    assert Expert(night.env, 0, Goal("kill", {"cow": 1}))._heal() is None
    assert Expert(night.env, 0, Goal("kill", {"spider": 1}))._heal() is not None


def test_a_mob_on_a_ledge_that_does_not_step_in_is_squared_up_to_once(kb, monkeypatch):
    """A hostile one level up on a diagonal hits the agent where its blows cannot reach; the expert
    steps away so that it steps in. One that stays on its ledge had the expert stepping back and
    forth between the two cells until it was shot dead (a skill-table trace); now it squares up
    once from each spot and then takes the way its hunt plans."""
    monkeypatch.setattr(mobs, "NIGHT_SPAWN_CHANCE", 0.0)
    monkeypatch.setattr(mobs, "_move", lambda env, movers, ch: None)  # every mob stands still
    w = flat(kb, time_of_day="night")
    env = w.env
    env.cells[0, 7, 8, 65] = env.vocab.cell_id["stone"]  # a ledge west of the agent at (8, 65, 8)
    w.spawn("skeleton", 7, 66, 8)  # on it: one west, one up
    hunt = Expert(env, 0, Goal("kill", {"skeleton": 1}))
    cells, killed = [], []
    for _ in range(80):
        a = hunt.act()
        assert a is not None, hunt.result
        info = w.step(np.array(a))[4]
        hunt.feedback(info)
        cells.append(tuple(int(c) for c in env.pos[0]))
        if info.get("killed"):
            killed.append(info["killed"])
            break
    assert killed == ["skeleton"], cells[:12]
    assert len({c for c in cells}) <= 3  # no walk about: one step away, one back, then the kill
