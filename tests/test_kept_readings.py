"""The policy keeps the network's readings of the grid and maps for the rows where they and the goal
did not change (skills/learned/kept.py, issue 21), and its logits are those of a policy that reads
every row afresh: through a batched world's own steps, a row written in place between calls, a batch
of another size, goals that change, and weights moved in place or replaced between calls."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from skills.learned import sense, surround
from skills.learned.features import net_shape
from skills.learned.model import GoalNet
from skills.learned.policy import GoalPolicy
from worlds.gridworld.batch import BatchGridWorld
from worlds.gridworld.spec import make_vocab
from worlds.knowledge import load_kb
from worlds.types import Goal


@pytest.fixture(scope="module")
def kb():
    return load_kb("1.11.2")


def pair(kb, near: bool) -> tuple[GoalPolicy, GoalPolicy]:
    torch.manual_seed(3)
    net = GoalNet(
        net_shape(make_vocab(kb), target=len(sense.BANDS), near=len(sense.NEAR_LEVELS) if near else 0, channels=8)
    ).eval()
    card = {"goals": []}
    return GoalPolicy(net, kb, card, precision="fp32"), GoalPolicy(net, kb, card, precision="fp32", keep_readings=False)


def observe(env, policy, codes, luts, rows):
    obs = {**env.observe(), surround.KEY: surround.around(env, rows)}
    sub = {k: v[rows] if isinstance(v, np.ndarray) and v.ndim and len(v) == env.n else v for k, v in obs.items()}
    return sense.add_to(sub, env, rows, [luts[r] for r in rows], near=sense.near_rows(policy, codes))


@pytest.mark.parametrize("near", [False, True])
def test_kept_readings_give_the_logits_of_a_fresh_reading(kb, near):
    kept, fresh = pair(kb, near)
    n = 12
    env = BatchGridWorld(n, kb)
    env.reset(list(range(n)))
    goals = [
        (Goal("mine", {"log": 1}), Goal("kill", {"cow": 1}), Goal("mine", {"iron_ore": 1}))[i % 3] for i in range(n)
    ]
    luts = [sense.lut(env, g) for g in goals]
    rng = np.random.default_rng(0)
    for step in range(24):
        rows = np.arange(n) if step % 7 != 5 else np.arange(0, n, 2)  # now and then a batch of another size
        codes = kept.codes([goals[r] for r in rows])
        if step % 5 == 4:  # a goal that changes on one row, its maps unchanged
            codes[0, 1] = kept.codes([Goal("mine", {"stone": 1})])[0, 1]
        obs = observe(env, kept, codes, luts, rows)
        if step % 6 == 3:  # the caller writes a row's maps in place after one call
            kept.logits(obs, codes)
            obs[surround.KEY][1, 0] += 1
        a, b = kept.logits(obs, codes)[0], fresh.logits(obs, codes)[0]
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-4)
        if step == 11:  # weights moved in place, as an optimiser's step does
            with torch.no_grad():
                kept.net.around_fc.bias.add_(0.5)
        acts = rng.integers(0, 10, n)  # moves, turns, attacks and idle steps, so some rows keep their maps
        env.step(np.stack([acts, np.full(n, -1)], axis=1).astype(np.int64))
    reused = kept.kept.reused
    assert all(reused.get(k, 0) > 0 for k in ("grid", "target", "around")), reused  # it did keep some rows
    assert not near or reused.get("near", 0) > 0, reused


def test_a_fit_between_calls_is_read_afresh(kb):
    kept, _ = pair(kb, False)
    n = 4
    env = BatchGridWorld(n, kb)
    env.reset(list(range(n)))
    goals = [Goal("mine", {"log": 1})] * n
    luts, rows = [sense.lut(env, g) for g in goals], np.arange(n)
    codes = kept.codes(goals)
    obs = observe(env, kept, codes, luts, rows)
    before = kept.logits(obs, codes)[0]
    assert torch.equal(kept.logits(obs, codes)[0], before)
    assert kept.kept.reused["around"] == n  # the second call reused every row
    opt = torch.optim.SGD(kept.net.parameters(), lr=0.1)
    kept.net.train()
    loss = kept.net(*_tensors(kept, obs, codes))[0].square().mean()
    loss.backward()
    opt.step()
    kept.net.eval()
    after = kept.logits(obs, codes)[0]
    assert not torch.equal(after, before)
    torch.testing.assert_close(
        after, GoalPolicy(kept.net, kb, {}, precision="fp32", keep_readings=False).logits(obs, codes)[0]
    )
    assert kept.kept.reused["around"] == n  # nothing more was reused after the step
    kept.logits(obs, codes)
    assert kept.kept.reused["around"] == 2 * n
    with torch.no_grad():  # a weight replaced by another tensor, not written in place
        kept.net.around_fc.bias.data = kept.net.around_fc.bias.data + 1.0
    torch.testing.assert_close(
        kept.logits(obs, codes)[0],
        GoalPolicy(kept.net, kb, {}, precision="fp32", keep_readings=False).logits(obs, codes)[0],
    )
    assert kept.kept.reused["around"] == 2 * n


def _tensors(policy, obs, codes):
    from skills.learned.features import encode_extras, encode_obs, extra_tensors, to_tensors

    grid, vec = encode_obs(obs, policy.vocab)
    g, v, c = to_tensors(grid, vec, codes, "cpu")
    ex = extra_tensors(encode_extras(obs, policy.vocab, policy.net.shape), policy.net.shape, "cpu")
    return g, v, c, ex["around"], ex["faced"]


def test_a_map_packed_without_the_target_bands_is_read_as_before(kb):
    """A caller that packs no target map (a speed bench, a test's hand-made observation) gives the
    target reader rows of no channels: the second call reuses them instead of failing to compare."""
    kept, fresh = pair(kb, False)
    env = BatchGridWorld(3, kb)
    env.reset([0, 1, 2])
    obs = {**env.observe(), surround.KEY: surround.around(env)}  # the surroundings map alone
    codes = kept.codes([Goal("mine", {"log": 1})] * 3)
    for _ in range(2):
        torch.testing.assert_close(kept.logits(obs, codes)[0], fresh.logits(obs, codes)[0])
    assert kept.kept.reused["target"] == 3
