"""A trained network given a new input, acting exactly as it did until the fit moves it.

`with_near(net)` adds the near map (skills/learned/sense.py: near_map, issue 20 round 19) to a
network that never read one: every weight it had is kept, the near map's convolutions start as
a fresh layer does, and the layer that adds their features to the local grid's starts at zero.
So its first DAgger round starts from the policy that was measured, not from a perturbed one,
and the gradient reaches the new weights through that zeroed layer from the first step.
"""

from __future__ import annotations

from dataclasses import replace

from torch import nn

from skills.learned.model import GoalNet
from skills.learned.sense import NEAR_LEVELS


def with_near(net: GoalNet) -> GoalNet:
    """`net` with the near map as an input (a copy; `net` is left as it was)."""
    if net.shape.near:
        return net
    wide = GoalNet(replace(net.shape, near=len(NEAR_LEVELS)))
    missing, unexpected = wide.load_state_dict(net.state_dict(), strict=False)
    assert not unexpected and all(k.startswith("near_") for k in missing), (missing, unexpected)
    nn.init.zeros_(wide.near_fc.weight)
    nn.init.zeros_(wide.near_fc.bias)
    device = next(net.parameters()).device
    return wide.to(device).train(net.training)
