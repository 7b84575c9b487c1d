"""What the lab's canvas components share: building one from its folder, and putting it on the page.

Each component (``app/ui/map``, ``bars``, ``heatmap``, ``view3d``) is a folder holding ``logic.js`` (the
pure parts, tested in node), the drawing script and its CSS. Components v2 takes one ES module, so the
logic is inlined above the script with its ``export`` words dropped: no build step.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st


def component(name: str, folder: Path, script: str, css: str, also=()):
    """The Components v2 component ``name`` from ``folder``: logic.js followed by ``script``, styled by ``css``.
    ``also``: other components' folders whose logic.js goes first (the line chart draws its axes with the bar
    chart's tick logic)."""
    logic = "\n".join((f / "logic.js").read_text(encoding="utf-8") for f in (*also, folder))
    logic = logic.replace("export function", "function").replace("export const", "const")
    return st.components.v2.component(name, js=logic + "\n" + (folder / script).read_text(encoding="utf-8"),
                                      css=(folder / css).read_text(encoding="utf-8"))


def mount(comp, where, *, key: str, data: dict, **kwargs) -> None:
    """Put ``comp`` with ``data`` in ``where`` (a container or column; None or ``st``: here), its height its
    content's; ``kwargs`` are the component's callbacks."""
    if where is None or where is st:
        comp(key=key, data=data, height="content", **kwargs)
    else:
        with where:
            comp(key=key, data=data, height="content", **kwargs)
