"""The network's ring maxima (model.py `_rings`, each ring read as the four sides of its square) are
those of a masked read per ring, so the shipped checkpoint computes the same logits as before the
speed-ups of issue 21, and training the same gradients up to float rounding (the maps are laid out
channels-last, so a gradient's sums may run in another order)."""

from __future__ import annotations

import numpy as np
import torch

from skills.learned import sense
from skills.learned.features import net_shape
from skills.learned.model import GoalNet
from worlds.gridworld.spec import make_vocab
from worlds.knowledge import load_kb


def masked_rings(net: GoalNet, x: torch.Tensor) -> torch.Tensor:
    flat = x.flatten(2)
    return torch.stack([flat[:, :, m].amax(-1) for m in net.ring_of], dim=-1)


def random_inputs(shape, counts: np.ndarray, rng: np.random.Generator) -> dict:
    """The network's keyword inputs for len(counts) worlds: random ids and numbers, these map counts."""
    b = len(counts)
    return {
        "grid": torch.from_numpy(rng.integers(0, shape.n_cells, (b, shape.grid_layers, shape.view, shape.view))),
        "vec": torch.from_numpy(rng.random((b, shape.vec_dim)).astype(np.float32)),
        "goal": torch.from_numpy(
            np.stack([rng.integers(0, shape.n_skills, b), rng.integers(0, shape.n_targets, b)], 1)
        ),
        "around": torch.from_numpy(counts.astype(np.uint8)),
        "faced": torch.from_numpy(rng.integers(0, shape.n_cells, (b, 2))),
    }


def run(net: GoalNet, inputs: dict) -> tuple[torch.Tensor, list[torch.Tensor]]:
    net.zero_grad()
    logits, horizon = net(**inputs)
    (logits.square().sum() + horizon.sum()).backward()
    return torch.cat([logits, horizon], 1), [p.grad.clone() for p in net.parameters() if p.grad is not None]


def test_ring_maxima_logits_and_gradients_equal_a_masked_read_per_ring():
    torch.manual_seed(0)
    vocab = make_vocab(load_kb("1.11.2"))
    shape = net_shape(vocab, target=len(sense.BANDS), channels=8, hidden=32)
    net = GoalNet(shape)
    rng = np.random.default_rng(1)
    b = 6
    counts = rng.integers(0, 4, (b, shape.n_cells + shape.target, shape.around, shape.around)) * (
        rng.random((b, 1, shape.around, shape.around)) < 0.3
    )  # mostly empty: many ties at zero after the ReLU
    inputs = random_inputs(shape, counts, rng)
    x = torch.randn(b, 8, shape.around, shape.around).relu()
    assert torch.equal(net._rings(x), masked_rings(net, x))
    fast, fast_grads = run(net, inputs)
    net._rings = lambda x: masked_rings(net, x)  # the formulation it replaced
    slow, slow_grads = run(net, inputs)
    assert torch.equal(fast, slow)
    assert len(fast_grads) == len(slow_grads) > 10
    assert all(torch.allclose(f, s, rtol=1e-5, atol=1e-7) for f, s in zip(fast_grads, slow_grads))


def test_rings_read_the_same_maxima_from_a_channels_last_map():
    torch.manual_seed(2)
    net = GoalNet(net_shape(make_vocab(load_kb("1.11.2")), target=len(sense.BANDS), channels=8, hidden=32))
    x = torch.randn(5, 8, net.shape.around, net.shape.around).relu()
    last = x.contiguous(memory_format=torch.channels_last)
    assert torch.equal(net._rings(last), masked_rings(net, x))
    assert torch.equal(net._rings(x), masked_rings(net, x))
