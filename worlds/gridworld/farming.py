"""How a farm for a route's crop is laid out and how long it takes: what the scripted expert plants
(skills/farm.py) and what the coverage layer reads from it (coverage.py: the map must hold the grass
for its seeds and water to farm by; a task whose budget cannot grow the crop is refused up front,
naming one that can).

The plot: rows of crops along one axis with a row of bare farmland on each side of every crop row,
all within the water's reach, so that no crop has another beside it on the other axis or on a
diagonal (1.11.2's halving, crops.py `points`): an inner crop scores 1 + 3 + 8 x 0.75 = 10 points
on moist farmland, a growth chance of 1/3 a random tick.  By a small pond there is often no room for
the bare rows, and the plot holds fewer crops than planned: the budget reckons each crop at the
chance of one with farmland only along its row, 1 + 3 + 2 x 0.75 = 5.5 points and 1/5 (with 1/4, a
row end's in a full plot, one hay bale's 9 wheat took 21,115 of the 21,353 steps it named).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from worlds.gridworld.crops import chance, crops, data, farmed, ids, tick_chance, ticks_per_step
from worlds.gridworld.spec import AIR, game_data

SPARE_SEEDS = 3  # crops planted beyond the count wanted: the first few to ripen are harvested
LEAST_SEEDS = 6  # a plot is never smaller: more crops ripen sooner (the k-th of n comes earlier)
MOST_SEEDS = 14  # two rows of seven: the plot's room near one pond
SETUP_STEPS = 1200  # steps for the seeds (8 grass broken a seed), tilling and planting, and the walk back
SURE = 0.99  # the budget's crops have ripened this often (as coverage.py's chance drops come)


def plot_seeds(count: int) -> int:
    """Seeds the expert plants for `count` of a crop's produce."""
    return max(LEAST_SEEDS, min(MOST_SEEDS, count + SPARE_SEEDS))


def cramped_chance() -> float:
    """The growth chance the budget reckons with: a crop on moist farmland with farmland only along
    its row (1/5)."""
    g = data()["growth"]
    return chance(float(g["base"]) + float(g["under_moist"]) + 2 * float(g["around_moist"]))


def _ripe_by(t: float, per_step: float, ages: int) -> float:
    """The chance one crop has grown all `ages` ages within t steps of daylight (an Erlang CDF)."""
    lam = per_step * t
    return 1.0 - sum(math.exp(-lam) * lam**k / math.factorial(k) for k in range(ages))


def daylight_steps(count: int, sure: float = SURE) -> float:
    """Steps of daylight by which `count` of the plot's crops have ripened with chance `sure`, each at
    `cramped_chance`; in rounds where the count is more than the plot holds."""
    ages = max(c.ages for c in crops())
    per_step = ticks_per_step() * tick_chance() * cramped_chance()
    n = plot_seeds(count)
    rounds, need = math.ceil(count / n), min(count, n)

    def enough(t: float) -> float:
        f = _ripe_by(t, per_step, ages)
        return sum(math.comb(n, j) * f**j * (1 - f) ** (n - j) for j in range(need, n + 1))

    lo, hi = 0.0, 100.0 * ages / per_step
    while hi - lo > 1.0:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if enough(mid) < sure else (lo, mid)
    return rounds * hi


def wall_steps(start: int, daylight: float) -> int:
    """Steps from clock step `start` until `daylight` steps of day have passed (crops grow only by day)."""
    d = game_data()
    day, (dusk, dawn) = int(d["day_steps"]), (float(f) for f in d["night"])
    t, left = int(start), float(daylight)
    while left > 0:
        f = (t % day) / day
        if dusk <= f < dawn:  # night: skip to dawn
            t += round((dawn - f) * day)
            continue
        until = ((dusk - f) % 1.0) * day  # steps of day left before dusk
        take = min(left, until)
        t += math.ceil(take)
        left -= take
    return t - int(start)


def farm_steps(produce: str, count: int, start: int) -> int:
    """Grid steps the scripted expert is given, from clock step `start`, to farm `count` of `produce`:
    the setup, and the daylight by which the crops have ripened 99 times in 100, nights added."""
    if farmed(produce) is None:
        return 0
    return SETUP_STEPS + wall_steps(start + SETUP_STEPS, daylight_steps(count))


def tillable_by_water(env: Any, i: int) -> tuple[np.ndarray, np.ndarray]:
    """(bool [X, Z]: columns whose top block is grass or dirt (or farmland) under open sky with water
    within reach at its level or one above; int [X, Z]: the top block's level)."""
    d = ids(env.vocab)
    cells = env.cells[i]
    H = cells.shape[2]
    filled = cells != AIR
    top = H - 1 - np.argmax(filled[:, :, ::-1], axis=2)
    head = np.take_along_axis(cells, top[:, :, None], axis=2)[:, :, 0]
    ok = np.isin(head, sorted(d.till | {d.farmland})) & filled.any(axis=2) & (top + 1 < H)
    water = cells == d.water
    r = int(data()["water_reach"])
    wet = np.zeros_like(ok)
    for y in np.unique(top[ok]).tolist():
        near = water[:, :, y] | (water[:, :, y + 1] if y + 1 < H else False)
        grown = near.copy()
        for axis in (0, 1):
            acc = grown.copy()
            for k in range(1, r + 1):
                if axis == 0:
                    acc[k:] |= grown[:-k]
                    acc[:-k] |= grown[k:]
                else:
                    acc[:, k:] |= grown[:, :-k]
                    acc[:, :-k] |= grown[:, k:]
            grown = acc
        wet |= ok & (top == y) & grown
    return wet, top


def farm_refusal(goals: list, target: dict[str, int], start: int, steps: int) -> str | None:
    """One line when a route's `goals` farm a crop (wheat, for bread) and the episode's `steps` from
    clock step `start` are fewer than `farm_steps` gives the scripted expert, naming a budget that is
    not (in a task's steps of 1/20 s, as `deps run --max-steps` takes them); else None."""
    farms = [next(iter(g.obj.items())) for g in goals if g.action == "mine"]
    farms = [(item, n) for item, n in farms if farmed(item) is not None]
    if not farms:
        return None
    need = sum(farm_steps(item, n, start) for item, n in farms)
    if steps >= need:
        return None
    d = game_data()
    task = math.ceil(need * float(d["seconds_per_step"]) / float(d["task_step_seconds"]))
    wanted = ", ".join(f"{n} {k}" for k, n in target.items())
    grown = " and ".join(f"{n} {item}" for item, n in farms)
    return (
        f"the grid world cannot give {wanted} in this episode: the recipe book's way to it farms {grown}, "
        f"which grows from seeds on tilled farmland by day only, {need} steps for the scripted expert, beyond the "
        f"episode's {steps}; accepted: a task with steps for the farm (max_steps {task} or more: "
        f"deps run --max-steps {task}, or a suite file's max_steps), or --world textworld"
    )


def short_for_farm(env: Any, i: int, crop: Any, n: int, seeds_expected: float) -> bool:
    """Whether world i's map lacks what a farm for `n` of a crop's produce needs: grass that gives
    `seeds_expected` seeds on average (coverage.py: enough that the plot's seeds all but surely come),
    or ground to till by water for twice the plot's crops (about half a plot is bare farmland)."""
    v, rules = env.vocab, env.rules
    seed = v.item_id[crop.seed]
    counts = np.bincount(env.cells[i].ravel(), minlength=len(v.cells))
    grass = [
        (c, p) for c in range(2, len(v.cells)) for it, p in rules.chance[c] if it == seed and not rules.own_drops[c]
    ]
    expected = sum(int(counts[c]) * p for c, p in grass)
    return expected < seeds_expected or int(tillable_by_water(env, i)[0].sum()) < 2 * plot_seeds(n)
