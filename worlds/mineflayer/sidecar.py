"""The Python end of the Node sidecar (worlds/mineflayer/sidecar/bot.js): start it, send one
JSON line per command, read the answer with the same id.

Errors are `MineflayerError` with a `kind` the world and the CLI map to one line:
  no_node      Node.js is not installed (or not on PATH)
  no_modules   the sidecar's npm packages are not installed (`make mineflayer`)
  refused      the server refused the connection (nothing listening at HOST:PORT)
  timeout      the server or the sidecar did not answer in time
  disconnected the server closed the connection (kicked, stopped, network)
  crashed      the sidecar process died
and the sidecar's own kinds for a command the game refused (not_found, no_recipe, ...).
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import shutil
import subprocess
import threading
from collections import deque
from pathlib import Path
from typing import Any

from worlds.base import WorldError

SIDECAR_DIR = Path(__file__).resolve().parent / "sidecar"
CONNECTION_KINDS = ("no_node", "no_modules", "refused", "timeout", "disconnected", "crashed")


class MineflayerError(WorldError):
    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind

    @property
    def connection(self) -> bool:
        """The world cannot go on (no server, no Node, the sidecar gone), as against one refused command."""
        return self.kind in CONNECTION_KINDS


def node_binary() -> str:
    node = shutil.which("node")
    if node is None:
        raise MineflayerError(
            "no_node",
            "Node.js is not installed (the mineflayer world runs a Node sidecar); "
            "install Node 18 or newer, then `make mineflayer`",
        )
    return node


def modules_installed() -> bool:
    return (SIDECAR_DIR / "node_modules" / "mineflayer" / "package.json").is_file()


def installed() -> str:
    """What `deps doctor` reports: Node's version and the sidecar's mineflayer, or why it cannot run."""
    node = node_binary()
    if not modules_installed():
        raise MineflayerError("no_modules", "the sidecar's npm packages are not installed (make mineflayer)")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
    package = json.loads((SIDECAR_DIR / "node_modules" / "mineflayer" / "package.json").read_text())
    return f"Node {version}, mineflayer {package['version']}"


class Sidecar:
    """One `node bot.js` process.  `call(cmd, **args)` returns the command's result or raises."""

    def __init__(self, timeout_s: float = 60.0):
        self.timeout_s = timeout_s
        self.proc: subprocess.Popen | None = None
        self._answers: queue.Queue = queue.Queue()
        self._next_id = 0
        self.events: list[dict] = []  # lines the sidecar sent on its own ({"event": "end", ...})
        self._stderr: deque[str] = deque(maxlen=40)
        self.left_standing: list[list[int]] = []  # furnaces this bot placed and could not take back

    def start(self) -> None:
        node = node_binary()
        if not modules_installed():
            raise MineflayerError(
                "no_modules",
                f"the sidecar's npm packages are missing in {SIDECAR_DIR}/node_modules; run `make mineflayer` (npm ci)",
            )
        self.proc = subprocess.Popen(
            [node, str(SIDECAR_DIR / "bot.js")],
            cwd=SIDECAR_DIR,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            env={**os.environ, "NODE_NO_WARNINGS": "1"},
        )
        self._answers = queue.Queue()
        atexit.register(self.close)  # the bot leaves the server when Python exits
        # each process has its own answer queue: a dead one's reader cannot end the next one's calls
        threading.Thread(target=self._read, args=(self.proc, self._answers), daemon=True).start()
        threading.Thread(target=self._drain, args=(self.proc,), daemon=True).start()

    def _read(self, proc: subprocess.Popen, answers: queue.Queue) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "event" in msg:
                self.events.append(msg)
            else:
                answers.put(msg)
        answers.put(None)  # the process ended

    def _drain(self, proc: subprocess.Popen) -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if "deprecated event" not in line:  # mineflayer-pvp's physicTick warning, on every start
                self._stderr.append(line.rstrip())

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def call(self, cmd: str, timeout_s: float | None = None, **args: Any) -> Any:
        if not self.alive:
            raise MineflayerError(
                "crashed",
                "the mineflayer sidecar is not running"
                + (f" (it exited with {self.proc.returncode})" if self.proc else ""),
            )
        self._next_id += 1
        rid = self._next_id
        try:
            assert self.proc is not None and self.proc.stdin is not None
            self.proc.stdin.write(json.dumps({"id": rid, "cmd": cmd, **args}) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise MineflayerError("crashed", f"the mineflayer sidecar died ({e.__class__.__name__})") from None
        limit = timeout_s or self.timeout_s
        while True:
            try:
                msg = self._answers.get(timeout=limit)
            except queue.Empty:
                raise MineflayerError("timeout", f"the sidecar gave no answer to {cmd!r} in {limit:g} s") from None
            if msg is None:
                tail = "; ".join(list(self._stderr)[-3:])
                raise MineflayerError("crashed", "the mineflayer sidecar exited" + (f": {tail}" if tail else ""))
            if msg.get("id") != rid:
                continue  # the answer to a call that timed out earlier
            if msg.get("ok"):
                return msg.get("result")
            raise MineflayerError(msg.get("kind") or "error", msg.get("error") or "the sidecar failed")

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            if proc.poll() is None and proc.stdin is not None:
                proc.stdin.close()  # bot.js quits the server and exits when stdin closes
            proc.wait(timeout=5)
        except (subprocess.TimeoutExpired, OSError):
            proc.kill()
            proc.wait(timeout=5)
