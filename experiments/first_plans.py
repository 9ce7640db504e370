"""How well does a model write a first plan? A quick, LLM-only probe behind
docs/results/embedded-models.md: for the first N tasks of MT1 and MT2, ask the DEPS
planner once (no execution) and count plans whose first goal mines a log (every one of
these tasks starts there) and plans that name the target; report server start-up and
tokens per second.

    python -m experiments.first_plans --llm local --output grammar --tasks 12
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.first_plans", description=__doc__.split("\n\n")[0])
    p.add_argument("--llm", default="local", help="as for deps run (default: local)")
    p.add_argument("--output", default="grammar", choices=("grammar", "json", "text"), help="the planner's output mode")
    p.add_argument("--tasks", type=int, default=12, help="how many MT1/MT2 tasks (default: 12)")
    p.add_argument("--max-tokens", type=int, default=512)
    a = p.parse_args(argv)

    from agent.llm import open_chat_model
    from nodes.planners.base import PlanRequest
    from nodes.planners.llm import DialoguePlanner
    from worlds.knowledge import load_kb
    from worlds.tasks import load_suite

    kb = load_kb("1.11.2")
    tasks = [t for t in load_suite("deps71") if t.group in ("MT1", "MT2")][: a.tasks]
    t0 = time.monotonic()
    with open_chat_model(a.llm, seed=0, max_tokens=a.max_tokens) as llm:
        ready_s = time.monotonic() - t0
        planner = DialoguePlanner(llm, output=a.output)
        mines_log = names_target = tokens_out = 0
        gen_s = 0.0
        for task in tasks:
            req = PlanRequest(
                task=task, inventory={}, plans=[], descriptions=[], explanations=[], kb=kb, recipe_hints=True
            )
            t1 = time.monotonic()
            result = planner.plan(req)
            gen_s += time.monotonic() - t1
            tokens_out += result.usage.get("tokens_out", 0)
            first = result.text.splitlines()[0] if result.text.strip() else ""
            mines_log += first.replace(" ", "").startswith("mine({'log'")
            names_target += any(f"'{item}'" in result.text for item in task.target)
            print(f"{task.id}: {result.text.splitlines()[0][:100] if result.text else '(empty)'}", file=sys.stderr)
    summary = {
        "llm": llm.name,
        "output": a.output,
        "tasks": len(tasks),
        "first_goal_mines_log": mines_log,
        "names_target": names_target,
        "server_ready_s": round(ready_s, 2),
        "tokens_per_s": round(tokens_out / gen_s, 1) if gen_s else None,
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
