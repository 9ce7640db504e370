"""`--world minedojo`: the agent's goals as MineDojo's observations and actions.

- ids.py: MineDojo's item and craft ids and its masks' rule (worlds/data/minedojo.json, copied
  from the minedojo package by extract.py);
- actions.py: skills as MultiDiscrete([3,3,4,25,25,8,244,36]) arrays;
- world.py: MineDojoWorld, the `World` protocol over a MineDojo-shaped env;
- navigator.py: the scripted controller for mine and kill over voxels, lidar and position;
- standin.py: the project's stand-in simulator (the grid world behind MineDojo's spaces);
- sensors.py: what the adapter asks MineDojo to observe.

`make_world(settings, kb, task)` is the factory the parts' registry names; its options are
`MineDojoOptions` (`settings.option("minedojo")`).  docs/worlds-minedojo.md says what was run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from worlds.minedojo.ids import MineDojoError
from worlds.minedojo.sensors import IMAGE_SIZE

BACKENDS = ("standin", "simulator")


@dataclass
class MineDojoOptions:
    backend: str = field(
        default="standin",
        metadata={
            "help": "minedojo: 'standin' (the grid world behind MineDojo's spaces; runs anywhere) or 'simulator' "
            "(the real MineDojo: needs the minedojo package and Java 8)",
            "metavar": "NAME",
            "flag": "--minedojo-backend",
        },
    )
    image_height: int = field(
        default=IMAGE_SIZE[0],
        metadata={
            "help": "minedojo: the rgb observation's height in pixels (default: 160)",
            "metavar": "PX",
            "bounds": (16, 1024),
            "flag": "--minedojo-image-height",
        },
    )
    image_width: int = field(
        default=IMAGE_SIZE[1],
        metadata={
            "help": "minedojo: the rgb observation's width in pixels (default: 256)",
            "metavar": "PX",
            "bounds": (16, 1024),
            "flag": "--minedojo-image-width",
        },
    )
    unit_budget: int = field(
        default=600,
        metadata={
            "help": "minedojo: MineDojo steps one mine or kill unit may use before it is given up (default: 600)",
            "metavar": "N",
            "bounds": (1, 100000),
            "flag": "--minedojo-unit-budget",
        },
    )


def _options(settings: Any) -> MineDojoOptions:
    try:
        opts = settings.option("minedojo")
    except Exception:  # settings from before the parts' registry: the defaults
        opts = MineDojoOptions()
    if opts.backend not in BACKENDS:
        raise MineDojoError(f"unknown MineDojo backend {opts.backend!r}; accepted: {', '.join(BACKENDS)}")
    return opts


def make_world(settings: Any, kb: Any, task: Any) -> Any:
    """The MineDojo world reset for `task`: the stand-in, or the real simulator when asked for."""
    from worlds.minedojo.world import MineDojoWorld

    opts = _options(settings)
    if kb.version != "1.11.2":
        raise MineDojoError(f"MineDojo plays Minecraft 1.11.2, not {kb.version}; accepted: --mc-version 1.11.2")
    inventory = {**task.inventory, **settings.inventory}
    size = (opts.image_height, opts.image_width)
    skills = set(settings.skills) if getattr(settings, "skills", None) else None
    if opts.backend == "simulator":
        env = make_simulator(task, inventory, size, settings.seed)
        budget = int(task.max_steps)
    else:
        from worlds.gridworld.world import GridWorld
        from worlds.minedojo.standin import StandinSim

        env = StandinSim(kb, image_size=size)
        budget = GridWorld.budget_steps(task.max_steps)  # one stand-in step is one grid step (0.25 s)
    world = MineDojoWorld(env, kb, allowed_skills=skills, unit_budget=opts.unit_budget)
    world.reset(
        seed=settings.seed,
        options={"inventory": inventory, "biome": task.biome, "max_steps": budget, "target": task.target},
    )
    return world


def make_simulator(task: Any, inventory: dict[str, int], image_size: tuple[int, int], seed: int) -> Any:
    """The real MineDojo environment for `task` (not run in this project's tests: its reset()
    builds Minecraft with Gradle and needs Java 8)."""
    try:
        import minedojo
        from minedojo.sim import InventoryItem
    except ImportError:
        raise MineDojoError(
            "the real MineDojo simulator needs the minedojo package, which is not installed here; "
            "accepted: --minedojo-backend standin, or run from MineDojo's environment (make minedojo-env) "
            "on a machine with Java 8"
        ) from None
    from worlds.minedojo.sensors import make_kwargs

    names, counts = zip(*sorted(task.target.items())) if task.target else (("log",), (1,))
    items = [InventoryItem(slot=i, name=n, variant=None, quantity=q) for i, (n, q) in enumerate(inventory.items())]
    return minedojo.make(
        "harvest",
        target_names=list(names),
        target_quantities=list(counts),
        image_size=image_size,
        initial_inventory=items or None,
        seed=seed,
        **make_kwargs(),
    )
