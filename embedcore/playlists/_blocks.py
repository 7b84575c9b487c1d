"""Rows of song-by-song work in bounded blocks, with a stop hook polled between them."""

from __future__ import annotations

from .optimizer import Stopped

# Entries of song-by-song work per block: 16 MB in float32, tens of milliseconds of work, so a
# should_stop hook polled between blocks is answered well within a second.
BLOCK = 2**22


def blocks(n_rows: int, row_cost: float, should_stop=None):
    """(start, stop) row ranges of about ``BLOCK`` entries, polling ``should_stop`` before each.

    Raises :class:`.Stopped` when ``should_stop()`` returns True.

    Examples
    --------
    >>> list(blocks(5, BLOCK / 2))
    [(0, 2), (2, 4), (4, 5)]
    """
    step = max(1, int(BLOCK // max(row_cost, 1.0)))
    for a0 in range(0, n_rows, step):
        if should_stop is not None and should_stop():
            raise Stopped
        yield a0, min(a0 + step, n_rows)
