"""Storing an estimator's parameters, scikit-learn's way: a leaf module, importing nothing from embedcore."""

from __future__ import annotations

__all__ = ["keep_parameters"]


def keep_parameters(estimator, arguments: dict) -> None:
    """Store every argument of ``estimator.__init__`` (pass its ``locals()``) under its own name, and nothing else.

    scikit-learn's rule for ``__init__``: each parameter kept as given, no
    checks, no derived values (those belong in ``fit``), so that
    ``get_params``, ``set_params`` and ``clone`` see exactly what was passed.

    Examples
    --------
    >>> class Smoother:
    ...     def __init__(self, *, width=1.0, passes=2):
    ...         keep_parameters(self, locals())
    >>> vars(Smoother(width=0.5))
    {'width': 0.5, 'passes': 2}
    """
    for name, value in arguments.items():
        if name not in ("self", "__class__"):
            setattr(estimator, name, value)
