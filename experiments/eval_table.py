"""One markdown row per `deps eval --out` folder: successes, LLM calls, tokens and wall time
per success, from the folder's episodes.jsonl (so a run stopped part-way still counts what
it finished, and says how many of the suite's tasks that is).

    python -m experiments.eval_table runs/wg/eval-rider-new runs/wg/eval-rider-old ...
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def row(out: str) -> str:
    d = Path(out)
    eps = [json.loads(line) for line in (d / "episodes.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    try:
        run = json.loads((d / "run.json").read_text(encoding="utf-8"))
        expected = len(run.get("tasks") or []) * int(run.get("episodes") or 1) or None
    except (OSError, ValueError, TypeError):
        expected = None
    n, ok = len(eps), sum(bool(e.get("success")) for e in eps)
    calls = sum(int(e.get("llm_calls") or 0) for e in eps)
    tin = sum(int(e.get("tokens_in") or 0) for e in eps)
    tout = sum(int(e.get("tokens_out") or 0) for e in eps)
    wall = sum(float(e.get("wall_s") or 0) for e in eps)
    per = (lambda x: f"{x / ok:,.0f}") if ok else (lambda x: "-")
    done = f"{n}" + (f" of {expected}" if expected and expected != n else "")
    rate = f"{ok}/{n} ({100 * ok / n:.1f}%)" if n else "0/0"
    return (
        f"| {d.name} | {done} | {rate} | {per(calls)} | {per(tin + tout)} | "
        f"{(f'{wall / ok:,.1f} s' if ok else '-')} | {calls:,} | {tin:,} / {tout:,} | {wall / 60:.1f} min |"
    )


def main(argv: list[str] | None = None) -> int:
    dirs = list(sys.argv[1:] if argv is None else argv)
    if not dirs:
        print("usage: python -m experiments.eval_table OUT [OUT ...]  (deps eval --out folders)", file=sys.stderr)
        return 2
    print(
        "| run | episodes | success | LLM calls / success | tokens / success | wall / success "
        "| LLM calls | tokens in / out | episode wall |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for d in dirs:
        if not (Path(d) / "episodes.jsonl").is_file():
            print(f"{d}: no episodes.jsonl; accepted: a deps eval --out folder", file=sys.stderr)
            return 2
        print(row(d))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
