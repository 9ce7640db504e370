"""The mineflayer world: the agent on a real Minecraft server, through a Node sidecar.

`make_world` is the factory the parts' registry names (`--world mineflayer`); its options are
`MineflayerOptions` (`--server HOST:PORT`, `--bot-name`, `--server-version`, the timeouts).
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

from .sidecar import MineflayerError, Sidecar
from .world import MineflayerOptions, MineflayerWorld

__all__ = ["MineflayerError", "MineflayerOptions", "MineflayerWorld", "make_world"]

# one sidecar (one bot, one login) per server, bot name and thread in a process: the episodes of an
# eval reuse it instead of starting Node and joining again each time; it quits when Python exits.
# Eval workers run in threads: the first plays as NAME, the k-th as NAMEk (one login per name).
_SIDECARS: dict[tuple[str, str, int], tuple[Sidecar, str]] = {}
_LOCK = threading.Lock()


def _sidecar(opts: MineflayerOptions) -> tuple[Sidecar, str]:
    with _LOCK:
        key = (opts.server, opts.bot_name, threading.get_ident())
        if key not in _SIDECARS:
            k = sum(1 for s, n, _ in _SIDECARS if (s, n) == key[:2]) + 1
            name = opts.bot_name if k == 1 else f"{opts.bot_name[:14]}{k}"
            _SIDECARS[key] = (Sidecar(timeout_s=opts.action_timeout + 10), name)
        return _SIDECARS[key]


def make_world(settings: Any, kb: Any, task: Any) -> MineflayerWorld:
    """The mineflayer world joined to the server and reset for `task`: the task's inventory with
    the user's on top (given by /give), its step budget and target.  A server that cannot be
    reached, or a missing Node: MineflayerError, one line."""
    opts = settings.option("mineflayer")
    sidecar, name = _sidecar(opts)
    if name != opts.bot_name:
        opts = replace(opts, bot_name=name)
    world = MineflayerWorld(kb, opts, allowed_skills=set(settings.skills) if settings.skills else None, sidecar=sidecar)
    try:
        world.reset(
            seed=settings.seed,
            options={
                "inventory": {**task.inventory, **settings.inventory},
                "max_steps": task.max_steps,
                "target": task.target,
            },
        )
    except BaseException:
        world.close()
        raise
    return world
