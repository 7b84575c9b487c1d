"""The lab's one categorical palette, and the marks that go with it.

Every category the lab colours (a map's legend, a Plotly chart's series) takes its colour from
:data:`PALETTE`: twelve colours chosen to stay apart for readers with a colour-vision deficiency as well as
for everyone else. They were picked from the sRGB cube by a search that made the least difference between
two of them as large as it could in all four visions at once (normal, and protanopia, deuteranopia and
tritanopia simulated after Machado, Oliveira and Fernandes, 2009, at full severity), every colour at 3:1
contrast or more against the white background (WCAG's minimum for graphics). The closest two are 10.2 apart
(CIEDE2000) for deuteranopes and tritanopes, 10.4 for protanopes and 20.4 with full colour vision;
tests/unit/test_palette.py measures it. The first two are the lab's blue and orange, fixed before the
search (50 or more apart in every vision), so a chart of two series or a highlight keeps its look.

Colour alone cannot tell more than a dozen categories apart, and a dozen close colours are hard for
anyone: a map draws each category with a mark (:data:`MARKS`) as well, and :func:`style` gives the
k-th category a colour and a mark such that no two of the first ``len(PALETTE) * len(MARKS)`` share
both. A legend with more categories than that groups the rest as one entry, "N others", in :data:`OTHER`.
"""

from __future__ import annotations

#: Blue, orange, wine, teal, green, olive, sky blue, rose, pink, violet, dark red, brown: in an order
#: where the first few are the farthest apart.
PALETTE = ["#3b5bdb", "#e8590c", "#93185d", "#0c8a96", "#306948", "#90995d",
           "#3c96ff", "#ae666c", "#ed5dc0", "#6300a8", "#870f18", "#8d5418"]

#: The map's marks for categories, in turn (app/ui/map/logic.js holds the same list; a test checks).
MARKS = ("circle", "square", "triangle", "diamond", "plus", "cross")

#: The same marks in Plotly's names, and line dashes for series drawn as lines.
PLOTLY_SYMBOLS = ("circle", "square", "triangle-up", "diamond", "cross", "x")
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")

#: A neutral grey for what is not a category (a curve beside the coloured ones, the plain bars of a pair).
GREY = "#495057"

#: The colour of the "other" entry that holds the categories past the last distinct colour and mark: a light grey
#: that recedes behind the palette (2:1 against white; its points are named in the tooltip).
OTHER = "#adb5bd"


#: The mark each palette colour is drawn with first (an index into :data:`MARKS`): the first six a mark each, and
#: each of the next six the mark of the colour among the first six farthest from it (CIEDE2000 28 or more for
#: every vision, where the marks in turn would pair blue with sky blue, 16 apart for a deuteranope).
FIRST_MARKS = (0, 1, 2, 3, 4, 5, 2, 0, 4, 1, 5, 3)


def style(k: int, colours=PALETTE, marks=MARKS) -> tuple[str, str]:
    """The k-th category's colour and mark: the colours in turn, each with its first mark (:data:`FIRST_MARKS`
    for the palette, the marks in turn for other colours), and each round through the colours moves the marks on
    by one, so the first ``len(colours) * len(marks)`` categories differ in colour or mark (the first
    ``len(colours)`` in colour, the first ``len(marks)`` in both)."""
    c = k % len(colours)
    first = FIRST_MARKS[c] if len(marks) == len(MARKS) and list(colours) == PALETTE else c
    return colours[c], marks[(first + k // len(colours)) % len(marks)]


def distinct(colours=PALETTE, marks=MARKS, *, marked: bool = True) -> int:
    """How many categories :func:`style` tells apart: colours times marks (colours alone when ``marked`` is off)."""
    return len(colours) * (len(marks) if marked else 1)


def plotly_style(k: int, colours=PALETTE) -> tuple[str, str, str]:
    """A chart series' colour, marker symbol and line dash: the colour and mark of :func:`style` (the mark as
    Plotly names it), and a solid line for the first round through the colours, dashed ones after, so no two of
    the first ``len(colours) * 6`` series look alike, markers or lines."""
    colour, mark = style(k, colours)
    return colour, PLOTLY_SYMBOLS[MARKS.index(mark)], DASHES[(k // len(colours)) % len(DASHES)]
