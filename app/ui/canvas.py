"""What the lab's canvas components share: building one from its folder, and putting it on the page.

Each component (``app/ui/map``, ``bars``, ``lines``, ``heatmap``, ``view3d``) is a folder holding ``logic.js``
(the pure parts, tested in node), the drawing script and its CSS. Components v2 takes one ES module, so the
logic is inlined above the script with its ``export`` words dropped: no build step. Every component gets
:data:`ACCESS` too (its logic first, its DOM class after the component's logic, its CSS first): the focusable,
described region, the announcements and the table view that keyboard and screen-reader users rely on.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import streamlit as st


#: The DOM the bar and line charts share (:func:`component`'s ``base``).
CHART_BASE = Path(__file__).parent / "chart"
#: What every component shares for keyboard and screen-reader users (``access.js`` on ``logic.js``).
ACCESS = Path(__file__).parent / "access"


def component(name: str, folder: Path, script: str, css: str | None = None, also=(), base: Path | None = None):
    """The Components v2 component ``name`` from ``folder``: logic.js followed by ``script``, styled by ``css``.
    ``also``: other components' folders whose logic.js goes first (the line chart draws its axes with the bar
    chart's tick logic); ``base``: a folder whose .js (classes the script builds on) goes after the logic and
    whose .css goes first (:data:`CHART_BASE` for the charts)."""
    logic = "\n".join((f / "logic.js").read_text(encoding="utf-8") for f in (ACCESS, *also, folder))
    logic = logic.replace("export function", "function").replace("export const", "const")
    shared = [ACCESS / "access.js", *(sorted(base.glob("*.js")) if base else ())]
    shared_js = "".join(f.read_text(encoding="utf-8") + "\n" for f in shared)
    styles = [(ACCESS / "access.css").read_text(encoding="utf-8")]
    styles += [f.read_text(encoding="utf-8") for f in sorted(base.glob("*.css"))] if base else []
    if css is not None:
        styles.append((folder / css).read_text(encoding="utf-8"))
    return st.components.v2.component(name, js=logic + "\n" + shared_js + (folder / script).read_text(encoding="utf-8"),
                                      css="\n".join(styles))


def signature(data: dict, default=None) -> str:
    """A short hash of what a component is sent (its JSON, keys sorted): the browser redraws only when it changes."""
    return hashlib.sha1(json.dumps(data, sort_keys=True, default=default).encode()).hexdigest()[:20]


def mount(comp, where, *, key: str, data: dict, **kwargs) -> None:
    """Put ``comp`` with ``data`` in ``where`` (a container or column; None or ``st``: here), its height its
    content's; ``kwargs`` are the component's callbacks. The data gets the page's type scale (larger in
    presentation mode, where the component also fits itself to the window), part of what decides a redraw."""
    from app.ui.layout import PRESENT_TYPE, presenting

    scale = PRESENT_TYPE if presenting() else 1.0
    if data.get("typeScale", 1.0) != scale:  # and whole in the window under the tour's bar (see fitToWindow)
        data = {**data, "typeScale": scale, "fit": True, "sig": f"{data.get('sig', '')}|{scale}"}
    if where is None or where is st:
        comp(key=key, data=data, height="content", **kwargs)
    else:
        with where:
            comp(key=key, data=data, height="content", **kwargs)
