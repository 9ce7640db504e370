"""Weather in the grid world: clear and rainy spells of the game's lengths
(worlds/data/gridworld.yaml `weather:`), as a seeded schedule per world.

The schedule is drawn once at reset from its own random stream (the map's and the mobs'
streams are untouched), and read by the clock: `raining(clock)`.  Nothing in the world
steps it, and rain changes nothing but what the world reports (context_state's
"weather"): MP5's context tasks ask for it.  A dry biome (desert, savanna) reads clear.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from worlds.gridworld.spec import GridWorldError, game_data

KINDS = ("clear", "rain")
HORIZON_DAYS = 12.0  # the schedule is drawn this far ahead (no episode runs longer)


@dataclass
class Schedule:
    ends: list[int]  # clock at which each spell ends (ascending)
    rain: list[bool]  # whether each spell is rain

    def raining(self, clock: int) -> bool:
        k = bisect.bisect_right(self.ends, int(clock))
        return self.rain[min(k, len(self.rain) - 1)]


def check_weather(weather: str | None) -> None:
    if weather is not None and weather not in KINDS:
        raise GridWorldError(f"unknown weather {weather!r} for the grid world; accepted: {', '.join(KINDS)}")


def schedule(seed: int, start: str | None, clock0: int, day_steps: int) -> Schedule:
    """Spells from `clock0` on: the first is `start` (default: the data's, clear), each of a
    length drawn uniformly from the data's range for its kind."""
    check_weather(start)
    w = game_data()["weather"]
    rng = np.random.default_rng([int(seed), 0x77EA])
    rain = (start or w["start"]) == "rain"
    ends, kinds, t = [], [], int(clock0)
    while t < clock0 + HORIZON_DAYS * day_steps:
        lo, hi = w["rain_days" if rain else "clear_days"]
        t += max(1, int(rng.uniform(lo, hi) * day_steps))
        ends.append(t)
        kinds.append(rain)
        rain = not rain
    return Schedule(ends, kinds)


def dry(biome: str) -> bool:
    return game_data()["biomes"].get(biome, {}).get("rain", True) is False
