"""One eval at a time per out dir, and no writing through links in it.

    with OutDirLock(out):          # the second eval on the same --out gets one line, exit 2
        refuse_links(out)
        ...

The lock is fcntl.flock on `OUT/.lock` (opened with O_NOFOLLOW), held for the whole eval and
released by the OS when the process ends, however it ends (SIGKILL included): a crashed
eval never leaves a stale lock. The file keeps the holder's pid for the message.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

from evaluation.identity import RUN_JSON, SUMMARY_JSON, EvalError
from evaluation.store import JSONL_NAME, STORE_NAME

LOCK_NAME = ".lock"
# every name an eval writes in its out dir (the report and plots too)
OUT_NAMES = (
    RUN_JSON,
    SUMMARY_JSON,
    JSONL_NAME,
    STORE_NAME,
    f"{STORE_NAME}-wal",
    f"{STORE_NAME}-shm",
    f"{STORE_NAME}-journal",
    "report.md",
    "success_by_group.png",
    "sweep.png",
    "compare.png",
    "traces.html",
)

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no lock, the rest still holds
    fcntl = None  # type: ignore[assignment]


class OutDirLock:
    """An exclusive, non-blocking lock on an eval's out dir (flock on OUT/.lock)."""

    def __init__(self, out: str | os.PathLike[str]):
        self.out = Path(out)
        self.path = self.out / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> OutDirLock:
        if fcntl is None:  # pragma: no cover
            return self
        try:
            fd = os.open(
                self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o644
            )
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise EvalError(
                    f"{self.path} is a symbolic link; deps eval never writes through links: "
                    "remove it, or choose another --out"
                ) from None
            raise EvalError(f"cannot lock {self.out} ({exc.strerror or exc}); choose another --out") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _read_pid(fd)
            os.close(fd)
            raise EvalError(
                f"another deps eval{f' (pid {holder})' if holder else ''} is writing to {self.out}; "
                "wait for it to finish, or choose another --out"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # closing the descriptor releases the flock

    def __enter__(self) -> OutDirLock:
        return self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()


def _read_pid(fd: int) -> str:
    try:
        return os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return ""


def refuse_links(out: str | os.PathLike[str], names: tuple[str, ...] = OUT_NAMES) -> None:
    """One line (EvalError) if a file the eval writes in `out` is a symbolic link: the eval
    would write into whatever it points to. Temp files (`NAME.tmp`) are not refused: they are
    always created anew (evaluation/safe_files.py), replacing a link rather than following it."""
    out = Path(out)
    links = [n for n in names if (out / n).is_symlink()]
    if links:
        raise EvalError(
            f"{out / links[0]} is a symbolic link; deps eval never writes through links: "
            "remove it, or choose another --out"
        )
