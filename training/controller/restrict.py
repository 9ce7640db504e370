"""A copy of a controller checkpoint that drives only some of the goals it was trained on.

    python -m training.controller.restrict CKPT --goals mine:emerald,mine:flint --out OUT.pt

The learned controller may be several checkpoints, the first that knows a goal driving it
(skills/learned/routed.py). A fine-tune that lifted some goals and lost others can then drive
only the ones it lifted, placed before the checkpoint that keeps the rest: its card lists only
those goals. The weights are the same bytes; the card records what it was cut from and why.
Choose the goals on other worlds than the ones you report (the skill table's `--seed`), or the
choice is fitted to the figures it is judged by.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from skills.learned import checkpoint
from skills.learned.features import net_shape
from skills.learned.paths import LearnedError
from worlds.gridworld.spec import make_vocab
from worlds.knowledge import load_kb


def restrict(src: str | Path, goals: list[str], out: str | Path, why: str = "") -> Path:
    """Write `out`: `src`'s network, its card listing only `goals` (each one it was trained on)."""
    kb = load_kb("1.11.2")
    vocab = make_vocab(kb)
    net, card = checkpoint.load(src, expected=net_shape(vocab), vocab=vocab)
    known = list(card.get("goals") or [])
    missing = [g for g in goals if g not in known]
    if not goals or missing:
        raise LearnedError(
            f"{', '.join(missing) or 'no goal'} not among the goals {str(src)!r} was trained on; "
            f"accepted: some of {', '.join(known)}"
        )
    kept = {k: v for k, v in card.items() if k not in ("goals", "skill_success", "file", "bytes")}
    kept["restricted"] = {"from": str(src), "trained_on": known, "drives": list(goals), "why": why}
    if "restricted" in card:  # cut again: what it was cut from before stays on record
        kept["restricted"]["earlier"] = card["restricted"]
    return checkpoint.save(out, net, vocab_version=vocab.version, goals=list(goals), card=kept)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.controller.restrict", description=__doc__.split("\n\n")[0])
    ap.add_argument("checkpoint", help="a controller checkpoint (.pt) written by 'deps train' or the pipeline")
    ap.add_argument("--goals", required=True, help="comma-separated goals it keeps, e.g. mine:emerald,mine:flint")
    ap.add_argument("--out", required=True, help="the new checkpoint's path (.pt; its .card.json beside it)")
    ap.add_argument("--why", default="", help="recorded in the card: how the goals were chosen")
    a = ap.parse_args(argv)
    goals = [g.strip() for g in a.goals.split(",") if g.strip()]
    try:
        path = restrict(a.checkpoint, goals, a.out, a.why)
    except LearnedError as e:
        print(f"restrict: error: {e}", file=sys.stderr)
        return 2
    print(f"{path}: drives {', '.join(goals)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
