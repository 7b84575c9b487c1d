"""The lab's categorical palette (app/ui/palette.py): told apart with every common colour-vision deficiency,
readable on white, and given out so that no two entries of a legend look alike, on the maps and in the charts."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from app.ui import charts, palette
from app.ui import map as lab_map
from tests.conftest import ROOT
from tests.legends import VISIONS, alike, ciede2000, contrast_on_white, distances, lab, map_entries, plotly_entries

#: The least CIEDE2000 difference between two colours of the palette, for each kind of vision (measured:
#: 20.4, 10.4, 10.2, 10.2).
LEAST = {"normal": 20.0, "protan": 10.0, "deutan": 10.0, "tritan": 10.0}


def test_ciede2000_matches_sharmas_published_pairs():
    """The colour difference used below, against Sharma, Wu and Dalal (2005)'s test data."""
    pairs = [((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425), ((50, 2.5, 0), (73, 25, -18), 27.1492),
             ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
             ((22.7233, 20.0904, -46.6940), (23.0331, 14.9730, -42.5619), 2.0373),
             ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082)]
    for a, b, expected in pairs:
        assert float(ciede2000(np.array(a), np.array(b))) == pytest.approx(expected, abs=1e-4)


def test_the_palette_has_twelve_colours_apart_for_every_kind_of_vision():
    assert len(palette.PALETTE) >= 12 and len(set(palette.PALETTE)) == len(palette.PALETTE)
    found = {}
    for vision in VISIONS:
        d = distances(palette.PALETTE, vision)
        i, j = np.unravel_index(np.argmin(d), d.shape)
        found[vision] = (round(float(d[i, j]), 1), palette.PALETTE[i], palette.PALETTE[j])
        assert d.min() >= LEAST[vision], f"{vision}: {found[vision]}"
    print("\nleast CIEDE2000 between two palette colours:", found)


def test_every_palette_colour_has_3_to_1_contrast_on_white_and_the_other_grey_stands_apart():
    ratios = {c: round(contrast_on_white(c), 2) for c in palette.PALETTE}
    assert min(ratios.values()) >= 3.0, ratios
    print("\ncontrast against white:", ratios)
    # "others" is a light grey (2:1, short of 3:1 on purpose: it recedes); it is no palette colour to anyone
    for vision in VISIONS:
        assert distances([*palette.PALETTE, palette.OTHER], vision)[-1].min() >= 10.0, vision
    # nor is the ink of rings, markers and labels
    for vision in VISIONS:
        assert distances([*palette.PALETTE, "#212529"], vision)[-1].min() >= 10.0, vision


def test_styles_differ_in_colour_or_mark_for_the_first_72_and_in_colour_for_the_first_12():
    n = palette.distinct()
    assert n == len(palette.PALETTE) * len(palette.MARKS) == 72
    styles = [palette.style(k) for k in range(n)]
    assert len(set(styles)) == n
    assert len({c for c, _ in styles[:12]}) == 12
    assert [m for _, m in styles[:6]] == list(palette.MARKS)  # the first six: a mark each, as the maps had them
    # two of the first twelve that share a mark are far apart for every kind of vision
    for a in range(12):
        for b in range(a + 1, 12):
            if styles[a][1] == styles[b][1]:
                for vision in VISIONS:
                    assert distances([styles[a][0], styles[b][0]], vision).min() >= 25, (styles[a], styles[b], vision)
    # any colour list: its colours times the marks, all distinct
    for colours in (["#000000", "#ffffff"], palette.PALETTE[:5], palette.PALETTE[:10]):
        m = palette.distinct(colours)
        assert len({palette.style(k, colours) for k in range(m)}) == m
    plotted = [palette.plotly_style(k) for k in range(n)]
    assert len(set(plotted)) == n and all(d == "solid" for _, _, d in plotted[:12])


def test_the_maps_marks_in_python_are_the_ones_logic_js_draws():
    js = (ROOT / "app" / "ui" / "map" / "logic.js").read_text(encoding="utf-8")
    found = re.search(r"export const MARKS = (\[[^\]]*\]);", js)
    assert found and json.loads(found.group(1)) == list(palette.MARKS)
    # and the map's and the charts' palettes are this one
    assert lab_map.PALETTE is palette.PALETTE and charts.PALETTE is palette.PALETTE


def test_categories_give_every_legend_entry_its_own_colour_and_mark():
    for n in (2, 6, 12, 13, 40, 72):
        values = np.arange(3 * n) % n
        shown = lab_map.categories(values)
        assert len(shown["names"]) == n and not alike(map_entries(shown)), n


def test_past_72_categories_the_largest_keep_their_own_and_the_rest_are_others():
    rng = np.random.default_rng(0)
    sizes = rng.permutation(np.arange(1, 101))  # 100 categories, of 1 to 100 points
    values = np.repeat(np.arange(100), sizes)
    shown = lab_map.categories(values, names=[f"c{k}" for k in range(100)])
    names, entries = shown["names"], map_entries(shown)
    assert len(names) == 72 and names[-1] == "29 others" and not alike(entries)
    assert entries[-1]["colour"] == palette.OTHER
    kept = [int(v[1:]) for v in names[:-1]]
    assert kept == sorted(kept)  # in the legend's order
    assert set(kept) == set(np.argsort(-sizes)[:71].tolist())  # the 71 largest
    codes = np.frombuffer(__import__("base64").b64decode(shown["codes"]), dtype="<i4")
    expected = np.array([kept.index(v) if v in kept else 71 for v in values])
    np.testing.assert_array_equal(codes, expected)


def test_a_sets_bucket_map_of_many_buckets_has_no_two_legend_entries_alike():
    from app.ui import sets_charts

    codes = np.repeat(np.arange(0, 300, 3), 2)  # 100 occupied buckets
    shown = sets_charts.bucket_colours(codes)
    assert len(shown["names"]) == 72 and shown["names"][-1] == "29 others"
    assert not alike(map_entries(shown))
    few = sets_charts.bucket_colours(np.array([48, 255, 3, 3]))
    assert few["names"] == ["bucket 3", "bucket 48", "bucket 255"] and not alike(map_entries(few))


def test_playlist_tags_are_far_apart_colours():
    """tag1 and tag6 were two oranges: every tag of a song map now has a palette colour and mark of its own."""
    from app.ui import playlists_charts

    table = pd.DataFrame({"song": [f"s{k}" for k in range(9)], "plays": np.arange(1, 10),
                          "tags": [f"tag{k}" for k in range(8)] + [""]})
    colour = playlists_charts.song_map_style(table)["color"]
    entries = map_entries(colour)
    assert not alike(entries)
    tags = {e["name"]: e["colour"] for e in entries}
    for vision in VISIONS:
        assert distances([tags["tag1"], tags["tag6"]], vision).min() >= 10.0


def test_plotly_series_past_the_palette_differ_in_marker_and_dash():
    table = pd.DataFrame({"x": np.arange(5), **{f"y{k}": np.arange(5) * k for k in range(20)}})
    fig = charts.lines(table, "x", {f"y{k}": f"series {k}" for k in range(20)})
    entries = plotly_entries(fig.to_plotly_json())
    assert len(entries) == 20 and not alike(entries)
    assert list(fig.layout.colorway) == palette.PALETTE
    scatter = charts.item_scatter(np.random.default_rng(1).normal(size=(60, 2)), color=np.arange(60) % 15,
                                  categorical=True, color_label="bucket")
    entries = plotly_entries(scatter.to_plotly_json())
    assert len(entries) == 15 and not alike(entries)


def test_the_legend_check_finds_entries_alike():
    """The check is live: two entries of one colour and shape are found, as are two spellings of one colour."""
    same = [{"name": "a", "colour": "#3b5bdb", "shape": "circle"}, {"name": "b", "colour": "rgb(59, 91, 219)", "shape": "circle"}]
    assert alike(same) == [("a", "b")]
    assert not alike([same[0], {**same[1], "shape": "square"}])
    old = lab_map.categories(np.arange(20) % 20, colors=["#1f77b4"] * 16, marks=["circle"] * 16)
    assert alike(map_entries(old))
    assert lab(np.array([1.0, 1.0, 1.0]))[0] == pytest.approx(100, abs=1e-4)  # white
