"""The most a chance-drop goal can succeed on the skill table's worlds: every source block of
the map broken once (or decayed), each a draw at the item's chance (an apple: 1 oak leaf in
200).  A world with L such blocks gives the item with probability 1 - (1 - p)^L, whatever
the agent does; the mean over the table's worlds bounds both controllers' success.

    python -m experiments.chance_bound --goal mine:apple --episodes 50 --seed 1
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np


def chance_bound(goal_key: str, episodes: int, seed: int) -> dict:
    """{"goal", "worlds", "sources": per world, "bound": mean chance the map gives the item}."""
    from experiments.skill_table import check_skills, episodes_for
    from worlds.gridworld.batch import BatchGridWorld
    from worlds.gridworld.sources import goal_sources
    from worlds.knowledge import load_kb

    bad = check_skills(goal_key)
    if bad or ":" not in goal_key:
        raise ValueError(bad or f"--goal {goal_key!r} names a skill, not a goal; accepted: e.g. mine:apple")
    kb = load_kb("1.11.2")
    eps = episodes_for(episodes, seed, goal_key)
    env = BatchGridWorld(len(eps), kb)
    env.reset([s for _, s, _ in eps], [o for _, _, o in eps])
    goal = eps[0][0]
    item = next(iter(goal.obj))
    ids = {env.vocab.item_id[x] for x in (kb.variants(item) or [item]) if x in env.vocab.item_id}
    cells, _ = goal_sources(env, goal)
    chance = {c: sum(q for it, q in env.rules.chance[c] if it in ids) for c in cells}
    if not chance or not all(0 < q < 1 for q in chance.values()):
        raise ValueError(f"{goal_key} is not a chance drop of the blocks that give it; accepted: e.g. mine:apple")
    flat = env.cells.reshape(len(eps), -1)
    counts = {c: (flat == c).sum(axis=1) for c in chance}
    miss = np.ones(len(eps))
    for c, q in chance.items():
        miss *= (1.0 - q) ** counts[c]
    return {
        "goal": goal_key,
        "worlds": len(eps),
        "sources": [int(sum(counts[c][k] for c in chance)) for k in range(len(eps))],
        "bound": round(float((1.0 - miss).mean()), 3),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m experiments.chance_bound",
        description="The highest success a chance-drop goal can have on the skill table's worlds.",
    )
    ap.add_argument(
        "--goal", default="mine:apple", help="a trained goal whose item is a chance drop (default: mine:apple)"
    )
    ap.add_argument("--episodes", type=int, default=50, help="worlds, as the skill table's --episodes (default: 50)")
    ap.add_argument("--seed", type=int, default=1, help="as the skill table's --seed (default: 1)")
    a = ap.parse_args(argv)
    if a.episodes < 1:
        ap.error("--episodes must be 1 or more")
    try:
        out = chance_bound(a.goal, a.episodes, a.seed)
    except ValueError as e:
        ap.error(str(e))
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
