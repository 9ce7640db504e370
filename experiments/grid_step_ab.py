"""The batched grid world's step, an older tree against this one (issue 21): one process per tree,
both holding 256 worlds on the bench's 16 maps and stepping the same random primitives 0..9, told
in turn to take a block of steps, so that whatever else runs on the machine hits both alike.

    git archive 651f327 | tar -x -C /tmp/before
    python -m experiments.grid_step_ab --base /tmp/before [--rounds 5] [--steps 100]

Prints each tree's best wall and CPU milliseconds a step over the rounds, and their ratios.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

CHILD = """
import sys, time
import numpy as np
from worlds.gridworld.batch import BatchGridWorld
from worlds.knowledge import load_kb
n, steps = int(sys.argv[1]), int(sys.argv[2])
b = BatchGridWorld(n, load_kb("1.11.2"))
b.reset([i % 16 for i in range(n)])
rng = np.random.default_rng(0)
def block(k):
    acts = [np.stack([rng.integers(0, 10, n), np.full(n, -1)], axis=1) for _ in range(k)]
    w, c = time.perf_counter(), time.process_time()
    for a in acts:
        b.step(a)
    return (time.perf_counter() - w) / k, (time.process_time() - c) / k
block(steps)  # the mobs start their strolls
print("ready", flush=True)
for line in sys.stdin:
    w, c = block(steps)
    print(f"{1000 * w:.4f} {1000 * c:.4f}", flush=True)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="a folder holding the older tree (its worlds/)")
    ap.add_argument("--rounds", type=int, default=5, help="alternated rounds, best of each kept (default 5)")
    ap.add_argument("--steps", type=int, default=100, help="steps a round (default 100)")
    ap.add_argument("--batch", type=int, default=256, help="worlds in the batch (default 256)")
    a = ap.parse_args()
    trees = {"before": Path(a.base).resolve(), "after": Path(__file__).resolve().parents[1]}
    if not (trees["before"] / "worlds/gridworld/batch.py").is_file():
        ap.error(f"--base {a.base!r} holds no worlds/gridworld/batch.py")
    procs = {
        name: subprocess.Popen(
            [sys.executable, "-c", CHILD, str(a.batch), str(a.steps)],
            cwd=root,
            env={**os.environ, "PYTHONPATH": str(root)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for name, root in trees.items()
    }
    for p in procs.values():
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    best = {name: [float("inf"), float("inf")] for name in procs}
    for r in range(a.rounds):
        for name in procs if r % 2 == 0 else reversed(procs):
            p = procs[name]
            assert p.stdin is not None and p.stdout is not None
            p.stdin.write("go\n")
            p.stdin.flush()
            wall, cpu = (float(x) for x in p.stdout.readline().split())
            best[name] = [min(best[name][0], wall), min(best[name][1], cpu)]
    for p in procs.values():
        assert p.stdin is not None
        p.stdin.close()
        p.wait()
    for name, (wall, cpu) in best.items():
        print(f"{name:6s} {wall:.3f} ms a step (wall), {cpu:.3f} ms (CPU), best of {a.rounds} x {a.steps} steps")
    (bw, bc), (aw, ac) = best["before"], best["after"]
    print(f"after is {bw / aw:.2f}x as fast (wall), {bc / ac:.2f}x (CPU)")


if __name__ == "__main__":
    main()
