"""`python -m agent.llm.save_prompt_state`: evaluate a planner's fixed prompt part once, at
`make install`, and save its state for later server starts (agent/llm/prompt_state.py keeps the
file format; this module starts the server, which prompt_state itself must not import)."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m agent.llm.save_prompt_state",
        description="Evaluate a planner's fixed prompt part once and save its state for later server starts.",
    )
    ap.add_argument("--model", default=None, help="a local model (default: the default local model)")
    ap.add_argument("--planner", default="deps", help="whose prompt (default: deps)")
    a = ap.parse_args(argv)
    from agent.llm.local_server import DEFAULT_LOCAL_MODEL, LocalServer, LocalServerError

    try:
        with LocalServer(a.model or DEFAULT_LOCAL_MODEL, prompt_state_for=a.planner) as srv:
            status = srv.prompt_state_status
    except LocalServerError as e:
        print(f"prompt state not saved: {str(e).splitlines()[0]}", file=sys.stderr)
        return 1
    if srv.prompt_state is None:
        print(f"planner {a.planner!r} has no fixed prompt part to save", file=sys.stderr)
        return 1
    print(f"prompt state {status}: {srv.prompt_state['path']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
