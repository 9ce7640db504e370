"""The first answer's parts (issue 21, item 2).

Two views of `deps run "obtain a wooden pickaxe"` with the embedded model:

  python -m experiments.first_answer [--state saved|fresh|none|off] [--threads N]
      the embedded server's start and the DEPS planner's first call, split into prefill and
      decode as llama.cpp reports them (its perf lines in the server's log). --state: how the
      planner's fixed prompt part is evaluated before the call: `saved` loads the state file
      saved by an earlier start or `make install` (agent/llm/prompt_state.py; built first if
      missing), `fresh` builds it in an empty folder (what a first run without the file pays),
      `none` warms the server's cache over HTTP after the start (agent/llm/warm.py, the way
      before the saved state), `off` does neither.

  python -m experiments.first_answer --timeline [--repeat N]
      runs the real `deps run "obtain a wooden pickaxe"` in this process and prints, in seconds
      from the process's start, when each part began and ended: the CLI's imports, the server's
      start, the graph's build, the world's set-up, the LLM call, the nodes' updates, the trace
      writing, the end. --repeat runs the command N times in fresh processes and prints each.

  python -m experiments.first_answer --compare OLD_TREE [--repeat N]
      the same command from another checkout (e.g. `git archive <commit> | tar -x -C OLD_TREE`)
      and from this one, alternately, N rounds: the episode's wall time (the run's wall_s), the
      whole process's, and its CPU seconds with the server's; side by side, so that a machine
      shared with other jobs loads both alike.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.abc
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

_T0 = time.perf_counter()


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


def parts(state: str, threads: int | None) -> dict:
    """The server's start and the first plan call, with the fixed part evaluated as `state` says."""
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
    with contextlib.ExitStack() as stack:
        if state == "fresh":
            os.environ["DEPS_PROMPT_STATE_DIR"] = stack.enter_context(tempfile.TemporaryDirectory())
        srv = LocalServer("rider", n_threads=threads, prompt_state_for="deps" if state in ("saved", "fresh") else None)
        t0 = time.perf_counter()
        srv.start()
        start_s = time.perf_counter() - t0
        stack.callback(srv.stop)
        warm_s = warm(srv.base_url, srv.model_name, "deps", planner_only=True) if state == "none" else 0.0
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
    return {
        "state": state,
        "prompt_state": srv.prompt_state_status,
        "imports_s": round(imports_s, 2),
        "server_start_s": round(start_s, 2),
        "warm_s": round(warm_s, 2),
        "plan_call_s": round(call_s, 2),
        "start_to_answer_s": round(start_s + warm_s + call_s, 2),
        **perf,
        "tokens_in": used["tokens_in"],
        "tokens_out": used["tokens_out"],
        "threads": srv.n_threads,
        "load": os.getloadavg()[0],
        "plan": text,
    }


# --------------------------------------------------------------------------- the timeline
_EVENTS: list[tuple[float, str]] = []
_LOCK = threading.Lock()


def _mark(what: str) -> None:
    with _LOCK:
        _EVENTS.append((time.perf_counter() - _T0, what))


def _timed(name: str, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        _mark(f"{name} begins")
        try:
            return fn(*args, **kwargs)
        finally:
            _mark(f"{name} ends")

    return wrapper


# module -> [(attribute path, label)]: what the timeline wraps once each module is imported
_WRAP = {
    "agent.llm.local_server": [("LocalServer.start", "server start"), ("shared_url", "waiting for the server")],
    "agent.llm": [("open_chat_model", "open the LLM")],
    "agent.runner": [("build_context", "world and parts set-up"), ("episode_graph", "graph build")],
    "agent.components": [("make_world", "the world's set-up")],
    "agent.trace": [("Tracer.write", "trace write"), ("Tracer.close", "trace close")],
    "nodes.ask": [("ask", "LLM call")],
}


class _AfterImport(importlib.abc.MetaPathFinder):
    """Wraps the functions of _WRAP as each module finishes importing, so the CLI imports in
    its own order (the timeline shows when)."""

    def find_spec(self, name, path, target=None):
        if name not in _WRAP:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return None
        exec_module = spec.loader.exec_module

        def exec_and_wrap(module):
            _mark(f"import {name} begins")
            exec_module(module)
            _mark(f"import {name} ends")
            for attr, label in _WRAP[name]:
                owner, _, fn = attr.rpartition(".")
                obj = getattr(module, owner) if owner else module
                setattr(obj, fn, _timed(label, getattr(obj, fn)))

        spec.loader.exec_module = exec_and_wrap
        return spec


def timeline(task: str) -> dict:
    """Run `deps run TASK` here, with the timeline's marks; returns the marks and the result."""
    sys.meta_path.insert(0, _AfterImport())
    _mark("cli begins")
    from agent import cli

    cli._progress = _timed("progress line", cli._progress)
    code = cli.main(["run", task, "--json"])
    _mark("cli ends")
    return {"code": code, "events": [(round(t, 3), what) for t, what in _EVENTS]}


def _summary(events: list[tuple[float, str]]) -> dict:
    """Totals per label (seconds inside, count) from begin/end marks; nested calls count once."""
    open_: dict[str, list[float]] = {}
    total: dict[str, list] = {}
    for t, what in events:
        label, _, edge = what.rpartition(" ")
        if edge == "begins":
            open_.setdefault(label, []).append(t)
        elif edge == "ends" and open_.get(label):
            start = open_[label].pop()
            if not open_[label]:
                entry = total.setdefault(label, [0.0, 0])
                entry[0] += t - start
                entry[1] += 1
    return {k: {"s": round(v[0], 3), "n": v[1]} for k, v in total.items()}


def compare(old_tree: str, rounds: int, task: str) -> None:
    import resource

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    for i in range(rounds):
        for name, tree in (("old", old_tree), ("new", here)):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            load = os.getloadavg()[0]
            t0 = time.perf_counter()
            out = subprocess.run(
                [sys.executable, "-m", "agent.cli", "run", task, "--json", "--quiet"],
                cwd=tree,
                env={**env, "PYTHONPATH": tree},
                capture_output=True,
                text=True,
                check=False,
            )
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            lines = out.stdout.strip().splitlines()
            rec = json.loads(lines[-1]) if lines else {}
            print(
                json.dumps(
                    {
                        "round": i + 1,
                        "tree": name,
                        "episode_s": rec.get("wall_s"),
                        "success": rec.get("success"),
                        "process_s": round(wall, 2),
                        "cpu_s": round(cpu, 2),
                        "load": round(load, 2),
                    }
                ),
                flush=True,
            )


def main() -> None:
    ap = argparse.ArgumentParser(description="The first answer's parts (issue 21, item 2).")
    ap.add_argument("--state", choices=["saved", "fresh", "none", "off"], default="saved")
    ap.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: the server's choice)")
    ap.add_argument("--timeline", action="store_true", help="time the parts of a real `deps run`")
    ap.add_argument("--repeat", type=int, default=0, help="with --timeline: N runs, each in a fresh process")
    ap.add_argument(
        "--compare", metavar="OLD_TREE", help="alternate runs of another checkout's deps run and this one's"
    )
    ap.add_argument("--task", default="obtain a wooden pickaxe")
    a = ap.parse_args()
    if a.compare:
        compare(a.compare, a.repeat or 3, a.task)
        return
    if a.timeline and a.repeat:
        for _ in range(a.repeat):
            cmd = [sys.executable, "-m", "experiments.first_answer", "--timeline", "--task", a.task]
            t0 = time.perf_counter()
            out = subprocess.run(cmd, capture_output=True, text=True, check=False)
            line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else "{}"
            rec = json.loads(line)
            rec["process_s"] = round(time.perf_counter() - t0, 2)
            print(json.dumps(rec), flush=True)
        return
    if a.timeline:
        with contextlib.redirect_stdout(sys.stderr):  # the CLI's --json record goes to stderr here
            rec = timeline(a.task)
        usage = os.times()
        marks = rec["events"]
        print("\n".join(f"{t:8.3f}  {what}" for t, what in marks), file=sys.stderr)
        print(
            json.dumps(
                {
                    "code": rec["code"],
                    "total_s": marks[-1][0],
                    "cpu_s": round(usage.user + usage.system, 2),
                    "parts": _summary(marks),
                    "load": os.getloadavg()[0],
                }
            )
        )
        return
    rec = parts(a.state, a.threads)
    plan = rec.pop("plan")
    print(json.dumps(rec))
    print(plan)


if __name__ == "__main__":
    main()
