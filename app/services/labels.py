"""Cached stages of the Words page's trained label-embedding experiment.

The task (features, label matrix, label names) is built once per data set and
seed. A run of the experiment (tuning and fitting both models) takes seconds,
so it starts from a button and goes to a shared store under its settings:
every session sees the runs any session made, and the robustness chart
gathers the runs made so far at each corruption share.
"""

from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from app.services.shared import store
from embedcore import datasets
from embedcore.label_models import (
    ALPHAS,
    COSINE,
    SIGMOIDS,
    LabelComparison,
    compare_label_models,
    decoding_ceiling,
    keyword_tags,
    make_topic_labels,
)

#: The data sets the experiment offers: id -> the name shown.
TASKS = {"lee": "Lee news: keyword tags (derived from text)", "planted": "Planted label topics (generated)"}
#: Labels of the Lee keyword task, and of the planted data.
LEE_LABELS, PLANTED_LABELS = 30, 40
#: Corruption shares the slider offers (the robustness chart's x axis).
SHARES = tuple(round(0.1 * i, 1) for i in range(7))
#: Runs kept for every session.
RESULTS = store("labels.results", max_entries=96)


@st.cache_data(max_entries=4, show_spinner=False)
def task(name: str, seed: int) -> tuple:
    """(X, Y, label names) of a data set; the Lee task does not depend on the seed."""
    if name == "lee":
        return keyword_tags(datasets.load_corpus("lee").documents, n_labels=LEE_LABELS)
    if name == "planted":
        return make_topic_labels(600, n_labels=PLANTED_LABELS, random_state=seed)
    raise ValueError(f"Unknown label data set {name!r}; choose one of {sorted(TASKS)}.")


@st.cache_data(max_entries=4, show_spinner=False)
def facts(name: str, seed: int) -> dict:
    """Sizes of a data set and its label counts, commonest first (a table)."""
    X, Y, labels = task(name, seed)
    counts = pd.DataFrame({"label": labels, "examples": Y.sum(axis=0)}).sort_values("examples", ascending=False,
                                                                                     kind="stable")
    return {"examples": X.shape[0], "features": X.shape[1], "labels": Y.shape[1],
            "labels per example": float(Y.sum(axis=1).mean()), "without labels": int((Y.sum(axis=1) == 0).sum()),
            "counts": counts}


@st.cache_data(max_entries=64, show_spinner=False)
def ceiling(name: str, k: int, top_k: int, seed: int) -> float:
    """Precision at ``top_k`` of decoding every example's true label vector at this k (milliseconds)."""
    return decoding_ceiling(task(name, seed)[1], k, top_k)


def run_key(name: str, k: int, corruption: float, top_k: int, seed: int) -> tuple:
    return ("label models", name, int(k), round(float(corruption), 2), int(top_k), int(seed))


def stored(name: str, k: int, corruption: float, top_k: int, seed: int):
    """A run made before (in any session) with these settings, or None."""
    return RESULTS.get(run_key(name, k, corruption, top_k, seed))


def run(name: str, k: int, corruption: float, top_k: int, seed: int) -> LabelComparison:
    """Tune and fit both models (seconds); kept for every session.

    The table's "fit seconds" is each model's last fit (its chosen alpha, every training row), timed here.
    """
    key = run_key(name, k, corruption, top_k, seed)
    if key not in RESULTS:
        X, Y, labels = task(name, seed)
        seconds = {}

        def timed(model_name, model, X_fit, Y_fit):
            started = time.perf_counter()
            model = model.fit(X_fit, Y_fit)
            seconds[model_name] = time.perf_counter() - started
            return model

        result = compare_label_models(X, Y, n_components=k, corruption=corruption, top_k=top_k,
                                      random_state=seed, labels=labels, refit=timed)
        table = result.table.copy()
        table.insert(table.columns.get_loc("iterations"), "fit seconds", table["model"].map(seconds))
        RESULTS.put(key, result._replace(table=table))
    return RESULTS.get(key)


def curve(name: str, k: int, top_k: int, seed: int) -> pd.DataFrame:
    """Test precision at ``top_k`` of both models at every corruption share run so far (rows: share, model)."""
    rows = []
    for share in SHARES:
        result = stored(name, k, share, top_k, seed)
        if result is not None:
            for _, r in result.table.iterrows():
                rows.append({"share": share, "model": r["model"], "precision": r[f"test P@{top_k}"]})
    return pd.DataFrame(rows, columns=["share", "model", "precision"])


def alphas() -> str:
    """The penalty grid, as text."""
    return ", ".join(f"{a:g}" for a in ALPHAS)


def gap(result: LabelComparison, top_k: int) -> float:
    """Test precision at ``top_k``: label embedding minus sigmoids."""
    p = result.table.set_index("model")[f"test P@{top_k}"]
    return float(p[COSINE] - p[SIGMOIDS])
