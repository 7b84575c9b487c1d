"""Showing text that came from a person's file without letting it become markup, and formulas that fit a
projected page."""

from __future__ import annotations

import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|~$])")


def md_escape(text: str) -> str:
    """Escape Markdown so a file name or cell value is shown literally."""
    return _MD_SPECIAL.sub(r"\\\1", str(text))


def html_escape(text: str) -> str:
    """Escape text for Plotly hover labels, which understand a few HTML tags."""
    import html

    return html.escape(str(text), quote=False)


def count(n: int) -> str:
    """A count short enough for a narrow metric: "9,217", "1.37 M" (a metric 100 px wide broke "1,367,240" over
    two lines).

    >>> count(9217), count(1_367_240), count(12_000_000)
    ('9,217', '1.37 M', '12.0 M')
    """
    return f"{n:,}" if abs(n) < 1_000_000 else f"{n / 1e6:.3g} M" if abs(n) < 1e7 else f"{n / 1e6:.1f} M"


def equations(where, *lines: str) -> None:
    r"""Display formulas, each argument on a line of its own, centred (one ``st.latex`` element).

    KaTeX does not wrap display math: a line of several long equations runs past its column (and
    scrolls in its box, cut off on a projected page), so a page gives such a formula in two or three
    lines. A line may hold a few short equations.

    >>> class Where:
    ...     def latex(self, body): print(body)
    >>> equations(Where(), "a = b", r"c = d,\quad e = f")
    \begin{gathered}a = b \\[4pt] c = d,\quad e = f\end{gathered}
    """
    where.latex(r"\begin{gathered}" + r" \\[4pt] ".join(lines) + r"\end{gathered}")
