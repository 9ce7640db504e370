"""A fault drill: how many episodes survive an LLM that fails, measured.

`python -m experiments.fault_drill [--episodes 50] [--out DIR]` serves a replay LLM (a real
OpenAI-compatible HTTP server on loopback that answers every chat request with one fixed,
correct plan for CraftStoneSword), injects 40 % mixed faults at the wire (`--llm-faults`,
seeded) and runs `deps eval`'s runner three times: with 0, 2 and 6 retries. It prints, per
run, the episodes stored and lost, the LLM failures, the retries and the faults injected (the
tables of docs/results/reliability.md). The LLM's content is fixed on purpose: the drill measures the
transport and the retry layer, not a model's planning. Backoff sleeps are skipped
(`--sleep` keeps them) so the drill takes seconds.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

FAULTS = "timeout=0.1,http500=0.1,ratelimit=0.1,garbage=0.05,empty=0.05"  # 40 % of requests
STONE_SWORD_PLAN = "\n".join(
    [
        "craft({'crafting_table':1}, {'planks':4}, null)",
        "craft({'wooden_pickaxe':1}, {'planks':3, 'stick':2}, 'crafting_table')",
        "mine({'cobblestone':2}, 'wooden_pickaxe')",
        "craft({'stone_sword':1}, {'cobblestone':2, 'stick':1}, 'crafting_table')",
    ]
)
START = {"planks": 10, "stick": 4}  # enough for the plan above


class ReplayLLM(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint answering every chat request with `reply`; it can insist
    on an Authorization header (`need_auth`) and records the ones it saw."""

    reply = STONE_SWORD_PLAN
    delay_s = 0.0
    need_auth: str | None = None
    seen_auth: list[str] = []

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, code: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _authorized(self) -> bool:
        got = self.headers.get("Authorization", "")
        type(self).seen_auth.append(got)
        if self.need_auth and got != self.need_auth:
            self._send(401, {"error": {"message": "bad credentials"}})
            return False
        return True

    def do_GET(self) -> None:
        if self._authorized():
            self._send(200, {"data": [{"id": "replay", "owned_by": "me"}]})

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        if not self._authorized():
            return
        if self.delay_s:
            threading.Event().wait(self.delay_s)
        self.answer()

    def answer(self) -> None:
        """The reply to a chat request whose body has been read."""
        self._send(
            200,
            {
                "id": "x",
                "object": "chat.completion",
                "model": "replay",
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": self.reply}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70},
            },
        )


class QuietServer(ThreadingHTTPServer):
    """A loopback server whose handler errors are kept in `errors`, not printed: a client that
    gave up (a timeout under test) makes the late reply fail with a broken pipe, and the stock
    server would print that traceback into whatever runs next."""

    errors: list[str]

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        self.errors = getattr(self, "errors", [])
        self.errors.append(repr(sys.exc_info()[1]))


def serve(handler: type[BaseHTTPRequestHandler] = ReplayLLM) -> tuple[QuietServer, str]:
    """Start `handler` (a ReplayLLM by default) on a free loopback port; returns the server
    and its base URL."""
    srv = QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}"


def drill(
    episodes: int, out: Path, retries: tuple[int, ...] = (0, 2, 6), sleep: bool = False, tasks: str | None = None
) -> list[dict]:
    """`tasks` None: CraftStoneSword with enough planks and sticks (every episode can succeed);
    else deps71 task ids or groups (MT1,MT2): the replay's one plan fails most of them, so the
    drill shows failures of both kinds (the world's and the LLM's) stored, each with its reason."""
    import agent.llm.retry
    from evaluation.runner import run_eval
    from nodes.settings import RunSettings
    from worlds.tasks import find_task, load_suite

    if not sleep:
        agent.llm.retry.time.sleep = lambda s: None  # type: ignore[attr-defined]
    srv, url = serve()
    if tasks:
        wanted = {t.strip() for t in tasks.split(",")}
        chosen = [t for t in load_suite("deps71") if t.id in wanted or t.group in wanted]
        start: dict[str, int] = {}
    else:
        chosen, start = [find_task("CraftStoneSword")], dict(START)
    rows = []
    try:
        for n in retries:
            settings = RunSettings(
                planner="deps", llm=f"{url}/v1#replay", inventory=start, llm_faults=FAULTS, llm_retries=n, max_rounds=2
            )
            s = run_eval(chosen, settings, episodes=episodes, out_dir=out / f"retries-{n}", progress=False)
            stats = s.get("llm_stats") or {}
            rows.append(
                {
                    "retries_allowed": n,
                    "tasks": len(chosen),
                    "episodes": episodes * len(chosen),
                    "stored": s["n"],
                    "lost": s["missing"],
                    "with_reason": s["n"] - s["successes"] - _without_reason(out / f"retries-{n}"),
                    "successes": s["successes"],
                    "llm_failures": s["llm_failures"],
                    "requests": stats.get("faults", {}).get("requests"),
                    "faults_injected": sum(stats.get("faults", {}).get("injected", {}).values()),
                    "retries": stats.get("retries"),
                }
            )
    finally:
        srv.shutdown()
    return rows


def _without_reason(out: Path) -> int:
    """Failed episodes stored with no failure_reason (the drill expects none)."""
    rows = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines() if line.strip()]
    return sum(1 for r in rows if not r.get("success") and not r.get("failure_reason"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.fault_drill", description=__doc__.split("\n\n")[0])
    p.add_argument("--episodes", type=int, default=50, help="episodes per task and run (default: 50)")
    p.add_argument("--out", default=None, help="where the three evals go (default: a temporary folder)")
    p.add_argument(
        "--tasks",
        default=None,
        metavar="LIST",
        help="deps71 task ids or groups, e.g. MT1,MT2 (default: CraftStoneSword, which can always succeed)",
    )
    p.add_argument("--sleep", action="store_true", help="really sleep the backoff (slower; same counts)")
    a = p.parse_args(argv)
    if not 1 <= a.episodes <= 10_000:
        p.error("--episodes must be from 1 to 10000")
    with tempfile.TemporaryDirectory() as tmp:
        for row in drill(a.episodes, Path(a.out or tmp), sleep=a.sleep, tasks=a.tasks):
            print(json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
