"""Writing results without losing or corrupting them, and without writing where we should not.

- `write_atomic`: a whole file replaced at once (temp file, fsync, rename). The temp file is
  created new (O_CREAT | O_EXCL | O_NOFOLLOW) after removing whatever had its name, so a
  link planted at `FILE.tmp` is replaced, never written through; the rename replaces a link
  at FILE itself rather than following it.
- `append_line`: one JSON line appended with a single os.write on an O_APPEND descriptor
  opened with O_NOFOLLOW, then fsync. A short write (a full disk) is cut back to the file's
  size before it, so the file never ends in half a line; the caller hears an OSError.
- `repair_jsonl`: drops a truncated last line left by a crash or an older writer.
- `safe_name`: a task id as a file name that stays inside its folder.

No project imports: the results store and the out-dir guards both build on this.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,99}")


def safe_name(name: str) -> str:
    """`name` as one path component that cannot leave its folder: kept as it is when it is
    plain (letters, digits, `._+-`, not starting with a dot, at most 100 characters, as every
    built-in task id is), else its plain characters (others become `_`, at most 60) plus 8 hex
    digits of its sha256, so two different names never share a file."""
    if _SAFE.fullmatch(name) and name not in (".", ".."):
        return name
    plain = re.sub(r"[^A-Za-z0-9._+-]", "_", name).lstrip(".")[:60] or "task"
    return f"{plain}-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


def open_new(path: str | os.PathLike[str], mode: int = 0o644) -> int:
    """A new, empty file at `path` for writing (an fd): whatever had that name (a stale temp
    file, a link) is removed first, and the file is created with O_EXCL | O_NOFOLLOW, so the
    write can never land in a file that someone else placed there."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except IsADirectoryError:
        raise OSError(errno.EISDIR, f"{path} is a directory; remove it") from None
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, mode)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:
            raise OSError(errno.ENOSPC, "no space left on device (short write)")
        view = view[n:]


def write_atomic(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Replace `path` with `data` at once: a reader sees the old file or the new one, never a
    part; a crash leaves at most `path.tmp`. A link at `path.tmp` or `path` is replaced, not followed."""
    path = Path(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    tmp = path.with_name(path.name + ".tmp")
    fd = open_new(tmp)
    try:
        _write_all(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        _unlink_quietly(tmp)
        raise
    os.close(fd)
    os.replace(tmp, path)


def _unlink_quietly(path: str | os.PathLike[str]) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def append_line(path: str | os.PathLike[str], line: str) -> None:
    """Append `line` (a newline is added) as one os.write on an O_APPEND fd, then fsync.
    If the write comes back short (a full disk), the file is cut back to its size before the
    write and OSError(ENOSPC) is raised: the file never keeps half a line. Refuses a link."""
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o644)
    try:
        size = os.fstat(fd).st_size
        try:
            n = os.write(fd, data)
        except OSError:
            os.ftruncate(fd, size)
            raise
        if n != len(data):
            os.ftruncate(fd, size)
            raise OSError(
                errno.ENOSPC, f"short write to {path} ({n} of {len(data)} bytes); the partial line was removed"
            )
        os.fsync(fd)
    finally:
        os.close(fd)


def repair_jsonl(path: str | os.PathLike[str]) -> str | None:
    """Drop a truncated last line (no newline at the end, or not JSON) from a JSON-lines file.
    Returns a one-line warning saying what was dropped, or None when the file was whole."""
    path = Path(path)
    if path.is_symlink() or not path.is_file():
        return None
    data = path.read_bytes()
    whole = data.endswith(b"\n")
    stripped = data[:-1] if whole else data
    body, last = stripped[: stripped.rfind(b"\n") + 1], stripped[stripped.rfind(b"\n") + 1 :]
    if not data or (whole and not last.strip()):
        return None
    if whole:  # the last line ends; check it parses (a crash mid-line, then a later newline)
        try:
            json.loads(last)
            return None
        except ValueError:
            pass
    fd = os.open(path, os.O_WRONLY | _NOFOLLOW | _CLOEXEC)
    try:
        os.ftruncate(fd, len(body))
        os.fsync(fd)
    finally:
        os.close(fd)
    return (
        f"{path}: dropped a truncated last line ({len(last)} bytes) left by an interrupted write; "
        "every stored result is still in the store"
    )


def write_lines(path: str | os.PathLike[str], lines: Iterable[str]) -> int:
    """Rewrite a JSON-lines file from `lines` atomically (see write_atomic). Returns the count."""
    out = [ln.rstrip("\n") + "\n" for ln in lines]
    write_atomic(path, "".join(out))
    return len(out)
