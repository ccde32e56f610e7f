"""Progress display for evaluate(): tqdm when it is installed, plain text otherwise."""

from __future__ import annotations

import sys
import time
from typing import Any, Callable, Optional, Union

ProgressArg = Union[bool, None, Callable[[int, Optional[int]], Any]]


class _TextBar:
    """A line on stderr, rewritten in place on a terminal, at most every half second."""

    def __init__(self, total: Optional[int]):
        self.total = total
        self.last = 0.0
        self.tty = sys.stderr.isatty()

    def update(self, done: int, final: bool = False) -> None:
        now = time.monotonic()
        if not final and now - self.last < 0.5:
            return
        self.last = now
        of = f"/{self.total}" if self.total is not None else ""
        start = "\r" if self.tty else ""
        end = "\n" if final or not self.tty else ""
        sys.stderr.write(f"{start}ragmeter: {done}{of} rows{end}")
        sys.stderr.flush()

    def close(self, done: int) -> None:
        self.update(done, final=True)


class _TqdmBar:
    def __init__(self, tqdm: Any, total: Optional[int]):
        self.bar = tqdm(total=total, unit="rows", desc="ragmeter", leave=True)

    def update(self, done: int, final: bool = False) -> None:
        self.bar.update(done - self.bar.n)

    def close(self, done: int) -> None:
        self.update(done)
        self.bar.close()


class Progress:
    """What evaluate() calls with the rows done so far; closes the bar at the end."""

    def __init__(self, progress: ProgressArg, total: Optional[int]):
        self.callback: Optional[Callable[[int, Optional[int]], Any]] = None
        self.bar: Any = None
        self.total = total
        self.done = 0
        if callable(progress):
            self.callback = progress
        elif progress:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                self.bar = _TextBar(total)
            else:
                self.bar = _TqdmBar(tqdm, total)

    def __call__(self, done: int) -> None:
        self.done = done
        if self.bar is not None:
            self.bar.update(done)
        if self.callback is not None:
            self.callback(done, self.total)

    def close(self, done: Optional[int] = None) -> None:
        if done is not None:
            self.done = done
        if self.bar is not None:
            self.bar.close(self.done)
            self.bar = None
