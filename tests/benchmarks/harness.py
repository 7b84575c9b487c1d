"""A tiny benchmark harness: every figure is printed next to a reference timed in the same run."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable


@dataclass
class Result:
    name: str
    ours_s: float
    reference_name: str
    reference_s: float | None
    note: str = ""

    @property
    def speedup(self) -> float | None:
        return None if self.reference_s is None else self.reference_s / self.ours_s


def best_of(fn: Callable[[], object], repeat: int = 3) -> float:
    """Best wall time of ``repeat`` calls (the least disturbed by other work)."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def print_table(results: list[Result]) -> None:
    head = f"{'benchmark':52s} {'ours':>9s} {'reference':>34s} {'ref time':>9s} {'speed-up':>9s}  note"
    print(head)
    print("-" * len(head))
    for r in results:
        ref = "" if r.reference_s is None else f"{r.reference_s:9.3f}"
        sp = "" if r.speedup is None else f"{r.speedup:8.1f}x"
        print(f"{r.name:52s} {r.ours_s:8.3f}s {r.reference_name:>34s} {ref:>9s} {sp:>9s}  {r.note}")
