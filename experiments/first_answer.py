"""The first answer's parts (issue 21, item 2): the embedded server's start, the warm-up of the
planner's fixed prompt part, and the DEPS planner's first call for `deps run "obtain a wooden
pickaxe"`, split into prefill and decode as llama.cpp reports them (its perf lines in the
server's log).

    python -m experiments.first_answer [--no-warm] [--threads N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time


def _perf(log: str) -> dict:
    """The last request's prompt-eval and eval lines of llama.cpp's perf report."""
    out: dict = {}
    for line in log.splitlines():
        m = re.search(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens", line)
        if m:
            out["prefill_s"], out["prefill_tokens"] = float(m.group(1)) / 1000, int(m.group(2))
        m = re.search(r"\beval time =\s*([\d.]+) ms /\s*(\d+) runs", line)
        if m and "prompt" not in line:
            out["decode_s"], out["decode_tokens"] = float(m.group(1)) / 1000, int(m.group(2))
        m = re.search(r"total time =\s*([\d.]+) ms", line)
        if m:
            out["llama_total_s"] = float(m.group(1)) / 1000
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-warm", action="store_true", help="do not warm the prompt cache first")
    ap.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: the server's choice)")
    a = ap.parse_args()
    t0 = time.perf_counter()
    from agent.llm import open_chat_model
    from agent.llm.local_server import LocalServer
    from agent.llm.warm import warm
    from nodes.ask import ask
    from nodes.planners.base import PlanRequest
    from nodes.planners.grammar import code_form_grammar
    from nodes.planners.llm import DialoguePlanner
    from worlds.knowledge import load_kb
    from worlds.tasks import localize, task_from_instruction

    imports_s = time.perf_counter() - t0
    kb = load_kb("1.11.2")
    task = localize(task_from_instruction("obtain a wooden pickaxe", kb.canonical), kb)
    srv = LocalServer("rider", n_threads=a.threads)
    t0 = time.perf_counter()
    srv.start()
    start_s = time.perf_counter() - t0
    warm_s = 0.0 if a.no_warm else warm(srv.base_url, srv.model_name, "deps")
    try:
        with open_chat_model("local", server=srv, seed=0) as h:
            planner = DialoguePlanner(h)
            msgs = planner.messages(
                PlanRequest(task=task, inventory={}, plans=[], descriptions=[], explanations=[], kb=kb)
            )
            runnable = h.grammar_mode(code_form_grammar(kb, target=dict(task.target)))
            t0 = time.perf_counter()
            text, used = ask(runnable, msgs)
            call_s = time.perf_counter() - t0
        perf = _perf(srv.log_tail(80))
    finally:
        srv.stop()
    print(
        json.dumps(
            {
                "imports_s": round(imports_s, 2),
                "server_start_s": round(start_s, 2),
                "warm_s": round(warm_s, 2),
                "plan_call_s": round(call_s, 2),
                **perf,
                "tokens_in": used["tokens_in"],
                "tokens_out": used["tokens_out"],
                "threads": srv.n_threads,
                "load": os.getloadavg()[0],
            }
        )
    )
    print(text)


if __name__ == "__main__":
    main()
