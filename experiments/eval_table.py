"""One markdown row per `deps eval --out` folder: successes, LLM calls, tokens and wall time
per success, from the folder's episodes.jsonl (so a run stopped part-way still counts what
it finished, and says how many of the suite's tasks that is).

    python -m experiments.eval_table runs/wg/eval-rider-new runs/wg/eval-rider-old ...

Folders joined by `+` make one row: the lanes of one run split by `--tasks` across processes,
e.g. `runs/r26/heldout-deps-a+runs/r26/heldout-deps-b`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

USAGE = "usage: python -m experiments.eval_table OUT[+OUT...] [OUT ...]  (deps eval --out folders; + joins lanes)"


def _expected(d: Path) -> int | None:
    try:
        run = json.loads((d / "run.json").read_text(encoding="utf-8"))
        return len(run.get("tasks") or []) * int(run.get("episodes") or 1) or None
    except (OSError, ValueError, TypeError):
        return None


def row(out: str) -> str:
    lanes = [Path(p) for p in out.split("+")]
    eps = [
        json.loads(line)
        for d in lanes
        for line in (d / "episodes.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    counts = [_expected(d) for d in lanes]
    expected = None if None in counts else sum(c or 0 for c in counts)
    n, ok = len(eps), sum(bool(e.get("success")) for e in eps)
    calls = sum(int(e.get("llm_calls") or 0) for e in eps)
    tin = sum(int(e.get("tokens_in") or 0) for e in eps)
    tout = sum(int(e.get("tokens_out") or 0) for e in eps)
    wall = sum(float(e.get("wall_s") or 0) for e in eps)
    per = (lambda x: f"{x / ok:,.0f}") if ok else (lambda x: "-")
    done = f"{n}" + (f" of {expected}" if expected and expected != n else "")
    rate = f"{ok}/{n} ({100 * ok / n:.1f}%)" if n else "0/0"
    return (
        f"| {'+'.join(d.name for d in lanes)} | {done} | {rate} | {per(calls)} | {per(tin + tout)} | "
        f"{(f'{wall / ok:,.1f} s' if ok else '-')} | {calls:,} | {tin:,} / {tout:,} | {wall / 60:.1f} min |"
    )


def main(argv: list[str] | None = None) -> int:
    dirs = list(sys.argv[1:] if argv is None else argv)
    if dirs and dirs[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    if not dirs:
        print(USAGE, file=sys.stderr)
        return 2
    for arg in dirs:
        for d in arg.split("+"):
            if not (Path(d) / "episodes.jsonl").is_file():
                print(f"{d}: no episodes.jsonl; accepted: a deps eval --out folder", file=sys.stderr)
                return 2
    print(
        "| run | episodes | success | LLM calls / success | tokens / success | wall / success "
        "| LLM calls | tokens in / out | episode wall |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for arg in dirs:
        print(row(arg))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
