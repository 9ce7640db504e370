"""What a failed try did in its last steps: the skill table's `--why N` (experiments/skill_table.py).

A failure count says how tries ended (died, stalled, out of steps), not what the policy was doing
meanwhile. `Recorder` keeps, for each world of a batched rollout (training/controller/rollout.py),
its last N steps: the action, the block the step broke, the mob it killed, where the agent
stood, and for a learned mine goal the steps along the three axes to the nearest source left
(skills/learned/progress.py, the distance that renews a pursuit's budget). `summary` turns them
into one small dict per try, so a table of flint's stalls reads "broke 15 stone and no gravel,
the nearest gravel 3 levels below, 450 attacks" instead of "stalled", and a death names what
killed the agent ("killed_by").
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any

import numpy as np

from worlds.gridworld.spec import PRIMITIVES


class Recorder:
    """The last `last` steps of each of a rollout's `n` worlds."""

    def __init__(self, n: int, last: int):
        self.steps: list[deque] = [deque(maxlen=last) for _ in range(n)]

    def step(self, env: Any, i: int, action: int, event: dict | None, progress: Any = None) -> None:
        """World i took `action` and the world answered `event`; `progress`: its mine goal's Progress."""
        far = progress.distance() if progress is not None else None
        event = event or {}
        self.steps[i].append(
            (int(action), event.get("broke"), tuple(int(c) for c in env.pos[i]), far, event.get("killed"))
        )

    def summary(self, env: Any, i: int, progress: Any = None) -> dict:
        """What world i did in its recorded steps: blocks broken, mobs killed, the five commonest
        actions, how far it moved on each axis, what killed the agent if it died, and (a mine goal)
        the nearest source: its distance at the end, the least on the way, and where it lay from
        the agent (dx, dy, dz)."""
        rec = list(self.steps[i])
        if not rec:
            return {"steps": 0}
        pos = np.array([r[2] for r in rec])
        out: dict = {
            "steps": len(rec),
            "broke": dict(Counter(r[1] for r in rec if r[1]).most_common()),
            "actions": dict(Counter(PRIMITIVES[r[0]] for r in rec).most_common(5)),
            "moved": [int(v) for v in pos.max(0) - pos.min(0)],  # extent on x, y, z
        }
        killed = Counter(r[4] for r in rec if r[4])
        if killed:
            out["killed"] = dict(killed.most_common())
        if bool(env.dead[i]):
            out["killed_by"] = str(env.last_hurt[i])
        dist = [r[3] for r in rec if r[3] is not None and np.isfinite(r[3])]
        if dist:
            out["nearest_source"], out["nearest_source_least"] = int(dist[-1]), int(min(dist))
        spots = getattr(progress, "spots", None)
        if spots is not None and len(spots):
            k = int(np.abs(spots - env.pos[i]).sum(1).argmin())
            out["nearest_source_at"] = [int(v) for v in spots[k] - env.pos[i]]
        return out


def describe(why: dict) -> str:
    """One line for a try's summary (the skill table's stderr)."""
    if not why.get("steps"):
        return "no steps recorded"
    broke = ", ".join(f"{n} {b}" for b, n in why["broke"].items()) or "nothing"
    acts = ", ".join(f"{a} {n}" for a, n in why["actions"].items())
    near = ""
    if "nearest_source" in why:
        at = why.get("nearest_source_at")
        near = f"; nearest source {why['nearest_source']} steps away" + (f" at {tuple(at)}" if at else "")
        near += f" (least {why['nearest_source_least']})"
    kills = ", ".join(f"{n} {m}" for m, n in why.get("killed", {}).items())
    kills = f"; killed {kills}" if kills else ""
    by = why.get("killed_by")
    death = "" if not by else "; burned in lava" if by == "lava" else f"; killed by a {by}"
    return f"last {why['steps']} steps broke {broke}{kills}{near}; moved {tuple(why['moved'])}; {acts}{death}"
