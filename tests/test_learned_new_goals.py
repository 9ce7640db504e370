"""Issue 20, round 8: the goals the oracle's routes mine on the harvest list join the policy's
training goals without moving the older goals' evaluation worlds, and a fine-tune from an older
checkpoint starts each new goal as "a thing to mine" rather than from a random embedding."""

from __future__ import annotations

import pytest
import torch

from training.controller.data import NEW_IN_ROUND_8, TRAIN_GOALS


@pytest.fixture(scope="module")
def kb():
    from worlds.knowledge import load_kb

    return load_kb("1.11.2")


def test_adding_round_8_s_goals_left_the_other_evaluation_worlds_as_they_were(monkeypatch):
    from training.controller import train

    everything = train.eval_episodes(2 * len(train.TRAIN_GOALS), 1)
    new = [e for e in everything if next(iter(e[0].obj)) in NEW_IN_ROUND_8]
    assert len(new) == 2 * len(NEW_IN_ROUND_8)
    for goal, _, options in new:  # each starts with the tool its route crafts first
        assert all(options["inventory"].get(k, 0) >= n for k, n in NEW_IN_ROUND_8[next(iter(goal.obj))].items())
    monkeypatch.setattr(train, "TRAIN_GOALS", tuple(g for g in train.TRAIN_GOALS if g[1] not in NEW_IN_ROUND_8))
    before = train.eval_episodes(2 * len(train.TRAIN_GOALS), 1)
    old = [(g.code(), s, o) for g, s, o in everything if next(iter(g.obj)) not in NEW_IN_ROUND_8]
    assert old == [(g.code(), s, o) for g, s, o in before]


def test_every_goal_the_oracle_mines_for_the_harvest_list_is_a_training_goal(kb):
    """The routes of the harvest list the grid world takes (experiments/world_parity.py's suite)
    ask the policy for no goal outside TRAIN_GOALS: a learned run is refused for none of them."""
    from types import SimpleNamespace

    from skills.learned.controller import route_goals
    from skills.learned.features import goal_key
    from worlds.gridworld.coverage import refusal
    from worlds.solver import Unreachable, solve

    trained = {f"{a}:{i}" for a, i, _, _ in TRAIN_GOALS}
    missing = set()
    for item in kb.item_names():
        try:
            if not solve(kb, {item: 1}, {}) or refusal(kb, {item: 1}):
                continue
        except (Unreachable, ValueError):
            continue
        task = SimpleNamespace(id=item, target={item: 1}, inventory={}, context=None)
        missing |= {goal_key(g) for g in route_goals(kb, task) if g.action in ("mine", "kill", "find")} - trained
    assert not missing, sorted(missing)


def test_a_fine_tune_starts_a_new_goal_at_the_mean_of_the_trained_ones_of_its_skill(kb):
    from skills.learned.features import net_shape
    from skills.learned.model import GoalNet
    from training.controller.pipeline import seed_new_targets
    from worlds.gridworld.spec import goal_code, make_vocab
    from worlds.types import Goal

    vocab = make_vocab(kb)
    torch.manual_seed(0)
    net = GoalNet(net_shape(vocab, channels=4, hidden=8))
    before = net.goal_target.weight.detach().clone()
    trained = [f"{a}:{i}" for a, i, _, _ in TRAIN_GOALS if i not in NEW_IN_ROUND_8]
    seeded = seed_new_targets(net, trained, kb, vocab)
    assert seeded == [f"mine:{i}" for i in NEW_IN_ROUND_8]

    def row(key: str) -> int:
        a, i = key.split(":")
        return int(goal_code(Goal(a, {i: 1}), vocab, kb)[1])

    mines = sorted({row(k) for k in trained if k.startswith("mine:")})
    after = net.goal_target.weight.detach()
    for key in seeded:
        assert torch.allclose(after[row(key)], before[mines].mean(0))
    untouched = [r for r in range(len(after)) if r not in {row(k) for k in seeded}]
    assert torch.equal(after[untouched], before[untouched])  # the trained goals' rows and the rest as they were


def test_a_training_world_made_for_its_goal_s_source_holds_that_source(kb):
    """With --source-biome-p, a fresh world whose first goal mines a block that forms or grows
    only in some biomes is made there: emerald under extreme hills, cactus in a desert, log2 in a savanna."""
    import numpy as np

    from training.controller.data import source_biome
    from worlds.gridworld.batch import BatchGridWorld
    from worlds.gridworld.sources import goal_sources
    from worlds.types import Goal

    assert source_biome(kb, Goal("kill", {"cow": 1})) == {}
    assert source_biome(kb, Goal("mine", {"emerald": 1})) == {"biome": "extreme_hills"}
    env = BatchGridWorld(1, kb)
    for item in ("emerald", "cactus", "log2"):
        goal = Goal("mine", {item: 1})
        cells = sorted(goal_sources(env, goal)[0])
        plain, made = 0, 0
        for seed in range(6):
            env.reset([seed], [{"biome": "plains"} if item != "emerald" else {}])
            plain += int(np.isin(env.cells[0], cells).any())
            env.reset([seed], [source_biome(kb, goal)])
            made += int(np.isin(env.cells[0], cells).any())
        assert made == 6 and plain < 6, (item, plain, made)


def test_source_biome_p_out_of_range_is_one_line_and_exit_2(capsys, tmp_path):
    from training.controller.pipeline import main

    assert main(["--out", str(tmp_path), "--source-biome-p", "1.5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--source-biome-p" in err[0] and "from 0 to 1" in err[0]


def test_with_data_appends_another_run_s_expert_rows_and_refuses_a_folder_without_them(tmp_path):
    from skills.learned.paths import LearnedError
    from training.controller.pipeline import with_rows

    def rows(n: int, first: int) -> dict:
        return {"action": torch.arange(first, first + n), "pursuit": torch.full((n,), first)}

    (tmp_path / "data").mkdir()
    torch.save(rows(3, 10), tmp_path / "data" / "bc-0.pt")
    torch.save(rows(2, 20), tmp_path / "data" / "bc-1.pt")
    torch.save(rows(5, 30), tmp_path / "data" / "round1-0.pt")  # a DAgger round's learner rows: not expert rows
    merged, more = with_rows(rows(4, 0), str(tmp_path))
    assert more == 5 and merged["action"].tolist() == [0, 1, 2, 3, 10, 11, 12, 20, 21]
    with pytest.raises(LearnedError, match="holds no expert rows"):
        with_rows(rows(4, 0), str(tmp_path / "nothing"))
