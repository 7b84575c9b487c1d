"""Legend entries that look alike, and the colour science to tell: shared by the palette's unit test, the AppTest
check of every page's Plotly charts and map legends, and the browser test that reads every drawn map legend.

Two entries of one legend look alike when they have the same shape (a map's mark, a chart's marker symbol and
line dash) and colours no one can tell apart: CIEDE2000 below :data:`SAME` (about the least difference seen side
by side). Colour-vision deficiencies are simulated with Machado, Oliveira and Fernandes (2009) at full severity,
on linear RGB.
"""

from __future__ import annotations

import json
import re

import numpy as np

#: Below this CIEDE2000 difference two colours count as the same.
SAME = 3.0

#: Machado, Oliveira & Fernandes (2009), severity 1.0, applied to linear RGB.
MACHADO = {
    "protan": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                        [-0.003882, -0.048116, 1.051998]]),
    "deutan": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                        [-0.011820, 0.042940, 0.968881]]),
    "tritan": np.array([[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                        [0.004733, 0.691367, 0.303900]]),
}
VISIONS = ("normal", "protan", "deutan", "tritan")

_NAMED = {"white": (255, 255, 255), "black": (0, 0, 0), "grey": (128, 128, 128), "gray": (128, 128, 128),
          "red": (255, 0, 0), "green": (0, 128, 0), "blue": (0, 0, 255), "orange": (255, 165, 0)}


def rgb(css: str) -> tuple[float, float, float] | None:
    """A CSS colour ("#rgb", "#rrggbb", "rgb(...)", "rgba(...)", a few names) as sRGB in 0..1; None if unread."""
    s = str(css).strip().lower()
    if s.startswith("#"):
        h = s[1:]
        h = "".join(c + c for c in h) if len(h) in (3, 4) else h
        if len(h) in (6, 8):
            return tuple(int(h[k:k + 2], 16) / 255 for k in (0, 2, 4))
    m = re.match(r"rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)", s)
    if m:
        return tuple(float(v) / 255 for v in m.groups())
    if s in _NAMED:
        return tuple(v / 255 for v in _NAMED[s])
    return None


def linear(c):
    c = np.asarray(c, dtype=np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _encode(c):
    c = np.clip(c, 0, 1)
    return np.where(c <= 0.0031308, c * 12.92, 1.055 * c ** (1 / 2.4) - 0.055)


def simulate(colours, vision: str) -> np.ndarray:
    """sRGB colours (n x 3, 0..1) as a reader with ``vision`` sees them."""
    colours = np.asarray(colours, dtype=np.float64)
    return colours if vision == "normal" else _encode(linear(colours) @ MACHADO[vision].T)


def lab(colours) -> np.ndarray:
    """sRGB (0..1) as CIELAB under D65."""
    m = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
                  [0.0193339, 0.1191920, 0.9503041]])
    xyz = linear(colours) @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


def ciede2000(a, b) -> np.ndarray:
    """CIEDE2000 between CIELAB colours (broadcast over leading axes)."""
    L1, a1, b1 = np.moveaxis(np.asarray(a, dtype=np.float64), -1, 0)
    L2, a2, b2 = np.moveaxis(np.asarray(b, dtype=np.float64), -1, 0)
    C1, C2 = np.hypot(a1, b1), np.hypot(a2, b2)
    Cm = (C1 + C2) / 2
    G = 0.5 * (1 - np.sqrt(Cm ** 7 / (Cm ** 7 + 25.0 ** 7)))
    a1p, a2p = (1 + G) * a1, (1 + G) * a2
    C1p, C2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p, h2p = np.degrees(np.arctan2(b1, a1p)) % 360, np.degrees(np.arctan2(b2, a2p)) % 360
    dLp, dCp = L2 - L1, C2p - C1p
    dh = h2p - h1p
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dh = np.where(C1p * C2p == 0, 0, dh)
    dHp = 2 * np.sqrt(C1p * C2p) * np.sin(np.radians(dh / 2))
    Lm, Cmp, hs = (L1 + L2) / 2, (C1p + C2p) / 2, h1p + h2p
    hm = np.where(C1p * C2p == 0, hs, np.where(np.abs(h1p - h2p) <= 180, hs / 2,
                                               np.where(hs < 360, (hs + 360) / 2, (hs - 360) / 2)))
    T = (1 - 0.17 * np.cos(np.radians(hm - 30)) + 0.24 * np.cos(np.radians(2 * hm))
         + 0.32 * np.cos(np.radians(3 * hm + 6)) - 0.20 * np.cos(np.radians(4 * hm - 63)))
    rot = 30 * np.exp(-(((hm - 275) / 25) ** 2))
    Rc = 2 * np.sqrt(Cmp ** 7 / (Cmp ** 7 + 25.0 ** 7))
    Sl = 1 + 0.015 * (Lm - 50) ** 2 / np.sqrt(20 + (Lm - 50) ** 2)
    Sc, Sh = 1 + 0.045 * Cmp, 1 + 0.015 * Cmp * T
    Rt = -np.sin(np.radians(2 * rot)) * Rc
    return np.sqrt((dLp / Sl) ** 2 + (dCp / Sc) ** 2 + (dHp / Sh) ** 2 + Rt * (dCp / Sc) * (dHp / Sh))


def distances(colours, vision: str = "normal") -> np.ndarray:
    """Pairwise CIEDE2000 of CSS colours as a reader with ``vision`` sees them (the diagonal infinite)."""
    L = lab(simulate([rgb(c) for c in colours], vision))
    d = ciede2000(L[:, None, :], L[None, :, :])
    np.fill_diagonal(d, np.inf)
    return d


def contrast_on_white(css: str) -> float:
    """WCAG contrast ratio of a colour against white."""
    y = float(linear(rgb(css)) @ np.array([0.2126, 0.7152, 0.0722]))
    return 1.05 / (y + 0.05)


def alike(entries) -> list[tuple[str, str]]:
    """The pairs of legend entries, {name, colour, shape}, that look alike: the same shape, and colours less than
    :data:`SAME` apart (colours that cannot be read count as equal only when spelt the same)."""
    out = []
    for k, a in enumerate(entries):
        for b in entries[k + 1:]:
            if a["shape"] != b["shape"]:
                continue
            ca, cb = rgb(a["colour"]), rgb(b["colour"])
            if ca is None or cb is None:
                same = str(a["colour"]).strip().lower() == str(b["colour"]).strip().lower()
            else:
                same = float(ciede2000(lab(np.array(ca)), lab(np.array(cb)))) < SAME
            if same:
                out.append((a["name"], b["name"]))
    return out


# ------------------------------------------------------------------ what a legend holds

def map_entries(data: dict) -> list[dict]:
    """The category entries of a lab map's legend, from the data the map was sent (AppTest) or its colour (what
    :func:`app.ui.map.categories` gives): name, colour, mark."""
    from app.ui.palette import MARKS

    colour = data if "kind" in data else data.get("color") or {}
    if colour.get("kind") != "category":
        return []
    marks = colour.get("marks")
    out = []
    for k, name in enumerate(colour["names"]):
        mark = (marks[k % len(marks)] if isinstance(marks, list) and marks
                else MARKS[k % len(MARKS)] if marks else "circle")
        out.append({"name": name, "colour": colour["colors"][k % len(colour["colors"])], "shape": mark})
    return out


def _first(value):
    return value if isinstance(value, str) else None


def plotly_entries(spec) -> list[dict]:
    """The entries of a Plotly figure's legend (its JSON, or the dict): each trace shown in it, with the colour it
    is drawn in (its own, or the colorway's in turn) and its shape (trace kind, marker symbol, line dash)."""
    fig = json.loads(spec) if isinstance(spec, str) else spec
    layout = fig.get("layout") or {}
    if layout.get("showlegend") is False:
        return []
    way = layout.get("colorway") or (((layout.get("template") or {}).get("layout") or {}).get("colorway")) or []
    out, groups = [], set()
    for i, t in enumerate(fig.get("data") or []):
        kind = t.get("type", "scatter")
        default_shown = kind not in ("heatmap", "contour", "surface", "histogram2d", "pie", "sunburst", "treemap")
        if not t.get("showlegend", default_shown) or not t.get("name"):
            continue
        group = t.get("legendgroup")
        if group:
            if group in groups:
                continue
            groups.add(group)
        marker, line = t.get("marker") or {}, t.get("line") or {}
        colour = _first(marker.get("color")) or _first(line.get("color")) or _first(t.get("fillcolor"))
        if colour is None:
            colour = way[i % len(way)] if way else f"default {i}"
        mode = t.get("mode", "lines" if kind == "scatter" and "marker" not in t else "markers")
        shape = [kind.replace("gl", "")]
        if kind.startswith("scatter"):
            if "markers" in mode:
                shape.append(str(marker.get("symbol", "circle")))
            if "lines" in mode:
                shape.append(str(line.get("dash", "solid")))
        out.append({"name": t["name"], "colour": colour, "shape": " ".join(shape)})
    return out
