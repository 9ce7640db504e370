"""Run in MineDojo's environment (make minedojo-env), by tests/test_minedojo.py:

    .venv-minedojo/bin/python tests/minedojo_check.py [LIMIT]

Builds the real MineDojo environment's objects with `minedojo.make` (no reset: that needs
Java 8) for the adapter's configuration, then plays every skill of the oracle planner's
deps71 plans through the adapter on the stand-in (tests/minedojo_sweep.py) and checks each
MineDojo action and observation against MineDojo's own objects:
- `env.action_space.contains(action)` (MineDojo's MultiDiscrete);
- the action is allowed by the masks that MineDojo's own ARMasksWrapper computes from the
  observation's inventory and nearby tools (and those masks equal the stand-in's);
- `env.observation_space.contains(obs)` for every observation the adapter acted on.
Prints one JSON object: the counts, and the first few violations of each kind.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    import minedojo
    import numpy as np
    from minedojo.sim.wrappers.ar_nn.ar_masks_wrapper import ARMasksWrapper

    from tests.minedojo_sweep import sweep
    from worlds.minedojo import ids
    from worlds.minedojo.sensors import IMAGE_SIZE, make_kwargs

    if not hasattr(np, "unicode"):
        # MineDojo 0.1's Text.contains reads np.unicode, which numpy removed in 1.24 (the
        # "numpy<2" its install needs gives 1.26): the same type under its current name
        np.unicode = np.str_
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else None
    env = minedojo.make("harvest", target_names="log", target_quantities=1, image_size=IMAGE_SIZE, **make_kwargs())
    masker = env
    while not isinstance(masker, ARMasksWrapper):
        masker = masker.env
    counts = {"actions": 0, "space_ok": 0, "mask_ok": 0, "masks_equal": 0, "obs_ok": 0}
    bad: dict[str, list[str]] = {"space": [], "mask": [], "masks_differ": [], "obs": []}

    def note(kind: str, text: str) -> None:
        if len(bad[kind]) < 5:
            bad[kind].append(text)

    def check(obs: dict, action: np.ndarray) -> None:
        counts["actions"] += 1
        a = np.asarray(action, dtype=np.int64)
        if env.action_space.contains(a):
            counts["space_ok"] += 1
        else:
            note("space", str(a.tolist()))
        theirs = masker.observation(
            {"inventory": copy.deepcopy(obs["inventory"]), "nearby_tools": dict(obs["nearby_tools"])}
        )["masks"]
        if all(np.array_equal(np.asarray(theirs[k]), np.asarray(obs["masks"][k])) for k in theirs):
            counts["masks_equal"] += 1
        else:
            note("masks_differ", str([k for k in theirs if not np.array_equal(theirs[k], obs["masks"][k])]))
        why = ids.mask_refusal(a, theirs)
        if why is None:
            counts["mask_ok"] += 1
        else:
            note("mask", f"{a.tolist()}: {why}")
        if env.observation_space.contains(obs):
            counts["obs_ok"] += 1
        else:
            wrong = [k for k, sp in env.observation_space.spaces.items() if not sp.contains(obs.get(k))]
            note("obs", f"keys not contained: {wrong}")

    def controls(obs: dict, action: np.ndarray) -> None:
        """The checks can fail: a value out of MineDojo's ranges, a slot masked off, a wrong shape."""
        if "controls" in counts:
            return
        wide = np.asarray(action, np.int64).copy()
        wide[6] = 244
        empty = int(np.nonzero(obs["inventory"]["name"] == "air")[0][0])
        equip_empty = np.asarray(action, np.int64).copy()
        equip_empty[5], equip_empty[7] = 5, empty
        theirs = masker.observation(
            {"inventory": copy.deepcopy(obs["inventory"]), "nearby_tools": dict(obs["nearby_tools"])}
        )["masks"]
        short = dict(obs, voxels=dict(obs["voxels"], block_name=obs["voxels"]["block_name"][:2]))
        counts["controls"] = {
            "out_of_range_refused": not env.action_space.contains(wide),
            "equip_empty_slot_refused": ids.mask_refusal(equip_empty, theirs) is not None,
            "wrong_shape_refused": not env.observation_space.contains(short),
        }

    def both(obs: dict, action: np.ndarray) -> None:
        controls(obs, action)
        check(obs, action)

    stats = sweep(both, limit=limit, body_budget=600)
    print(
        json.dumps(
            {
                "minedojo": getattr(minedojo, "__version__", "0.1"),
                "counts": counts,
                "bad": bad,
                "goals": stats["goals"],
                "goals_ok": stats["ok"],
                "by_skill": stats["by_skill"],
                "failed": stats["failed"],
            }
        )
    )


if __name__ == "__main__":
    main()
