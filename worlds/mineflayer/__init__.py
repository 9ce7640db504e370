"""The mineflayer world: the agent on a real Minecraft server, through a Node sidecar.

`make_world` is the factory the parts' registry names (`--world mineflayer`); its options are
`MineflayerOptions` (`--server HOST:PORT`, `--bot-name`, `--server-version`, the timeouts).
"""
from __future__ import annotations

import threading
from typing import Any

from .sidecar import MineflayerError, Sidecar
from .world import MineflayerOptions, MineflayerWorld

__all__ = ["MineflayerError", "MineflayerOptions", "MineflayerWorld", "make_world"]

# one sidecar (one bot, one login) per server and bot name in a process: the episodes of an eval
# reuse it instead of starting Node and joining again each time; it quits when Python exits
_SIDECARS: dict[tuple[str, str], Sidecar] = {}
_LOCK = threading.Lock()


def _sidecar(opts: MineflayerOptions) -> Sidecar:
    with _LOCK:
        key = (opts.server, opts.bot_name)
        if key not in _SIDECARS:
            _SIDECARS[key] = Sidecar(timeout_s=opts.action_timeout + 10)
        return _SIDECARS[key]


def make_world(settings: Any, kb: Any, task: Any) -> MineflayerWorld:
    """The mineflayer world joined to the server and reset for `task`: the task's inventory with
    the user's on top (given by /give), its step budget and target.  A server that cannot be
    reached, or a missing Node: MineflayerError, one line."""
    opts = settings.option("mineflayer")
    world = MineflayerWorld(kb, opts, allowed_skills=set(settings.skills) if settings.skills else None,
                            sidecar=_sidecar(opts))
    try:
        world.reset(seed=settings.seed, options={"inventory": {**task.inventory, **settings.inventory},
                                                 "max_steps": task.max_steps, "target": task.target})
    except BaseException:
        world.close()
        raise
    return world
