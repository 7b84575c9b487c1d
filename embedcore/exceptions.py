"""The lab's one family of errors: data or a setting that cannot be used as given.

A leaf module: it imports nothing from embedcore, so every other module can raise these.
Each message says what to fix (a file, a line, a column, a value, a parameter).
"""

from __future__ import annotations

__all__ = ["DataError", "BatchError"]


class DataError(ValueError):
    """Data or a setting that cannot be used as given; the message says what to fix.

    Examples
    --------
    >>> try:
    ...     raise DataError("points.csv, line 3: 'oops' is not a number. Fix the cell or delete the row.")
    ... except ValueError as err:  # a DataError is a ValueError, as scikit-learn's input errors are
    ...     print(err)
    points.csv, line 3: 'oops' is not a number. Fix the cell or delete the row.
    """


class BatchError(DataError):
    """A batch input or setting that cannot be used (:mod:`embedcore.batch`); the message says what to change.

    Examples
    --------
    >>> issubclass(BatchError, DataError)
    True
    """
