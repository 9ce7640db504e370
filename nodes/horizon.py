"""The `horizon` selector: DEPS's learned "S" (section 3.3).

Among the executable parallel goals (the candidates), it asks the trained horizon
predictor mu(h | s, g) how many steps each goal would take from the current state,
turns the expected horizons into DEPS's goal distribution f(g | s, P) proportional to
exp(-h(g)), and picks the most probable goal, i.e. the nearest one.

It needs a world with a body (the grid world): on the text world every skill is one
dictionary update, distance does not exist, and `fixed` stays the default there.
"""

from __future__ import annotations

import math
from typing import Any

from nodes.settings import RunSettings, SettingsError


class HorizonSelector:
    name = "horizon"

    def __init__(self, predictor: Any):
        self.predictor = predictor  # skills.learned.predictor.HorizonPredictor (or any .horizons(world, goals))

    def choose(self, goals, remaining, candidates, inventory, ctx):
        if not candidates:
            return remaining[0], {"rule": "no candidate holds; plan order"}
        if len(candidates) == 1:
            return candidates[0], {"rule": "only one candidate holds"}
        hs = self.predictor.horizons(ctx.world, [goals[i] for i in candidates])
        low = min(hs)
        weights = [math.exp(-(h - low) / max(low, 1.0)) for h in hs]  # f(g|s,P) ~ exp(-h), scaled
        total = sum(weights)
        best = min(range(len(candidates)), key=lambda k: (hs[k], candidates[k]))
        return candidates[best], {
            "rule": "least predicted horizon",
            "horizons": {str(i): round(h, 1) for i, h in zip(candidates, hs)},
            "distribution": {str(i): round(w / total, 3) for i, w in zip(candidates, weights)},
        }


def make_horizon_selector(settings: RunSettings) -> HorizonSelector:
    """The selector with the trained predictor for `settings.world`; one-line SettingsError
    when the world has no body or the checkpoint is missing or does not fit."""
    if settings.world != "gridworld":
        raise SettingsError(
            f"the horizon selector needs a world with distances; {settings.world!r} has none "
            "(accepted there: fixed, random, oracle; --world gridworld for horizon)"
        )
    from skills.learned.paths import LearnedError
    from skills.learned.predictor import HorizonPredictor

    try:
        return HorizonSelector(HorizonPredictor.load(device=getattr(settings, "device", None)))
    except LearnedError as e:
        raise SettingsError(str(e)) from None


def horizon_available(world: str) -> bool:
    """Whether `horizon` can be the default: a world with distances and a checkpoint present."""
    if world != "gridworld":
        return False
    from skills.learned.paths import available

    return available("selector")
