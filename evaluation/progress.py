"""Progress of an eval on stderr: done/total, success so far, ETA."""

from __future__ import annotations

import sys
import time


class Progress:
    """done/total, success so far, ETA on stderr (tqdm when installed, plain lines otherwise)."""

    def __init__(self, total: int, done: int, successes: int, enabled: bool, desc: str):
        self.total, self.done, self.successes, self.enabled = total, done, successes, enabled
        self._bar = None
        self._t0 = time.monotonic()
        self._start_done = done
        if not enabled:
            return
        try:
            from tqdm import tqdm
        except ImportError:  # pragma: no cover - tqdm is a dependency
            return
        self._bar = tqdm(
            total=total,
            initial=done,
            file=sys.stderr,
            desc=desc,
            unit="ep",
            dynamic_ncols=True,
            mininterval=0.5,
            smoothing=0.1,
        )
        self._bar.set_postfix_str(self._postfix(), refresh=False)

    def _postfix(self) -> str:
        rate = f"{100.0 * self.successes / self.done:.1f}%" if self.done else "-"
        return f"success {self.successes}/{self.done} ({rate})"

    def update(self, success: bool) -> None:
        self.done += 1
        self.successes += int(bool(success))
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.set_postfix_str(self._postfix(), refresh=False)
            self._bar.update(1)
        else:  # pragma: no cover
            ran = self.done - self._start_done
            el = time.monotonic() - self._t0
            eta = el / ran * (self.total - self.done) if ran else float("nan")
            print(f"[eval] {self.done}/{self.total} {self._postfix()} eta {eta:.0f}s", file=sys.stderr)

    def write(self, msg: str) -> None:
        if self._bar is not None:
            self._bar.write(msg, file=sys.stderr)
        else:
            print(msg, file=sys.stderr)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
