"""Find driven by the learned policy (issue 20, round 3): find goals' codes and target map, old
checkpoints loading with a row for the new skill, the controller waiting where the
where-conditions hold, and the training and evaluation worlds that carry find goals."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from skills.find import where_cells
from skills.learned import checkpoint, sense
from skills.learned.controller import LearnedController
from skills.learned.features import net_shape
from skills.learned.model import GoalNet
from skills.learned.paths import SHIPPED
from skills.learned.policy import GoalPolicy
from skills.learned.surround import POOL, RADIUS
from training.controller import find_goals
from worlds.gridworld.batch import BatchGridWorld
from worlds.gridworld.spec import GridWorldError, goal_code, make_vocab
from worlds.gridworld.world import GridWorld
from worlds.knowledge import load_kb
from worlds.types import SKILLS, Goal


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def _layout(mobs=(), blocks=(), agent=(8, 65, 8)):
    return {"ground": 64, "mobs": [list(m) for m in mobs], "blocks": [list(b) for b in blocks], "agent": list(agent)}


def test_a_find_goal_is_coded_by_its_thing(kb):
    v = make_vocab(kb)
    find = SKILLS.index("find")
    assert goal_code(Goal("find", {"pig": 1}), v, kb) == (find, v.n_items + v.mob_id["pig"])
    assert goal_code(Goal("find", {"tree": 1}), v, kb) == (find, v.item_id["log"])  # the first block "tree" names
    assert goal_code(Goal("find", {"tree": 1}, where={"biome": "forest"}), v, kb)[0] == find
    with pytest.raises(GridWorldError) as e:
        goal_code(Goal("find", {"unicorn": 1}), v, kb)
    assert "unicorn" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.skipif(not (SHIPPED / "controller-c20.pt").is_file(), reason="no controller-c20.pt")
def test_a_checkpoint_from_before_find_loads_with_a_zero_row_for_it(kb):
    blob = torch.load(SHIPPED / "controller-c20.pt", map_location="cpu", weights_only=False)
    assert blob["shape"]["n_skills"] == len(SKILLS) - 1  # trained when find was no goal skill
    vocab = make_vocab(kb)
    net, card = checkpoint.load(SHIPPED / "controller-c20.pt", expected=net_shape(vocab), vocab=vocab)
    w = net.goal_skill.weight
    assert w.shape[0] == len(SKILLS) and float(w[-1].detach().abs().sum()) == 0.0
    assert torch.equal(w[:-1], blob["state_dict"]["goal_skill.weight"].float())
    assert not any(g.startswith("find:") for g in card.get("goals", []))  # so it is never asked to find


def test_the_target_map_of_a_find_goal_counts_the_cells_that_meet_its_conditions(kb):
    env = BatchGridWorld(1, kb, size=(32, 32))
    env.reset([0], [{"layout": _layout(mobs=[(20, 65, 8, "pig")]), "time_of_day": 0.1}])
    goal = Goal("find", {"pig": 1})
    lut = sense.lut(env, goal)
    assert isinstance(lut, sense.Where) and not lut[0].any() and not lut[1].any()
    tmap = sense.target_map(env, [0], [lut])[0].astype(int)
    mask, _ = where_cells(env, 0, {"find": "pig"})
    pig = env.mob_pos[0][env.mob_kind[0] == env.vocab.mob_id["pig"]][0]
    x, y, z = (int(c) for c in env.pos[0])
    near = mask[:, :, y - 2 : y + 3]  # the band of the agent's own five levels
    assert tmap[1].sum() == near.sum() > 0 and tmap.sum() == mask.sum()  # every such cell lies in the window
    zc, xc = np.unravel_index(tmap[1].argmax(), tmap[1].shape)
    assert xc == (int(pig[0]) - x + RADIUS) // POOL and abs(zc - (int(pig[2]) - z + RADIUS) // POOL) <= 1
    desert = sense.lut(env, Goal("find", {"pig": 1}, where={"biome": "desert"}))  # no desert on this map
    assert sense.target_map(env, [0], [desert]).sum() == 0


class CountingPolicy(GoalPolicy):
    def __init__(self, kb, goals):
        super().__init__(GoalNet(net_shape(make_vocab(kb))), kb, {"goals": goals})
        self.asked = 0

    def act(self, obs, codes, mask=None, greedy=True, rng=None, temperature=1.0):
        self.asked += 1
        return super().act(obs, codes, mask, greedy, rng, temperature)


def test_where_the_thing_is_in_reach_the_controller_waits_for_the_night_without_the_policy(kb):
    w = GridWorld(kb, size=(24, 24))
    w.reset(seed=0, options={"layout": _layout(blocks=[(9, 65, 8, "oak_log")]), "time_of_day": 0.45})
    policy = CountingPolicy(kb, ["find:tree"])
    ctl = LearnedController(kb, policy, None, goal_budget=5, use_fallback=False)
    out = ctl.run(Goal("find", {"tree": 1}, where={"time": "night"}), w)
    assert out["ok"] and out["driver"] == "policy" and policy.asked == 0
    assert out["steps"] > 100 and w.context_state()["time_of_day"] == "night"


def test_a_find_the_policy_cannot_finish_fails_in_one_line_within_its_budget(kb):
    w = GridWorld(kb, size=(24, 24))
    w.reset(seed=0, options={"layout": _layout(mobs=[(20, 65, 20, "pig")]), "time_of_day": 0.1})
    policy = CountingPolicy(kb, ["find:pig"])  # an untrained network: it wanders
    out = LearnedController(kb, policy, None, goal_budget=5, use_fallback=False).run(Goal("find", {"pig": 1}), w)
    assert not out["ok"] and policy.asked == 5 and "\n" not in out["error"]
    assert out["error"].startswith("could not find a pig") and "within 5 steps" in out["error"]


def test_a_find_goal_s_conditions_are_drawn_from_its_own_world(kb):
    env = BatchGridWorld(1, kb)
    rng = np.random.default_rng(0)
    seen = set()
    for s in range(12):
        env.reset([s], [{}])
        g = find_goals.settle(env, 0, Goal("find", {"cow": 1}), rng)
        assert set(g.where) <= {"biome", "near"}
        if "biome" in g.where:
            assert env.vocab.biome_id[g.where["biome"]] in set(np.unique(env.biome_map[0]).tolist())
            seen.add("biome")
        if "near" in g.where:
            from skills.find import present

            assert g.where["near"] != "cow" and present(env, 0, g.where["near"]).any()
            seen.add("near")
    assert seen == {"biome", "near"}
    kept = Goal("find", {"cow": 1}, where={"biome": "plains"})
    assert find_goals.settle(env, 0, kept, rng) is kept  # conditions already given are kept


def test_adding_find_goals_left_the_mine_and_kill_evaluation_worlds_as_they_were(monkeypatch):
    from training.controller import train

    everything = train.eval_episodes(2 * len(train.TRAIN_GOALS), 1)
    finds = [e for e in everything if e[0].action == "find"]
    assert len(finds) == 2 * len(find_goals.THINGS) and any(e[0].where for e in finds)
    monkeypatch.setattr(train, "TRAIN_GOALS", tuple(g for g in train.TRAIN_GOALS if g[0] != "find"))
    before = train.eval_episodes(2 * len(train.TRAIN_GOALS), 1)
    assert [(g.code(), s, o) for g, s, o in everything if g.action != "find"] == [
        (g.code(), s, o) for g, s, o in before
    ]


def test_find_pursuits_give_rows_with_the_find_skill_and_its_target_map(kb):
    from training.controller import data

    monkey = {f"{a}:{i}": (1.0 if a == "find" else 0.0) for a, i, _, _ in data.TRAIN_GOALS}
    with data.weights_set(monkey):
        rows, stats = data.collect(kb, 12, seed=3, n_envs=4, target=True, scatter_p=0.0)
    assert stats["pursuits"] >= 12 and stats["ok"] > 0
    assert set(stats["by_goal"]) <= {f"find:{t}" for t in find_goals.THINGS}
    assert (rows["goal"][:, 0] == SKILLS.index("find")).all()
    assert rows["around"].shape[1] > len(sense.BANDS) and int(rows["around"][:, -len(sense.BANDS) :].sum()) > 0


def test_while_no_cell_meets_the_conditions_the_controller_waits_for_the_world_to_change(kb):
    w = GridWorld(kb, size=(24, 24))  # a plain map: no desert anywhere, and no pig
    w.reset(seed=0, options={"layout": _layout(), "time_of_day": 0.1, "max_steps": 40})
    policy = CountingPolicy(kb, ["find:pig"])
    out = LearnedController(kb, policy, None, goal_budget=5, use_fallback=False).run(
        Goal("find", {"pig": 1}, where={"biome": "desert"}), w
    )
    assert not out["ok"] and policy.asked == 0 and out["error"] == "ran out of environment steps (40)"


def test_a_block_the_map_does_not_hold_is_one_line_at_once(kb):
    w = GridWorld(kb, size=(24, 24))
    w.reset(seed=0, options={"layout": _layout(), "time_of_day": 0.1})
    policy = CountingPolicy(kb, ["find:tree"])
    out = LearnedController(kb, policy, None, goal_budget=5, use_fallback=False).run(Goal("find", {"tree": 1}), w)
    assert not out["ok"] and policy.asked == 0 and out["steps"] == 0
    assert out["error"] == "there is no tree in this world to find" and out["missing"] == {"tree": 1}


def test_a_zombie_close_at_night_stops_the_walk_and_the_controller_digs_in(kb):
    w = GridWorld(kb, size=(32, 32))
    w.reset(
        seed=0,
        options={
            "layout": _layout(mobs=[(10, 65, 8, "zombie"), (28, 65, 28, "pig")]),
            "time_of_day": 0.7,
            "max_steps": 30,
        },
    )
    policy = CountingPolicy(kb, ["find:pig"])
    out = LearnedController(kb, policy, None, goal_budget=100, use_fallback=False).run(Goal("find", {"pig": 1}), w)
    assert not out["ok"] and out["error"] == "ran out of environment steps (30)"
    assert policy.asked == 0  # every step a wait: the zombie stayed close
    assert int(w.env.pos[w.i][1]) == 63 and w.env.health[w.i] > 0  # in a hole two blocks deep, alive


def test_the_skill_table_s_rollout_gives_a_find_its_own_budget_and_ends_a_walk_as_the_controller_does(kb):
    from training.controller.rollout import rollout

    far_pig = (Goal("find", {"pig": 1}), 0, {"layout": _layout(mobs=[(40, 65, 40, "pig")]), "time_of_day": 0.1})
    no_desert = (Goal("find", {"pig": 1}, where={"biome": "desert"}), 0, {"layout": _layout(), "time_of_day": 0.1})
    policy = CountingPolicy(kb, ["find:pig"])  # an untrained network: it wanders
    # the walk toward the pig: `budget` policy steps without arriving, and the find is given up
    assert rollout(kb, [far_pig], "learned", policy, budget=5, find_budget=40) == [
        {"ok": False, "steps": 5, "end": "gave_up"}
    ]
    # nowhere to walk to (no desert on the map): the controller waits, to the find's own budget
    assert rollout(kb, [no_desert], "learned", policy, budget=5, find_budget=40) == [
        {"ok": False, "steps": 40, "end": "out_of_steps"}
    ]
    assert rollout(kb, [no_desert], "learned", policy, budget=7) == [
        {"ok": False, "steps": 7, "end": "out_of_steps"}
    ]  # default: `budget`


@pytest.mark.skipif(not (SHIPPED / "controller.pt").is_file(), reason="no shipped controller.pt")
def test_the_shipped_policy_walks_to_a_pig_and_a_context_task_is_no_longer_refused(kb):
    from types import SimpleNamespace

    from skills.learned.controller import make_learned_controller
    from skills.learned.options import LearnedOptions
    from worlds.tasks import load_suite

    settings = SimpleNamespace(world="gridworld", device="cpu", seed=0, option=lambda part: LearnedOptions())
    task = next(t for t in load_suite("mp5-context") if t.id == "mp5_context_2-4")  # a pig at night
    ctl = make_learned_controller(kb, settings, None, task=task)  # refused up front before round 3
    w = GridWorld(kb, size=(32, 32))
    w.reset(seed=0, options={"layout": _layout(mobs=[(20, 65, 16, "pig")]), "time_of_day": 0.1})
    out = ctl.run(Goal("find", {"pig": 1}), w)
    assert out["ok"] and out["driver"] == "policy" and out["steps"] >= 8
    assert evaluate_conditions_hold(w, "pig")


def evaluate_conditions_hold(w, thing) -> bool:
    from worlds.context_tasks import evaluate_conditions, normalise_state

    return evaluate_conditions({"find": thing}, normalise_state(w.context_state()))[0]


def test_the_near_map_of_a_find_goal_counts_the_same_cells_level_by_level_and_cell_by_cell(kb):
    env = BatchGridWorld(1, kb, size=(32, 32))
    env.reset([0], [{"layout": _layout(mobs=[(20, 65, 8, "pig")]), "time_of_day": 0.1}])
    lut = sense.lut(env, Goal("find", {"pig": 1}))
    env.pos[0, 0], env.pos[0, 2] = 16, 9  # a few cells from the pig
    got = sense.near_map(env, [0], [lut])[0].astype(int)
    mask, _ = where_cells(env, 0, {"find": "pig"})
    x, y, z = (int(c) for c in env.pos[0])
    r = sense.NEAR.radius
    want = np.zeros_like(got)
    for k, dy in enumerate(sense.NEAR_LEVELS):
        for dz in range(-r, r + 1):
            for dx in range(-r, r + 1):
                cx, cz, cy = x + dx, z + dz, y + dy
                if 0 <= cx < mask.shape[0] and 0 <= cz < mask.shape[1] and 0 <= cy < mask.shape[2]:
                    want[k, dz + r, dx + r] = int(mask[cx, cz, cy])
    np.testing.assert_array_equal(got, want)
    assert got.sum() > 0  # the pig stands within the near map's 7 cells
