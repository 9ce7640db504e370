"""The `deps` command line (its contract: docs/cli.md). Human progress goes to stderr; with --json the
result is one JSON object on the last line of stdout. Bad input: one line, exit 2."""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
import time
from typing import Any

from agent.cli_flags import UserError, _add_run_flags, _faults, _inventory, _settings, _settings_taught, _skills  # noqa: F401
from nodes.enough import outcome_state
from nodes.settings import (
    MAX_COUNT,
    MC_VERSIONS,
    RunSettings,
    bounded,
    local_llm_for,
    redact_llm,
)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, not a usage dump
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("deps-agent")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown (not installed)"


def _err(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _emit_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, default=str) + "\n")
    sys.stdout.flush()


def _progress(node: str, update: dict) -> None:
    if node == "plan":
        text = update["plans"][0]
        n = sum(1 for line in text.splitlines() if line.strip())
        _err(f"[plan] {n} line(s)")
        for line in text.splitlines()[:20]:
            _err(f"    {line}")
    elif node == "parse" and update.get("parse_notes"):
        _err(f"[parse] {len(update['goals'])} goal(s); " + "; ".join(update["parse_notes"]))
    elif node == "execute":
        o = update["outcomes"][0]
        what = "plan" if o["goal"] is None else f"step {o['step'] + 1}"
        _err(f"[execute] {what}: {outcome_state(o)} (+{o['steps']} steps, {update['env_steps']} total)")
    elif node == "describe":
        _err(f"[describe] {update['descriptions'][0]}")
    elif node == "explain":
        _err(f"[explain] {update['explanations'][0]}")


class _LLMProgress:
    """'waiting for the LLM' while a call runs (a seconds counter on a terminal), then its
    tokens and time, and the running total of the episode."""

    def __init__(self) -> None:
        self.calls, self.tokens_in, self.tokens_out = 0, 0, 0
        self._stop: Any = None

    def __call__(self, event: dict) -> None:
        import threading

        if event["phase"] == "start":
            if sys.stderr.isatty():
                self._stop = threading.Event()
                threading.Thread(target=self._tick, args=(self._stop, time.monotonic()), daemon=True).start()
            else:
                _err(f"[llm] waiting for the LLM ({event['prompt_chars']} prompt characters)")
            return
        if self._stop is not None:
            self._stop.set()
            self._stop = None
            sys.stderr.write("\r\033[K")
        if event["phase"] == "error":
            _err(f"[llm] failed: {event['error']}")
            return
        self.calls += 1
        self.tokens_in += event["tokens_in"]
        self.tokens_out += event["tokens_out"]
        model = str(event.get("name") or "").rpartition(" · ")[2]
        _err(
            f"[llm] reply{f' from {model}' if model else ''} in {event['seconds']:.1f} s: "
            f"{event['tokens_in']}+{event['tokens_out']} tokens "
            f"({self.calls} call(s), {self.tokens_in}+{self.tokens_out} tokens so far)"
        )

    @staticmethod
    def _tick(stop: Any, t0: float) -> None:
        while not stop.wait(0.5):
            sys.stderr.write(f"\r[llm] waiting for the LLM... {time.monotonic() - t0:.0f} s")
            sys.stderr.flush()


def _stored_run(trace_dir: str | None, thread: str, llm: str | None = None) -> tuple[Any, RunSettings]:
    """The task and settings a traced run started with (for --resume and replay)."""
    from agent.trace import start_record, threads
    from worlds.types import Task

    if not trace_dir:
        raise UserError(f"thread {thread!r}: give --trace-dir, the folder holding its trace and checkpoints")
    rec = start_record(trace_dir, thread)
    if rec is None:
        known = ", ".join(threads(trace_dir)) or "none"
        raise UserError(f"no run {thread!r} in {trace_dir}; accepted: a thread recorded there ({known})")
    try:
        settings = RunSettings.from_dict(rec["settings"])
        task = Task(**rec["task"])
    except (TypeError, ValueError, AttributeError) as e:
        raise UserError(
            f"the start of run {thread!r} in {trace_dir} is not one deps wrote ({e}); accepted: "
            "a folder written by deps run --trace-dir"
        ) from None
    settings.trace_dir = trace_dir
    if llm:
        settings.llm = llm
    elif "://" in str(settings.llm) or "***" in str(settings.llm):  # never a URL read from a file
        raise UserError(
            f"run {thread!r} used the LLM at {redact_llm(settings.llm)}; a resumed or replayed run "
            "takes a URL endpoint from the command line only: give it again with --llm"
        )
    return task, settings.validate()


def _report_run(result: dict, json_out: bool) -> int:
    verdict = "SUCCESS" if result["success"] else f"FAILED ({result['failure_reason']})"
    _err(
        f"{verdict}: {result['env_steps']} env steps, {result['rounds']} re-plan round(s), "
        f"{result['llm_calls']} LLM call(s), {result['tokens_in']}+{result['tokens_out']} tokens, "
        f"{result['wall_s']} s; thread {result['thread']}"
    )
    if json_out:
        _emit_json(result)
    return 1 if result.get("llm_failed") else 0  # a failed episode is a result; a failed LLM is not


def _prestart_llm(settings: RunSettings) -> None:
    """With the embedded model, start its server (and have its prompt's fixed part evaluated for
    the planner) in the background now, while the graph's libraries load (docs/performance.md)."""
    _prestart_for(settings.llm, settings.planner)


def _prestart_for(llm: str, planner: str) -> None:
    from nodes import registry

    if not llm.strip().lower().startswith("local") or ":" in planner:
        return
    llm = local_llm_for(llm, planner)
    try:
        if not registry.get("planner", planner).needs_llm:
            return
        from agent.llm import parse_llm_spec
        from agent.llm.local_server import prestart

        prestart(parse_llm_spec(llm).model, warm_for=planner)
        import langchain_openai  # noqa: F401 - the client's library (~1 s) loads while the server starts
    except Exception:  # noqa: BLE001 - a bad --llm or planner is reported where it is used
        return


def _early_prestart(argv: list[str]) -> None:
    """`deps run TASK` with the embedded model: start its server before the parser is built (which
    imports every part's options, about a second), from --llm and --planner as written or their
    defaults. The parsed arguments still decide: a run they do not match starts its own server
    (cmd_run), and this one stops at exit. Anything unclear (--help, --resume, an abbreviated
    flag) is left to the parser."""
    if not argv or argv[0] != "run":
        return
    found = {"--llm": "local", "--planner": "deps"}
    args = argv[1:]
    i = 0
    while i < len(args):
        name, eq, value = args[i].partition("=")
        if name == "--":
            break
        if name in ("-h", "--help", "--resume") or any(
            full.startswith(name) and full != name for full in ("--help", "--resume", *found) if name.startswith("--")
        ):
            return
        if name in found:
            if not eq:
                i += 1
                if i == len(args):
                    return
                value = args[i]
            found[name] = value
        i += 1
    _prestart_for(found["--llm"], found["--planner"])


def cmd_run(a: argparse.Namespace) -> int:
    if not a.resume and a.task:  # the server loads while the graph's libraries import
        _prestart_llm(_settings(a))
    from agent.runner import new_thread, resolve_task, run_episode
    from worlds.knowledge import load_kb

    if a.resume:
        if a.max_steps is not None:
            raise UserError("--max-steps sets a new run's budget; a run continued with --resume keeps its own")
        task, settings = _stored_run(a.trace_dir, a.resume, llm=a.llm)
        thread = a.resume
    elif not a.task:
        raise UserError("give a TASK (an id such as CraftWoodenPickaxe, or an instruction), or --resume THREAD")
    else:
        settings, filled = _settings_taught(a)
        task = resolve_task(a.task, load_kb(settings.mc_version))
        if a.max_steps is not None:
            from dataclasses import replace

            from worlds.tasks import MAX_STEPS

            task = replace(task, max_steps=bounded("--max-steps", a.max_steps, 1, MAX_STEPS))
        thread = new_thread(task)
        if filled:
            from agent.llm.taught import whose

            _err(f"settings {whose(settings)} was taught with: {', '.join(filled)} (a flag given overrides one)")
    _err(
        f"task {task.id}: {task.instruction} -> {task.target} (max {task.max_steps} steps), "
        f"planner {settings.planner}, world {settings.world}, llm {redact_llm(settings.llm)}; thread {thread}"
    )
    result = run_episode(
        task,
        settings,
        on_update=None if a.quiet else _progress,
        thread=thread,
        resume=bool(a.resume),
        on_llm=None if a.quiet else _LLMProgress(),
    )
    code = _report_run(result, a.json)
    return code or (1 if a.exit_code and not result["success"] else 0)


def cmd_trace(a: argparse.Namespace) -> int:
    from agent.trace_view import TraceError, load_run, show, write_html

    try:
        run = load_run(a.dir, a.thread)
        if a.view == "show":
            show(run)
        else:
            _err(f"wrote {write_html(run, a.output)}")
    except TraceError as e:
        raise UserError(str(e)) from None
    return 0


def cmd_replay(a: argparse.Namespace) -> int:
    from agent.runner import run_episode

    bounded("--from", a.from_step, 0, 10**9)  # a checkpoint step (deps trace show lists them)
    task, settings = _stored_run(a.trace_dir, a.thread, llm=a.llm)
    _err(f"replaying {a.thread} from step {a.from_step} with llm {redact_llm(settings.llm)}")
    result = run_episode(
        task,
        settings,
        on_update=None if a.quiet else _progress,
        thread=a.thread,
        from_step=a.from_step,
        on_llm=None if a.quiet else _LLMProgress(),
    )
    return _report_run(result, a.json)


def cmd_tasks(a: argparse.Namespace) -> int:
    from worlds.tasks import load_suite

    tasks = load_suite(a.suite)
    rows = [
        {
            "id": t.id,
            "group": t.group,
            "instruction": t.instruction,
            "target": t.target,
            "max_steps": t.max_steps,
            **({"inventory": t.inventory} if t.inventory else {}),
            **({"biome": t.biome} if t.biome else {}),
        }
        for t in tasks
    ]
    if a.json:
        _emit_json({"suite": a.suite, "tasks": rows})
    else:
        for r in rows:
            print(f"{r['id']:<28} {r['group']:<8} {r['max_steps']:>6}  {r['instruction']}")
    return 0


def cmd_kb(a: argparse.Namespace) -> int:
    from worlds.knowledge import load_kb
    from worlds.options import closure, how_to_make
    from worlds.solver import Unreachable, solve, steps_estimate

    kb = load_kb(a.mc_version)
    item = kb.canonical(a.item)
    if item is None:  # an old id that became several items says which; anything else names what is accepted
        raise UserError(
            f"{kb.unknown_reason(a.item)}; accepted: an item id or display name "
            '(wooden_pickaxe, "Wooden Pickaxe", planks, log)'
        )
    bounded("--count", a.count, 1, MAX_COUNT)
    grid, gives = getattr(a, "world", "textworld") == "gridworld", None
    try:
        if grid:  # the grid world's own route, or the one line it refuses the item with
            from worlds.gridworld import coverage

            why = coverage.refusal(kb, {item: a.count})
            if why:
                raise Unreachable(why)
            gives = coverage.gives(kb)
        plan = solve(kb, {item: a.count}, {}, gives=gives)
        plan_text = [g.code() for g in plan]
        steps = steps_estimate(kb, plan)
    except Unreachable as e:
        plan_text, steps = [], None
        _err(f"no plan: {e}")
    try:  # what the plan itself gathers (tools' materials too), so the two lines agree
        from worlds.solver import plan_raw_materials

        raw = plan_raw_materials(kb, plan, {item: a.count}) if plan_text else closure(kb, item, a.count)
    except ValueError as e:  # nothing gives it (bedrock): the raw materials are unknown, not an error
        raw = {}
        _err(f"no raw materials: {e}")
    how = how_to_make(kb, item)
    if grid and plan_text and item in plan[-1].obj:  # the grid world's own way (no skeletons: arrows crafted)
        how = plan[-1].text
    info = {
        "item": item,
        "version": kb.version,
        "how_to_make": how,
        "variants": kb.variants(item),
        "raw_materials": raw,
        "oracle_plan": plan_text,
        "oracle_steps": steps,
        "world": "gridworld" if grid else "textworld",
    }
    if a.json:
        _emit_json(info)
    else:
        print(f"{item} ({kb.version}): {info['how_to_make']}")
        if len(info["variants"]) > 1:
            print(f"  variants: {', '.join(info['variants'])}")
        print("  raw materials: " + (", ".join(f"{n} {k}" for k, n in raw.items()) or "none known"))
        print(f"  oracle plan ({steps} steps):" if plan_text else "  oracle plan: none (see the reason above)")
        for line in plan_text:
            print(f"    {line}")
    return 0


def cmd_graph(a: argparse.Namespace) -> int:
    from agent.graph import mermaid

    print(mermaid())
    return 0


def cmd_doctor(a: argparse.Namespace) -> int:
    from agent.doctor import run_checks

    checks = run_checks(load_models=not a.quick)
    ok = all(c["ok"] for c in checks if c.get("required", True))
    for c in checks:
        mark = "ok " if c["ok"] else ("-- " if not c.get("required", True) else "NO ")
        _err(f"[{mark}] {c['name']}: {c['detail']}")
    if a.json:
        _emit_json({"ok": ok, "checks": checks})
    return 0 if ok else 1


def build_parser() -> argparse.ArgumentParser:
    from worlds.tasks import MAX_STEPS

    p = _Parser(
        prog="deps",
        description="DEPS (Describe, Explain, Plan and Select) for Minecraft, "
        "as a LangGraph state machine. Runs offline with an embedded local LLM.",
    )
    p.add_argument("--version", action="version", version=f"deps {_version()}")
    p.add_argument(
        "--debug",
        action="store_true",
        help="show the Python traceback of an unexpected error (yours, in a plugin, or ours)",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    r = sub.add_parser("run", help="run one episode", description="Run one episode of a task and print what happened.")
    r.add_argument(
        "task",
        nargs="?",
        help='a task id (CraftWoodenPickaxe), an instruction ("obtain a wooden pickaxe") or a find '
        '("find a pig at night in the rain": a context task, as MP5\'s)',
    )
    _add_run_flags(r)
    r.add_argument("--json", action="store_true", help="print the result as JSON on the last line")
    r.add_argument("--quiet", action="store_true", help="no step-by-step progress on stderr")
    r.add_argument(
        "--exit-code",
        action="store_true",
        help="exit 1 when the episode fails (by default a finished episode exits 0 either way)",
    )
    r.add_argument(
        "--max-steps",
        type=int,
        default=None,
        metavar="N",
        help=f"the episode's step budget in MineDojo steps (1/20 s of game time each; the grid world "
        f"gives the same game time in its own steps), 1 to {MAX_STEPS:,}; default: the task's own "
        "(a suite's, or 12,000 for an instruction, more where its shortest plan needs it)",
    )
    r.add_argument(
        "--resume",
        default=None,
        metavar="THREAD",
        help="continue a run from its last checkpoint (with the --trace-dir it was traced to; "
        "its task and settings are read from there)",
    )
    r.set_defaults(fn=cmd_run)

    t = sub.add_parser("tasks", help="list a task suite")
    t.add_argument(
        "--suite", default="deps71", help="deps71, plan4mc, mp5, mp5-context or a suite file (default: deps71)"
    )
    t.add_argument("--json", action="store_true", help="print {suite, tasks} as JSON on the last line")
    t.set_defaults(fn=cmd_tasks)

    rp = sub.add_parser(
        "replay",
        help="re-run an episode from one of its checkpoints",
        description="Re-run a traced episode from its checkpoint at STEP (a fork: the original stays), "
        "for example the failing re-plan with another model.",
    )
    rp.add_argument("thread", help="the run's thread (printed by deps run, listed by deps trace show)")
    rp.add_argument(
        "--from",
        dest="from_step",
        type=int,
        required=True,
        metavar="STEP",
        help="the checkpoint step to start from (deps trace show lists them)",
    )
    rp.add_argument("--trace-dir", required=True, metavar="DIR", help="the folder the run was traced to")
    rp.add_argument("--llm", default=None, help="another LLM for the re-run (default: the run's own)")
    rp.add_argument("--json", action="store_true", help="print the result as JSON on the last line")
    rp.add_argument("--quiet", action="store_true", help="no step-by-step progress on stderr")
    rp.set_defaults(fn=cmd_replay)

    tc = sub.add_parser(
        "trace",
        help="look at a traced episode: a timeline, or a self-contained page",
        description="deps trace show DIR | deps trace html DIR -o FILE (DIR: a --trace-dir)",
    )
    tc_sub = tc.add_subparsers(dest="view", metavar="VIEW", parser_class=_Parser, required=True)
    ts = tc_sub.add_parser("show", help="the run as a timeline in the terminal")
    th = tc_sub.add_parser("html", help="the run as one self-contained HTML page")
    th.add_argument("-o", "--output", required=True, metavar="FILE", help="the page to write")
    for v in (ts, th):
        v.add_argument("dir", help="the folder given to --trace-dir")
        v.add_argument("--thread", default=None, help="which run (default: the latest in the folder)")
        v.set_defaults(fn=cmd_trace)

    k = sub.add_parser(
        "kb",
        help="ask the knowledge base how an item is made",
        description="How an item is made, its raw materials, and the oracle's plan from nothing.",
    )
    k.add_argument("item", help='an item id or display name, e.g. wooden_pickaxe or "Iron Ingot"')
    k.add_argument("--count", type=int, default=1, help=f"how many to make, 1 to {MAX_COUNT} (default: 1)")
    k.add_argument(
        "--mc-version", default="1.11.2", choices=MC_VERSIONS, help="Minecraft data version (default: 1.11.2)"
    )
    k.add_argument(
        "--world",
        default="textworld",
        choices=("textworld", "gridworld"),
        help="whose plan: the recipe book's (textworld, the default, every block exists) or the grid world's, "
        "around what it does not build, else why it refuses the item",
    )
    k.add_argument("--json", action="store_true", help="print the answer as JSON on the last line")
    k.set_defaults(fn=cmd_kb)

    g = sub.add_parser("graph", help="print the agent graph as Mermaid text")
    g.set_defaults(fn=cmd_graph)

    d = sub.add_parser("doctor", help="check the installation")
    d.add_argument("--json", action="store_true", help="print {ok, checks} as JSON on the last line")
    d.add_argument("--quick", action="store_true", help="do not load the models, only find them")
    d.set_defaults(fn=cmd_doctor)

    _add_plugin_commands(sub)
    return p


PLUGIN_GROUP = "deps.commands"


def _add_plugin_commands(sub: Any) -> None:
    """Commands that other packages add to `deps` through the `deps.commands` entry points:
    `register(subparsers, cli)` adds its sub-parser(s) with `fn` set. The eval harness adds
    `eval`, `compare` and `bench`, and the training package `train`, this way (pyproject.toml), so
    the agent layer never imports them;
    a user's package can add its own commands the same way."""
    from importlib.metadata import entry_points

    for ep in sorted(entry_points(group=PLUGIN_GROUP), key=lambda e: e.name):
        ep.load()(sub, sys.modules[__name__])


def _quiet_stdout() -> None:
    """Point stdout at /dev/null (its buffer dropped) after it failed (a full device, a closed pipe)."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


def main(argv: list[str] | None = None) -> int:
    _early_prestart(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    a = parser.parse_args(argv)
    if not getattr(a, "fn", None):
        parser.print_help(sys.stderr)
        return 2
    from nodes.settings import SettingsError

    try:
        from agent.llm import LLMError
    except ImportError:  # pragma: no cover
        LLMError = RuntimeError  # type: ignore
    from worlds.base import WorldError
    from worlds.tasks import SuiteError

    try:
        code = a.fn(a)
        sys.stdout.flush()
        return code
    except (UserError, SettingsError, SuiteError, LLMError, WorldError) as e:
        _err(f"deps {a.command}: error: {e}")
        return 2
    except KeyboardInterrupt:
        _err(f"deps {a.command}: interrupted")
        return 130
    except OSError as e:
        if e.errno not in (errno.ENOSPC, errno.EPIPE, errno.EIO, errno.EDQUOT) or a.debug:
            raise
        _quiet_stdout()  # the interpreter's last flush must not print a traceback either
        _err(
            f"deps {a.command}: error: cannot write {e.filename or 'the output'} ({e.strerror}); "
            "accepted: an output with room (a disk with free space, an open pipe)"
        )
        return 1
    except Exception as e:  # the LLM server went away mid-run, and the like: one line, not a traceback
        import openai

        if isinstance(e, openai.OpenAIError):
            _err(
                f"deps {a.command}: error: the LLM back-end failed ({type(e).__name__}: "
                f"{' '.join(str(e).split())[:200]}); check --llm and that its server is running"
            )
            return 1
        if a.debug:
            raise
        _err(
            f"deps {a.command}: error: {type(e).__name__}: {' '.join(str(e).split())[:300]} "
            "(unexpected; run again with --debug for the traceback, and report it if it is ours)"
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
