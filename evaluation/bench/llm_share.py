"""`loop_overhead_share` for `deps bench`: the graph's own time (an oracle episode through the
graph minus the same episode played by the same nodes in a plain loop, evaluation/bench/plain_loop.py,
measured side by side in evaluation/bench/__init__.py) as a share of one episode with the local
LLM, `deps run "obtain a wooden pickaxe"`'s episode.

That episode is measured live with `deps bench --live-llm` (a shared server, started and warmed
before the clock runs, then one DEPS episode); otherwise its LLM time is the recorded one in
recorded_llm.json (what was measured, with the command, the date and the machine's load), and
the episode is that plus the loop's time.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

RECORDED = Path(__file__).with_name("recorded_llm.json")


def recorded_llm_seconds() -> tuple[float, dict]:
    data = json.loads(RECORDED.read_text(encoding="utf-8"))
    return float(data["llm_seconds"]), data


def _live_episode_seconds(progress: Callable[[str], None]) -> float:
    from agent.llm.local_server import shared_server
    from agent.llm.warm import warm
    from agent.runner import run_episode
    from nodes.settings import RunSettings
    from worlds.tasks import find_task

    progress("bench: one live DEPS episode with the local LLM (CraftWoodenPickaxe)")
    with shared_server("rider") as srv:
        warm(srv.base_url, srv.model_name, "deps")
        result = run_episode(find_task("CraftWoodenPickaxe"), RunSettings(planner="deps", llm="local"))
    return float(result["wall_s"])


def loop_overhead_share(
    overhead_s: float, loop_s: float, *, live: bool = False, progress: Callable[[str], None] = lambda s: None
) -> dict[str, float]:
    """`overhead_s`: the graph's own seconds per episode; `loop_s`: the plain loop's."""
    overhead_s = max(overhead_s, 0.0)
    if live:
        episode_s = _live_episode_seconds(progress)
    else:
        llm_s, _ = recorded_llm_seconds()
        episode_s = llm_s + loop_s + overhead_s
    return {
        "loop_overhead_share": round(overhead_s / episode_s, 5) if episode_s > 0 else 0.0,
        "loop_overhead_s_per_episode": round(overhead_s, 5),
        "llm_episode_s": round(episode_s, 3),
        "llm_episode_live": 1.0 if live else 0.0,
    }
