"""The goal's target map (skills/learned/sense.py) and the networks that read it: an ore below
the agent is counted in its band and column, a mob in its own; a net with target bands reads
them packed after the surroundings map, refuses a map of another band count, and the
controller and the collection feed it; the issue-20 pipeline and skill table refuse bad input
with one line and exit 2."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from skills.learned import sense
from skills.learned.features import net_shape
from skills.learned.model import GoalNet
from skills.learned.surround import KEY, RADIUS, SIDE, observe
from tests.test_learned import flat  # the same flat worlds
from worlds.gridworld import ground
from worlds.gridworld.spec import make_vocab
from worlds.types import Goal


def band_of(dy: int) -> int:
    return next(b for b, (lo, hi) in enumerate(sense.BANDS) if lo <= dy <= hi)


def test_an_ore_deep_below_is_counted_in_its_band_and_column(kb):
    # the agent stands at y 65; iron ore 9 levels down, 4 cells east and 1 north
    w = flat(kb, blocks=[(16, 56, 11, "iron_ore"), (16, 55, 11, "iron_ore")])
    m = sense.target_map(w.env, [w.i], [sense.lut(w.env, Goal("mine", {"iron_ore": 1}))])
    assert m.shape == (1, len(sense.BANDS), SIDE, SIDE) and m.dtype == np.uint8
    b = band_of(56 - 65)
    assert m[0, b].sum() == 2 and m.sum() == 2
    z, x = np.argwhere(m[0, b])[0]
    assert (z, x) == ((11 - 12 + RADIUS) // 3, (16 - 12 + RADIUS) // 3)
    # another goal's map does not see the ore
    assert sense.target_map(w.env, [w.i], [sense.lut(w.env, Goal("mine", {"coal": 1}))]).sum() == 0


def test_a_mob_is_counted_in_the_local_band(kb):
    w = flat(kb, mobs=[(15, 65, 12, "cow")])
    m = sense.target_map(w.env, [w.i], [sense.lut(w.env, Goal("kill", {"cow": 1}))])
    assert m[0, band_of(0)].sum() == 1 and m.sum() == 1


def test_an_eggs_map_counts_the_chickens_that_lay_it_and_the_eggs_lying_about(kb):
    """Round 12: an egg is picked up, not mined, so no cell or mob was its source and its map was
    empty: the policy saw neither the chicken to wait by nor the egg to walk to."""
    w = flat(kb, mobs=[(15, 65, 12, "chicken")])
    env = w.env
    env.ground_age[w.i] = -1  # no egg lying about yet
    egg = sense.lut(env, Goal("mine", {"egg": 1}))
    m = sense.target_map(env, [w.i], [egg])
    assert m[0, band_of(0)].sum() == 1 and m.sum() == 1  # the chicken
    ground.drop(env, w.i, (8, 65, 18), env.vocab.item_id["egg"])  # an egg laid 4 west, 6 south
    m = sense.target_map(env, [w.i], [egg])
    assert m.sum() == 2 and m[0, band_of(0), (18 - 12 + RADIUS) // 3, (8 - 12 + RADIUS) // 3] == 1
    # a chicken is not a source of what a kill or a mine of another item wants
    assert sense.target_map(env, [w.i], [sense.lut(env, Goal("mine", {"log": 1}))]).sum() == 0


def test_a_net_with_target_bands_reads_them_packed_after_the_surroundings_map(kb, vocab):
    shape = net_shape(vocab, target=len(sense.BANDS), aux=1)
    net = GoalNet(shape).eval()
    w = flat(kb, blocks=[(16, 56, 11, "iron_ore")])
    obs = observe(w)
    plain = torch.as_tensor(obs[KEY][None])
    packed = torch.as_tensor(
        sense.pack(obs[KEY][None], sense.target_map(w.env, [w.i], [sense.lut(w.env, Goal("mine", {"iron_ore": 1}))]))
    )
    assert packed.shape[1] == shape.n_cells + len(sense.BANDS)
    grid = torch.zeros(1, shape.grid_layers, shape.view, shape.view, dtype=torch.long)
    vec, goal, faced = torch.zeros(1, shape.vec_dim), torch.zeros(1, 2, dtype=torch.long), torch.zeros(1, 2)
    with torch.no_grad():
        a, _ = net(grid, vec, goal, around=packed, faced=faced)
        b, _ = net(grid, vec, goal, around=plain, faced=faced)  # no bands: no source in sight
        out = net.heads(net.encode(grid, vec, goal, around=packed, faced=faced))
    assert not torch.equal(a, b)
    assert out["aux_dir"].shape == (1, 27) and out["aux_dist"].shape == (1,)
    with pytest.raises(ValueError, match="bands"):
        net(grid, vec, goal, around=packed[:, :-1], faced=faced)


def test_old_checkpoints_load_without_target_bands(vocab, tmp_path):
    from skills.learned import checkpoint

    path = checkpoint.save(tmp_path / "c.pt", GoalNet(net_shape(vocab)), vocab_version=vocab.version, goals=[], card={})
    net, _ = checkpoint.load(path, expected=net_shape(vocab), vocab=vocab)
    assert net.shape.target == 0 and net.shape.aux == 0


def test_the_controller_feeds_the_target_map_to_a_net_that_reads_it(kb, vocab):
    from skills.learned.policy import GoalPolicy

    policy = GoalPolicy(GoalNet(net_shape(vocab, target=len(sense.BANDS))).eval(), kb, {"goals": ["mine:log"]})
    out, seen = mine_a_log_watching(kb, policy, [policy])
    assert out["driver"] == "policy" and seen
    assert all(s[0] == policy.net.shape.n_cells + len(sense.BANDS) for s in seen)


def mine_a_log_watching(kb, policy, parts) -> tuple[dict, list[tuple]]:
    """The learned controller with `policy` mines a log on a flat world; each shape of the
    surroundings map that `parts` (GoalPolicy each) were given, in order."""
    from skills.grid_controller import GridScriptedController
    from skills.learned.controller import LearnedController

    seen: list[tuple] = []
    for part in parts:
        real = part.logits

        def spy(obs, codes, real=real):
            seen.append(np.asarray(obs[KEY]).shape)
            return real(obs, codes)

        part.logits = spy
    ctl = LearnedController(kb, policy, GridScriptedController(kb), goal_budget=3)
    return ctl.run(Goal("mine", {"log": 1}), flat(kb, blocks=[(15, 65, 12, "oak_log")])), seen


def test_collection_with_the_target_map_gives_auxiliary_labels(kb):
    from training.controller.data import collect

    data, stats = collect(kb, 2, 3, n_envs=2, target=True)
    n = len(data["action"])
    assert n > 0 and stats["ok"] >= 1
    v = make_vocab(kb)  # the kinds as the network reads them (a jungle log as an oak log: spec.py)
    assert data["around"].shape[1] == v.n_policy_cells + v.n_policy_mobs + len(sense.BANDS)
    assert data["aux_dir"].shape == (n,) and int(data["aux_dir"].max()) < 27
    assert (data["aux_dir"] >= 0).any() and bool((data["aux_dist"] >= 0).all())


def test_the_pipeline_refuses_bad_input_with_one_line(capsys, tmp_path):
    from training.controller.pipeline import main

    assert main(["--out", str(tmp_path), "--episodes", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("pipeline: error:")
    if not torch.cuda.is_available():
        assert main(["--out", str(tmp_path), "--device", "cuda"]) == 2
        assert "no CUDA device" in capsys.readouterr().err


def test_the_pipelines_focus_names_goals_and_weights_or_is_refused(capsys, tmp_path):
    from training.controller.data import FOCUS
    from training.controller.pipeline import focus_weights, goals, main

    assert focus_weights("") == FOCUS
    assert focus_weights("mine:diamond=2.5, mine:reeds=2") == {"mine:diamond": 2.5, "mine:reeds": 2.0}
    one = focus_weights("*=0.001,mine:apple=3")  # every goal not named, wherever the * stands
    assert one["mine:apple"] == 3.0 and set(one) == set(goals())
    assert {w for g, w in one.items() if g != "mine:apple"} == {0.001}
    for bad in ("mine:moon=2", "mine:diamond=0", "mine:diamond=x", "mine:diamond", "*=0"):
        assert main(["--out", str(tmp_path), "--focus", bad]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "bad --focus entry" in err[0] and "mine:diamond" in err[0]


def test_the_skill_table_refuses_a_checkpoint_of_another_shape(capsys, tmp_path, vocab):
    from dataclasses import replace

    from experiments.skill_table import main
    from skills.learned import checkpoint

    bad = replace(net_shape(vocab), n_actions=3)
    path = checkpoint.save(tmp_path / "bad.pt", GoalNet(bad), vocab_version=vocab.version, goals=[], card={})
    assert main(["--episodes", "1", "--checkpoint", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "another shape" in err[0]


def test_the_pipeline_resumes_from_what_its_directory_holds(tmp_path, capsys):
    """A stopped run goes on: the data parts and the behaviour-cloning checkpoint already in DIR
    are taken up, not made again, and the card still counts the pursuits."""
    import json

    from training.controller.pipeline import main

    args = ["--out", str(tmp_path), "--workers", "1", "--episodes", "2", "--steps", "2", "--batch-size", "8"]
    args += ["--focus", "mine:dirt=1,*=0.001"]  # two short pursuits that end well, whatever the goals list holds
    args += ["--channels", "4", "--hidden", "16", "--rounds", "0"]
    assert main(args) == 0
    part, bc = tmp_path / "data" / "bc-0.pt", tmp_path / "bc" / "controller.pt"
    stamps = (part.stat().st_mtime_ns, bc.stat().st_mtime_ns)
    capsys.readouterr()
    assert main([*args, "--resume"]) == 0
    assert (part.stat().st_mtime_ns, bc.stat().st_mtime_ns) == stamps
    card = json.loads((tmp_path / "controller.card.json").read_text())
    assert card["data"]["expert_pursuits"] >= 2 and card["shape"]["target"] == len(sense.BANDS)
