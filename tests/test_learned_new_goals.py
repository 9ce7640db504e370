"""Issue 20, round 8: the goals the oracle's routes mine on the harvest list join the policy's
training goals without moving the older goals' evaluation worlds, and a fine-tune from an older
checkpoint starts each new goal as "a thing to mine" rather than from a random embedding."""

from __future__ import annotations

import pytest
import torch

from training.controller.data import (
    NEW_IN_ROUND_8,
    NEW_IN_ROUND_35,
    NEW_IN_ROUND_36,
    NEW_IN_ROUND_37,
    NEW_IN_ROUND_40,
    NEW_KILLS_IN_ROUND_37,
    TRAIN_GOALS,
)


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


@pytest.mark.parametrize(
    ("round_goals", "biomes"),
    [
        (NEW_IN_ROUND_35, ("jungle", "swampland")),
        (NEW_IN_ROUND_36, None),  # obsidian: lava lakes are under every biome
        ({**NEW_IN_ROUND_37, **dict.fromkeys(NEW_KILLS_IN_ROUND_37, {})}, ("swampland", "ice_plains")),
        (NEW_IN_ROUND_40, ("sunflower_plains", "flower_forest")),
    ],
    ids=["round 35", "round 36", "round 37", "round 40"],
)
def test_adding_a_round_s_goals_left_the_other_evaluation_worlds_as_they_were(monkeypatch, kb, round_goals, biomes):
    from training.controller import train
    from worlds.gridworld.batch import BatchGridWorld
    from worlds.gridworld.sources import source_blocks

    everything = train.eval_episodes(2 * len(train.TRAIN_GOALS), 1)
    new = [e for e in everything if next(iter(e[0].obj)) in round_goals]
    assert len(new) == 2 * len(round_goals)
    probe = BatchGridWorld(1, kb)
    for goal, seed, options in new:  # a world of the biome it grows in, holding the goal's source
        assert biomes is None or options["biome"] in biomes
        probe.reset([seed], [options])
        if goal.action == "kill":  # the ice plains' rabbits (for a rabbit's foot too)
            assert (probe.mob_kind[0] == probe.vocab.mob_id["rabbit"]).any()
        else:
            assert source_blocks(probe, 0, goal) > 0
    monkeypatch.setattr(train, "TRAIN_GOALS", tuple(g for g in train.TRAIN_GOALS if g[1] not in round_goals))
    before = train.eval_episodes(2 * len(train.TRAIN_GOALS), 1)
    old = [(g.code(), s, o) for g, s, o in everything if next(iter(g.obj)) not in round_goals]
    assert old == [(g.code(), s, o) for g, s, o in before]


def test_every_goal_the_oracle_mines_for_the_harvest_list_is_a_training_goal(kb):
    """The routes of the harvest list the grid world takes (experiments/world_parity.py's suite:
    2,400 steps from dawn, so no spider for string comes in time, nor does wheat ripen) ask the
    policy for no goal outside TRAIN_GOALS (the tall flowers' since round 40)."""
    from types import SimpleNamespace

    from experiments.world_parity import BUDGET
    from skills.learned.controller import route_goals
    from skills.learned.features import goal_key
    from worlds.gridworld.coverage import budget_refusal, refusal
    from worlds.gridworld.world import GridWorld
    from worlds.solver import Unreachable, solve

    trained = {f"{a}:{i}" for a, i, _, _ in TRAIN_GOALS}
    missing = set()
    for item in kb.item_names():
        try:
            if (
                not solve(kb, {item: 1}, {})
                or refusal(kb, {item: 1})
                or budget_refusal(kb, {item: 1}, {}, 0, GridWorld.budget_steps(BUDGET))
            ):
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


def test_new_goals_only_fits_their_embeddings_and_leaves_every_other_weight_as_it_was(kb, tmp_path):
    """Round 9: a fine-tune that must not slow the goals the checkpoint already drives freezes
    everything but the new goals' target rows; the rows of the other goals' pursuits move nothing."""
    from skills.learned import sense
    from skills.learned.features import net_shape
    from skills.learned.model import GoalNet
    from training.controller.pipeline import PipelineConfig, fit_stage, target_rows
    from worlds.gridworld.spec import make_vocab

    vocab = make_vocab(kb)
    torch.manual_seed(0)
    s = net_shape(vocab, channels=4, hidden=8, target=len(sense.BANDS), aux=1)
    net = GoalNet(s)
    before = {k: v.clone() for k, v in net.state_dict().items()}
    new = target_rows(["mine:log2", "mine:flint"], kb, vocab)
    old = target_rows(["mine:log", "mine:iron_ore"], kb, vocab)
    data = random_rows(s, new + old, 64)
    cfg = PipelineConfig(out=str(tmp_path), batch_size=16, save_every=1000)
    fit_stage(net, data, cfg, "bc", 20, 1e-2, 0, log=lambda m: None, rows=new)
    after = net.state_dict()
    for k, v in before.items():
        if k != "goal_target.weight":
            assert torch.equal(after[k], v), k
    w0, w1 = before["goal_target.weight"], after["goal_target.weight"]
    others = [r for r in range(len(w0)) if r not in new]
    assert torch.equal(w1[others], w0[others]) and not torch.equal(w1[new], w0[new])
    assert all(p.requires_grad for p in net.parameters())  # the freeze is undone for whatever comes next


def random_rows(s, target_rows: list[int], n: int) -> dict:
    """n training rows of random content for a net of shape s, their goals cycling over these
    goal-target rows."""
    return {
        "grid": torch.randint(0, s.n_cells, (n, s.grid_layers, s.view, s.view)),
        "vec": torch.rand(n, s.vec_dim),
        "goal": torch.stack([torch.ones(n, dtype=torch.long), torch.tensor(target_rows * (n // len(target_rows)))], 1),
        "action": torch.randint(0, s.n_actions, (n,)),
        "horizon": torch.randint(0, 50, (n,)),
        "around": torch.randint(0, 4, (n, s.n_cells + s.target, s.around, s.around), dtype=torch.uint8),
        "faced": torch.randint(0, s.n_cells, (n, 2)),
        "aux_dir": torch.randint(0, 27, (n,)),
        "aux_dist": torch.rand(n),
        "decide": torch.ones(n, dtype=torch.bool),
    }


def test_a_stopped_fit_goes_on_from_its_saved_state(kb, tmp_path):
    """A stage stopped after a save (DIR/state.pt) is taken up at that step by --resume, with the
    weights and optimiser it had; the state loads safely (weights only) though its optimiser's
    learning rate comes from the cosine schedule's numpy arithmetic."""
    from skills.learned import sense
    from skills.learned.features import net_shape
    from skills.learned.model import GoalNet
    from training.controller.pipeline import PipelineConfig, fit_stage, target_rows
    from worlds.gridworld.spec import make_vocab

    vocab = make_vocab(kb)
    torch.manual_seed(2)
    s = net_shape(vocab, channels=4, hidden=8, target=len(sense.BANDS), aux=1)
    data = random_rows(s, target_rows(["mine:log", "mine:flint"], kb, vocab), 32)
    cfg = PipelineConfig(out=str(tmp_path), batch_size=8, save_every=2)
    first = GoalNet(s)
    losses, start = fit_stage(first, data, cfg, "dagger1", 4, 1e-2, 0, log=lambda m: None)
    assert (len(losses), start) == (4, 0)
    saved = torch.load(tmp_path / "state.pt", weights_only=True)
    assert saved["step"] == 4 and isinstance(saved["opt"]["param_groups"][0]["lr"], float)
    said: list[str] = []
    again = GoalNet(s)
    resumed = PipelineConfig(out=str(tmp_path), batch_size=8, save_every=2, resume=True)
    losses, start = fit_stage(again, data, resumed, "dagger1", 6, 1e-2, 0, log=said.append)
    assert (len(losses), start) == (2, 4)
    assert said[0] == "dagger1: resumed at step 4" and torch.load(tmp_path / "state.pt")["step"] == 6
    # another stage's state is not taken up: the fit starts from step 0
    said.clear()
    assert fit_stage(GoalNet(s), data, resumed, "dagger2", 2, 1e-2, 0, log=said.append)[1] == 0
    assert not any("resumed" in m for m in said)


def test_new_goals_only_without_an_init_checkpoint_is_one_line_and_exit_2(capsys, tmp_path):
    from training.controller.pipeline import main

    assert main(["--out", str(tmp_path), "--new-goals-only", "--episodes", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--new-goals-only" in err[-1] and "no --init was given" in err[-1], err


def test_keep_old_adds_the_kl_to_the_teacher_on_the_goals_it_knew_only(kb):
    """--keep-old: a net equal to its teacher pays nothing; one that drifted pays on the rows of the
    goals the teacher knew, and its gradient pulls it back; rows of a new goal pay nothing."""
    import copy

    from skills.learned import sense
    from skills.learned.features import net_shape
    from skills.learned.model import GoalNet
    from training.controller.fit import losses
    from training.controller.pipeline import target_rows
    from worlds.gridworld.spec import make_vocab

    vocab = make_vocab(kb)
    torch.manual_seed(1)
    s = net_shape(vocab, channels=4, hidden=8, target=len(sense.BANDS), aux=1)
    net = GoalNet(s)
    teacher = copy.deepcopy(net).eval()
    old, new = target_rows(["mine:log"], kb, vocab), target_rows(["mine:log2"], kb, vocab)
    known = torch.zeros(s.n_targets, dtype=torch.bool)
    known[old] = True
    n = 8

    def batch(rows: list[int]) -> dict:
        return {
            "grid": torch.randint(0, s.n_cells, (n, s.grid_layers, s.view, s.view)),
            "vec": torch.rand(n, s.vec_dim),
            "goal": torch.stack([torch.ones(n, dtype=torch.long), torch.tensor(rows * n)], 1),
            "action": torch.randint(0, s.n_actions, (n,)),
            "horizon": torch.randint(0, 50, (n,)),
            "around": torch.randint(0, 4, (n, s.n_cells + s.target, s.around, s.around), dtype=torch.uint8),
            "faced": torch.randint(0, s.n_cells, (n, 2)),
        }

    b_old = batch(old)
    assert losses(net, b_old, 1.0, 0.0, (teacher, known, 1.0))[1]["keep"] < 1e-6
    with torch.no_grad():
        net.policy.weight.add_(torch.randn_like(net.policy.weight))
    total, parts = losses(net, b_old, 0.0, 0.0, (teacher, known, 1.0))
    assert parts["keep"] > 1e-3
    total.backward()
    assert net.policy.weight.grad.abs().sum() > 0
    assert "keep" not in losses(net, batch(new), 1.0, 0.0, (teacher, known, 1.0))[1]


def test_teacher_without_keep_old_is_one_line_and_exit_2(capsys, tmp_path):
    from training.controller.pipeline import main

    assert main(["--out", str(tmp_path), "--teacher", "skills/checkpoints/controller.pt", "--episodes", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--teacher" in err[-1] and "--keep-old" in err[-1], err


def test_source_seed_p_out_of_range_is_one_line_and_exit_2(capsys, tmp_path):
    from training.controller.pipeline import main

    assert main(["--out", str(tmp_path), "--source-seed-p", "-0.1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--source-seed-p" in err[0] and "from 0 to 1" in err[0]
