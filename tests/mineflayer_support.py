"""Test support for the mineflayer world: a flying-squid 1.16.5 server on 127.0.0.1, started on a
free port and stopped after (tests/mineflayer_server/squid.js), optionally with the project's
own crafting and furnace stand-in (tests/mineflayer_server/standin.js).

`skip_reason()` says why these tests cannot run here (no Node, npm packages not installed).
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from worlds.mineflayer.sidecar import SIDECAR_DIR, modules_installed

SERVER_DIR = Path(__file__).resolve().parent / "mineflayer_server"
VERSION = "1.16.5"


def skip_reason() -> str | None:
    if shutil.which("node") is None:
        return "Node.js is not installed (the mineflayer world needs it)"
    if not modules_installed():
        return "the sidecar's npm packages are not installed (make mineflayer)"
    if not (SIDECAR_DIR / "node_modules" / "flying-squid" / "package.json").is_file():
        return "flying-squid (a dev dependency of the sidecar) is not installed (make mineflayer)"
    return None


def smelting_table(kb) -> dict:
    """The project's smelting table, fuel values and mob drops in the server's names, for the stand-in."""
    recipes = {}
    for r in kb.smelt_recipes():
        for name in kb.variants(r.input) or [r.input]:
            recipes.setdefault(name, [r.output, r.count])
    fuels = {}
    for item, value in kb.fuels().items():
        for name in kb.variants(item) or [item]:
            fuels[name] = value
    mob_drops = {mob: dict(kb.mob_drops(mob)) for mob in kb.mobs()}
    return {"recipes": recipes, "fuels": fuels, "mob_drops": mob_drops}


@contextlib.contextmanager
def flying_squid(standin: bool = False, kb=None, timeout_s: float = 60) -> Iterator[int]:
    """A flying-squid server for the duration of the block; yields its port."""
    folder = tempfile.mkdtemp(prefix="deps-squid-")
    env = {**os.environ, "NODE_PATH": str(SIDECAR_DIR / "node_modules"), "NODE_NO_WARNINGS": "1"}
    if standin and kb is not None:
        env["DEPS_STANDIN_TABLES"] = json.dumps(smelting_table(kb))
    cmd = ["node", str(SERVER_DIR / "squid.js"), "--port", "0", "--version", VERSION, "--folder", folder]
    if standin:
        cmd.append("--standin")
    proc = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )
    lines: queue.Queue = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    try:
        while True:
            line = lines.get(timeout=timeout_s)
            if line is None:
                raise RuntimeError(f"flying-squid exited with {proc.wait()} before listening")
            if line.startswith("{") and "listening" in line:
                port = int(json.loads(line)["listening"])
                break
        yield port
    finally:
        if proc.stdin is not None:
            proc.stdin.close()  # squid.js exits when its stdin closes
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":  # a server for runs by hand: python -m tests.mineflayer_support [--standin]
    import sys
    import time

    from worlds.knowledge import load_kb

    with flying_squid(standin="--standin" in sys.argv, kb=load_kb(VERSION)) as served:
        print(
            f"flying-squid {VERSION} on 127.0.0.1:{served}"
            + (" with the stand-in" if "--standin" in sys.argv else "")
            + "; Ctrl-C stops it",
            flush=True,
        )
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
