"""The surroundings map's first layer (model.py `_around_in`): the goal's gate and the FiLM folded
into each world's weights, over the kinds some world of the batch has in view, gives the logits
and the gradients of the plain formulation (gate the map, 1x1 conv, modulate) to float rounding,
so the shipped checkpoints act as they were measured and train as before (issue 21)."""

from __future__ import annotations

import numpy as np
import torch

from skills.learned import sense
from skills.learned.features import net_shape
from skills.learned.model import GoalNet
from tests.test_model_rings import random_inputs, run
from worlds.gridworld.spec import make_vocab
from worlds.knowledge import load_kb


def plain(net: GoalNet, counts, g, scale, shift):
    a = torch.log1p(counts.float()) * torch.sigmoid(net.around_gate(g))[:, :, None, None]
    return net.around_in(a) * (1 + scale[:, :, None, None]) + shift[:, :, None, None]


def test_folded_gate_and_film_give_the_plain_logits_and_gradients():
    torch.manual_seed(0)
    shape = net_shape(make_vocab(load_kb("1.11.2")), target=len(sense.BANDS), channels=8, hidden=32)
    net = GoalNet(shape)
    rng = np.random.default_rng(2)
    b = 5
    counts = rng.integers(0, 9, (b, shape.n_cells + shape.target, shape.around, shape.around))
    counts[:, 3:20] = 0  # kinds no world has in view: left out of the sum
    counts[0, 25:30] = 0  # and kinds only some worlds have
    inputs = random_inputs(shape, counts, rng)
    fast, fast_grads = run(net, inputs)
    net._around_in = lambda c, g, scale, shift: plain(net, c, g, scale, shift)  # the formulation it replaced
    slow, slow_grads = run(net, inputs)
    torch.testing.assert_close(fast, slow, rtol=1e-5, atol=1e-5)
    assert len(fast_grads) == len(slow_grads) > 10
    for f, s in zip(fast_grads, slow_grads):
        torch.testing.assert_close(f, s, rtol=1e-4, atol=1e-6)


def test_in_bfloat16_it_stays_as_close_to_fp32_as_the_plain_formulation():
    torch.manual_seed(1)
    shape = net_shape(make_vocab(load_kb("1.11.2")), target=len(sense.BANDS), channels=16, hidden=64)
    net = GoalNet(shape).eval()
    rng = np.random.default_rng(3)
    counts = torch.from_numpy(rng.integers(0, 6, (64, shape.n_cells, shape.around, shape.around)).astype(np.uint8))
    g = torch.randn(64, shape.hidden)
    scale, shift = torch.randn(64, shape.channels) * 0.1, torch.randn(64, shape.channels) * 0.1
    with torch.inference_mode():
        exact = plain(net, counts, g, scale, shift)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            folded = net._around_in(counts, g, scale, shift).float()
            before = plain(net, counts, g, scale, shift).float()
    err_folded, err_before = (folded - exact).abs().mean(), (before - exact).abs().mean()
    assert err_folded <= 1.5 * err_before, (err_folded, err_before)
