"""A held item used on a mob, driven by the learned policy (issue 20, round 4): plan4mc's
harvest_milk asks for `mine 1 milk_bucket` (a bucket used on a cow, interactions.yaml).
What `use` is given, the training and evaluation worlds that carry the goal, and the
controller and the skill table's rollout giving the bucket to the same step."""

from __future__ import annotations

import numpy as np
import pytest

from skills.learned.controller import LearnedController, action_mask, item_args
from skills.learned.paths import SHIPPED
from tests.fakes import FakeGoalPolicy
from worlds.gridworld.spec import FACINGS, PRIMITIVE_ID
from worlds.gridworld.world import GridWorld
from worlds.knowledge import load_kb
from worlds.types import Goal

MILK = Goal("mine", {"milk_bucket": 1})


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def _held(*names):
    return lambda n: n in names


def test_use_takes_the_bucket_in_a_milk_goal_and_a_block_elsewhere(kb):
    assert item_args(kb, MILK, _held("bucket", "dirt")) == {"use": "bucket", "jump_place": "dirt"}
    assert item_args(kb, MILK, _held("dirt")) == {"use": "dirt", "jump_place": "dirt"}
    # dirt before cobblestone, which a plan's furnace and stone tools need (the map task lost 8 to a pillar)
    assert item_args(kb, Goal("mine", {"log": 1}), _held("bucket", "cobblestone", "dirt")) == {
        "use": "dirt",
        "jump_place": "dirt",
    }
    assert item_args(kb, Goal("mine", {"log": 1}), _held("cobblestone")) == {
        "use": "cobblestone",
        "jump_place": "cobblestone",
    }
    assert item_args(kb, Goal("kill", {"cow": 1}), _held("bucket")) == {}
    # flint: the held gravel is placed to be broken again (another 1-in-10 draw), dirt still pillars
    flint = Goal("mine", {"flint": 1})
    assert item_args(kb, flint, _held("gravel", "dirt")) == {"use": "gravel", "jump_place": "dirt"}
    assert item_args(kb, flint, _held("dirt")) == {"use": "dirt", "jump_place": "dirt"}
    assert item_args(kb, Goal("mine", {"log": 1}), _held("gravel")) == {}  # gravel is no building block here


def test_the_mask_allows_exactly_the_item_taking_steps_that_have_an_item(kb):
    w = GridWorld(kb, size=(16, 16))
    w.reset(seed=0, options={"inventory": {"bucket": 1}})
    mask, items = action_mask(kb, MILK, w)
    assert items == {"use": "bucket"}
    assert mask[PRIMITIVE_ID["use"]] and not mask[PRIMITIVE_ID["jump_place"]] and mask[PRIMITIVE_ID["attack"]]


def _use(mask):
    assert mask[PRIMITIVE_ID["use"]]
    return PRIMITIVE_ID["use"]


def test_the_controller_milks_a_cow_faced_with_the_held_bucket(kb):
    w = GridWorld(kb, size=(16, 16))
    layout = {"ground": 64, "mobs": [[9, 65, 8, "cow"]], "blocks": [], "agent": [8, 65, 8]}
    w.reset(seed=0, options={"layout": layout, "inventory": {"bucket": 1}, "time_of_day": 0.1})
    w.step({"action": "face_east"})
    out = LearnedController(
        kb, FakeGoalPolicy({"mine:milk_bucket"}, _use), None, goal_budget=5, use_fallback=False
    ).run(MILK, w)
    assert out["ok"] and out["driver"] == "policy" and out["gained"].get("milk_bucket") == 1, out
    assert w.has("milk_bucket") and not w.has("bucket")


def test_adding_the_milk_goal_left_the_other_evaluation_worlds_as_they_were(monkeypatch):
    from training.controller import train

    everything = train.eval_episodes(2 * len(train.TRAIN_GOALS), 1)
    milk = [e for e in everything if e[0].obj == MILK.obj]
    assert len(milk) == 2 and all(o["inventory"].get("bucket") == 1 for _, _, o in milk)
    monkeypatch.setattr(train, "TRAIN_GOALS", tuple(g for g in train.TRAIN_GOALS if g[1] != "milk_bucket"))
    before = train.eval_episodes(2 * len(train.TRAIN_GOALS), 1)
    assert [(g.code(), s, o) for g, s, o in everything if g.obj != MILK.obj] == [(g.code(), s, o) for g, s, o in before]


def test_milk_pursuits_give_rows_whose_label_uses_the_bucket(kb):
    from training.controller import data

    with data.weights_set({f"{a}:{i}": (1.0 if i == "milk_bucket" else 0.0) for a, i, _, _ in data.TRAIN_GOALS}):
        rows, stats = data.collect(kb, 6, seed=5, n_envs=3, target=True, scatter_p=0.0)
    assert set(stats["by_goal"]) == {"mine:milk_bucket"} and stats["ok"] >= 4
    assert (rows["action"] == PRIMITIVE_ID["use"]).sum() >= stats["ok"]  # each success ends with the bucket used


def test_the_skill_table_rollout_gives_the_bucket_to_use_as_the_controller_does(kb):
    from training.controller.rollout import rollout

    class FaceThenUse(FakeGoalPolicy):
        """Faces east, then uses the held item where `use` has one (the milk world) and attacks
        where it has none (the kill world beside it in the batch)."""

        def act(self, obs, codes, masks, **kw):
            east = np.asarray(obs["facing"]).reshape(-1) == FACINGS.index("east")
            hit = np.where(masks[:, PRIMITIVE_ID["use"]], PRIMITIVE_ID["use"], PRIMITIVE_ID["attack"])
            return np.where(east, hit, PRIMITIVE_ID["face_east"])

    layout = {"ground": 64, "mobs": [[9, 65, 8, "cow"]], "blocks": [], "agent": [8, 65, 8]}
    milk = {"layout": layout, "inventory": {"bucket": 1}, "time_of_day": 0.1}
    kill = {"layout": layout, "inventory": {"diamond_sword": 1}, "time_of_day": 0.1}
    out = rollout(
        kb,
        [(MILK, 0, milk), (Goal("kill", {"cow": 1}), 0, kill)],
        "learned",
        FaceThenUse({"mine:milk_bucket"}, None),
        budget=30,
    )
    assert out[0] == {"ok": True, "steps": 2, "end": "ok"}
    assert out[1] == {
        "ok": True,
        "steps": 3,
        "end": "ok",
    }  # the kill world beside it: turn, two hits; its events read as a kill


@pytest.mark.skipif(not (SHIPPED / "controller.pt").is_file(), reason="no controller.pt")
def test_the_shipped_policy_milks_a_cow_and_harvest_milk_is_not_refused_with_it(kb, monkeypatch):
    """The default controller (round 4 and its round-5 fine-tune) drives milk; round 3 refused it."""
    from types import SimpleNamespace

    from skills.learned.controller import make_learned_controller
    from skills.learned.options import LearnedOptions
    from worlds.tasks import load_suite, localize

    monkeypatch.delenv("DEPS_CONTROLLER_CHECKPOINT", raising=False)  # the default checkpoint
    settings = SimpleNamespace(world="gridworld", device="cpu", seed=0, option=lambda part: LearnedOptions())
    task = localize(next(t for t in load_suite("plan4mc") if t.id.startswith("harvest_milk")), kb)
    ctl = make_learned_controller(kb, settings, None, task=task)  # a policy never trained on milk refuses it
    w = GridWorld(kb, size=(32, 32))
    layout = {"ground": 64, "mobs": [[14, 65, 12, "cow"]], "blocks": [], "agent": [8, 65, 8]}
    w.reset(seed=0, options={"layout": layout, "inventory": {"bucket": 1}, "time_of_day": 0.1})
    out = ctl.run(MILK, w)
    assert out["ok"] and out["driver"] == "policy" and out["steps"] >= 4, out
    assert w.has("milk_bucket")
