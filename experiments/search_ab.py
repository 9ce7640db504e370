"""The experts' path search of this tree against the one of an earlier commit: the same answers
on random questions, and the time each took.

    python -m experiments.search_ab --rev 794fbc2 --seed 0 --worlds 64 --questions 300

Each question is a world of the batch, a start (the agent's cell or a random one on the surface),
targets (the nearest 1, 4 or 32 blocks of one to three breakable kinds), a node budget, a slack,
and one time in five a stand predicate; the agent's tools and blocks change at random between
questions. Both searches run on the same world, one after the other. `--rev`'s
`worlds/gridworld/paths.py` is read with `git show` and loaded as a module of its own, so this
tree's other modules serve both. Exit status 1 if any answer differs.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TOOLS = ("wooden_pickaxe", "stone_pickaxe", "iron_pickaxe", "dirt", "cobblestone", "wooden_axe")


def load_rev(rev: str):
    """`rev`'s paths.py as a module named paths_<rev>."""
    root = Path(__file__).resolve().parents[1]
    text = subprocess.run(
        ["git", "-C", str(root), "show", f"{rev}:worlds/gridworld/paths.py"], capture_output=True, text=True
    )
    if text.returncode != 0:
        raise SystemExit(f"search_ab: cannot read worlds/gridworld/paths.py at {rev!r}: {text.stderr.strip()}")
    with tempfile.TemporaryDirectory() as tmp:  # the file is read once, as the module is made
        path = Path(tmp) / f"paths_{rev}.py"
        path.write_text(text.stdout)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", default="794fbc2", help="the commit to compare with (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--worlds", type=int, default=64, help="worlds in the batch (default: %(default)s)")
    ap.add_argument("--questions", type=int, default=300, help="questions drawn (default: %(default)s)")
    args = ap.parse_args(argv)

    from worlds.gridworld import paths as new
    from worlds.gridworld.batch import BatchGridWorld
    from worlds.knowledge import load_kb

    old = load_rev(args.rev)
    rng = np.random.default_rng(args.seed)
    env = BatchGridWorld(args.worlds, load_kb("1.11.2"))
    env.reset([int(x) for x in rng.integers(0, 10**6, args.worlds)])
    kinds = [c for c in range(len(env.vocab.cells)) if env.rules.breakable[c]]
    tools = [env.vocab.item_id[t] for t in TOOLS]
    t_old = t_new = 0.0
    asked = same = failed = 0
    for _ in range(args.questions):
        i = int(rng.integers(args.worlds))
        if rng.random() < 0.3:
            env.inv[i, tools[int(rng.integers(len(tools)))]] ^= 1
        cells = {int(c) for c in rng.choice(kinds, size=int(rng.integers(1, 4)), replace=False)}
        targets = new.candidates(env, i, cells, set(), k=int(rng.choice([1, 4, 32])))
        if not targets:
            continue
        start = tuple(int(v) for v in env.pos[i])
        if rng.random() < 0.5:  # somewhere else on the surface
            x, z = int(rng.integers(env.X)), int(rng.integers(env.Z))
            start = (x, int(np.nonzero(~env.rules.passable[env.cells[i, x, z]])[0].max()) + 1, z)
        nodes, slack = int(rng.choice([2000, 20000, new.MIN_NODES])), int(rng.choice([0, 1, 3]))
        stand = None
        if rng.random() < 0.2:
            g = targets[0]
            stand = lambda s, g=g: abs(s[0] - g[0]) + abs(s[2] - g[2]) <= 2 and s[1] >= g[1] - 1  # noqa: E731
        t0 = time.perf_counter()
        a = old._search(old.Terrain(env, i), start, targets, nodes, stand, slack)
        t1 = time.perf_counter()
        b = new._search(new.Terrain(env, i), start, targets, nodes, stand, slack)
        t2 = time.perf_counter()
        t_old, t_new = t_old + t1 - t0, t_new + t2 - t1
        asked, same, failed = asked + 1, same + (a == b), failed + (a is None)
        if a != b:
            print(f"differs: world {i}, start {start}, targets {targets[:3]}, budget {nodes}, slack {slack}")
    print(
        f"{same} of {asked} answers the same ({failed} failed searches); {args.rev} {t_old:.1f} s, "
        f"this tree {t_new:.1f} s: {t_old / max(t_new, 1e-9):.2f} times faster"
    )
    return 0 if same == asked else 1


if __name__ == "__main__":
    sys.exit(main())
