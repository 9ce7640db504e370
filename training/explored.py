"""The second round's data (LLaMA-Rider's "2nd" model, issue 23 part 3): the fine-tuned model's
own successful explorations, each decision as the rider planner asked it.

    deps eval --suite plan4mc --planner rider --llm local:ADAPTER --episodes 2 --out runs/explore
    python -m training.explored runs/explore runs/explore-data [--holdout-rule sha256:deps-23:55]
    python -m training.collect merge --unique runs/round2 runs/round1-data runs/explore-data

Every decision of a successful episode whose skill ran is kept, with the question exactly as the
planner asked it (its sub-task, the facts of what that sub-task lacked, the revision question
after a refusal): source `explore:<model>`.  A decision whose task line names an item held out by
the rule is dropped, so the held-out figure stays held out.  The eval folder must be a rider
eval (its plans carry `# rider {...}` records); anything else is one line and exit 2.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from training.data import DatasetError, default_base_model, write_dataset

USAGE = "usage: python -m training.explored EVAL_DIR OUT [--holdout-rule sha256:SALT:PCT|none]"


def explored_examples(eval_dir: str | Path, rule: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    from training.collect import unique_examples
    from training.rider_reader import reader_examples
    from training.whole_game import check_no_heldout, split_items
    from worlds.knowledge import load_kb

    d = Path(eval_dir)
    try:
        run = json.loads((d / "run.json").read_text(encoding="utf-8"))
        lines = (d / "episodes.jsonl").read_text(encoding="utf-8").splitlines()
    except (OSError, ValueError) as exc:
        why = exc.__class__.__name__
        raise DatasetError(f"{d} is not an eval folder ({why}); accepted: a deps eval --out folder") from None
    settings = run.get("settings") if isinstance(run.get("settings"), dict) else run
    version = str(settings.get("mc_version") or "1.11.2")
    model = re.sub(r"[^A-Za-z0-9_.:/\-]", "-", str(settings.get("llm") or "local"))
    kb = load_kb(version)
    held = split_items(kb, rule).held_out
    rows, examples = [], []
    for n, line in enumerate(lines, 1):
        try:
            row = json.loads(line)
        except ValueError:
            raise DatasetError(f"{d}/episodes.jsonl:{n} is not JSON; accepted: a deps eval --out folder") from None
        rows.append(row)
        examples += reader_examples(kb, row, f"explore:{model}", keep="ran")
    if rows and not any("# rider " in p for r in rows for p in r.get("plans") or []):
        raise DatasetError(f"{d} holds no rider episodes; accepted: the --out folder of a --planner rider eval")
    kept = check_no_heldout(examples, held)
    kept, dropped = unique_examples(kept)
    counts = {
        "episodes": len(rows),
        "successes": sum(bool(r.get("success")) for r in rows),
        "held_out_dropped": len(examples) - len(check_no_heldout(examples, held)),
        "mc_version": version,
        "holdout_rule": rule,
        **dropped,
    }
    return kept, counts


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    rule = "sha256:deps-23:55"
    if "--holdout-rule" in args:
        i = args.index("--holdout-rule")
        if i + 1 >= len(args):
            print(f"explored: error: --holdout-rule needs a value; {USAGE}", file=sys.stderr)
            return 2
        rule = args[i + 1]
        del args[i : i + 2]
    if len(args) != 2 or any(a.startswith("--") for a in args):
        print(f"explored: error: {USAGE}", file=sys.stderr)
        return 2
    try:
        examples, counts = explored_examples(args[0], rule)
        if not examples:
            raise DatasetError(f"{args[0]} gives no examples (no successful rider episode); nothing written")
        card = write_dataset(
            args[1],
            examples,
            base_model=default_base_model(),
            command="python -m training.explored " + " ".join(sys.argv[1:] if argv is None else argv),
            episodes=counts["episodes"],
            counts=counts,
        )
    except DatasetError as exc:
        print(f"explored: error: {exc}", file=sys.stderr)
        return 2
    print(
        f"wrote {args[1]}/train.jsonl: {card['examples']} examples from {counts['successes']} successful episodes",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
