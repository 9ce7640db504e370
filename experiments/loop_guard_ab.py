"""What does the loop guard (nodes/loops.py) change? Each episode runs once with the guard off.
Sampling is seeded per round from the episode's seed, so a guarded run is the same episode up to
the plan where the guard would fire. From that one run both arms are read: whether and where the
guard fires, whether the unguarded episode went on to succeed (a success the guard would have
cost), and the LLM calls it would have saved.

    python -m experiments.loop_guard_ab --planner rider --llm local --max-rounds 4
"""

from __future__ import annotations

import argparse
import json
import sys

ITEMS = (
    "ladder",
    "boat",
    "wooden_door",
    "fence",
    "sign",
    "bowl",
    "chest",
    "wooden_shovel",
    "stone_axe",
    "furnace",
    "trapdoor",
    "wooden_slab",
)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.loop_guard_ab", description=__doc__.split("\n\n")[0])
    p.add_argument("--planner", default="rider", help="deps, dep or rider (default: rider)")
    p.add_argument("--llm", default="local", help="as for deps run (default: local)")
    p.add_argument("--max-rounds", type=int, default=4)
    p.add_argument("--seeds", type=int, default=1)
    p.add_argument("--items", default=",".join(ITEMS), help="comma-separated targets (default: 12 everyday items)")
    a = p.parse_args(argv)

    from agent.llm import llm_options, open_chat_model
    from agent.runner import run_episode
    from nodes.loops import loop_cause
    from nodes.planners.llm import DialoguePlanner
    from nodes.planners.rider import RiderPlanner
    from nodes.settings import RunSettings
    from worlds.knowledge import load_kb
    from worlds.types import Task

    kb = load_kb("1.11.2")
    rows = []
    base = RunSettings(planner=a.planner, llm=a.llm, max_rounds=a.max_rounds)
    for cls in (RiderPlanner, DialoguePlanner):  # the guard off: the plan node reads `loop_guard`
        cls.loop_guard = False  # type: ignore[attr-defined]
    with open_chat_model(a.llm, **llm_options(base)) as llm:
        for item in a.items.split(","):
            for seed in range(a.seeds):
                task = Task(f"obtain_{item}", "custom", f"obtain {item}", {item: 1}, 12000)
                outcomes: list[dict] = []

                def seen(node: str, update: dict, outcomes: list[dict] = outcomes) -> None:
                    outcomes.extend(update.get("outcomes") or [])

                settings = RunSettings(planner=a.planner, llm=a.llm, max_rounds=a.max_rounds, seed=seed)
                r = run_episode(task, settings, llm=llm, kb=kb, on_update=seen)
                plans = r["plans"]
                fires = next(
                    (
                        j
                        for j in range(len(plans))
                        if loop_cause(plans[:j], [o for o in outcomes if o.get("plan", 0) < j], plans[j])
                    ),
                    None,
                )
                rows.append(
                    {
                        "item": item,
                        "seed": seed,
                        "success": r["success"],
                        "llm_calls": r["llm_calls"],
                        "plans": len(plans),
                        "guard_fires_at_plan": fires,
                        "plans_saved": len(plans) - fires - 1 if fires is not None else 0,
                        "failure_reason": (r.get("failure_reason") or "")[:120],
                    }
                )
                print(json.dumps(rows[-1]), file=sys.stderr)
    fired = [x for x in rows if x["guard_fires_at_plan"] is not None]
    summary = {
        "planner": a.planner,
        "llm": llm.name,
        "max_rounds": a.max_rounds,
        "episodes": len(rows),
        "successes_unguarded": sum(x["success"] for x in rows),
        "successes_guarded": sum(x["success"] and x["guard_fires_at_plan"] is None for x in rows),
        "guard_fired": len(fired),
        "successes_lost": sum(x["success"] for x in fired),
        "plans_saved": sum(x["plans_saved"] for x in fired),
        "llm_calls_unguarded": sum(x["llm_calls"] for x in rows),
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
