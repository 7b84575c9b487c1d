"""Words page, Label embedding tab: the trained comparison runs on its button and the corruption share changes it."""

from __future__ import annotations

import base64
import json

import numpy as np

from tests.conftest import metric, open_page, open_tab

PAGE = "app_pages/words.py"


def _table(at):
    return next((d.value for d in at.dataframe if "outputs" in d.value.columns), None)


def _values(value) -> list:
    """A trace's array as sent: a list, or Plotly's typed binary."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"])).tolist()
    return list(value)


def _noise_curve(at) -> dict:
    spec = next(json.loads(c.proto.spec) for c in at.get("plotly_chart")
                if "Label noise" in json.loads(c.proto.spec)["layout"]["title"]["text"])
    return {t["name"]: _values(t["x"]) for t in spec["data"]}


def test_run_gives_the_table_and_the_corruption_share_changes_it():
    at = open_tab(open_page(PAGE), "words.tab", "Label embedding")
    assert not at.exception and not at.error
    assert _table(at) is None and any("Train both models" in i.value for i in at.info)
    at.radio(key="words.lm_data").set_value("planted").run()
    at.button(key="words.lm_run").click().run(timeout=180)
    assert not at.exception and not at.error
    clean = _table(at)
    assert len(clean) == 2 and set(clean["outputs"]) == {8, 40}
    assert clean["test P@3"].between(0, 1).all() and clean["alpha"].gt(0).all()
    assert list(clean.columns[-2:]) == ["fit seconds", "iterations"] and clean["fit seconds"].gt(0).all()
    gap = float(metric(at, "label embedding minus sigmoids"))
    assert gap == round(clean["test P@3"].iloc[0] - clean["test P@3"].iloc[1], 3)

    at.slider(key="words.lm_noise").set_value(40).run()
    assert _table(at) is None  # not run with this share yet: nothing stale is shown
    at.button(key="words.lm_run").click().run(timeout=180)
    noisy = _table(at)
    assert not at.exception and not noisy.equals(clean)
    # label noise lowers both models' test precision here, and the curve shows both runs
    assert (noisy["test P@3"].to_numpy() < clean["test P@3"].to_numpy()).all()
    assert all(xs == [0.0, 0.4] for xs in _noise_curve(at).values())

    # back at the clean share, the stored run is shown at once, without training again
    at.slider(key="words.lm_noise").set_value(0).run()
    assert _table(at).equals(clean)


def test_the_ceiling_follows_k_at_once():
    """k is a live control: the decoding ceiling it imposes is shown without a run, and rises with k."""
    at = open_tab(open_page(PAGE), "words.tab", "Label embedding")
    label = "ceiling at k = {k}: precision at 3 of decoding the true label vectors"
    low = float(metric(at, label.format(k=8)))
    at.slider(key="words.lm_k").set_value(30).run()
    assert not at.exception and float(metric(at, label.format(k=30))) > low + 0.1  # 0.701 -> 0.889 on Lee
