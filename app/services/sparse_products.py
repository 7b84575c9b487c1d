"""Cached stages of the Text page's dictionary inner product and its SVM on hashed features.

The dictionaries are the count rows of the page's bag of words (one per corpus and min count). The SVM
comparison runs on gensim's 200 labelled Usenet posts from a button, and is kept for every session.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from app.services import data as data_service
from app.services import shared
from app.services import text as text_service
from embedcore import datasets
from embedcore.sparse_products import (
    dict_dot,
    dict_pairs,
    hashed_svm_comparison,
    row_dicts,
)

#: The bucket bits the SVM is run at.
SVM_BITS = (4, 6, 8, 10, 12, 14, 16)


@st.cache_resource(max_entries=8, show_spinner=False)
def dictionaries(ref: data_service.DataRef, min_count: int) -> list[dict]:
    """Every document's counts as a dictionary {term: count} (shared, read-only by convention)."""
    vocabulary, X = text_service.bag(ref, min_count)
    return row_dicts(X, vocabulary)


@st.cache_data(max_entries=32, show_spinner=False)
def dict_pair(ref: data_service.DataRef, min_count: int, a: int, b: int, smaller_first: bool) -> dict:
    """The dictionary product of documents a and b: the dot, the lookups and the shared terms."""
    d = dictionaries(ref, min_count)
    dot, lookups, matches = dict_dot(d[a], d[b], smaller_first=smaller_first)
    return {"dot": dot, "lookups": lookups, "matches": matches, "|a|": len(d[a]), "|b|": len(d[b])}


@st.cache_data(max_entries=16, show_spinner=False)
def dict_sample(ref: data_service.DataRef, min_count: int, seed: int, smaller_first: bool) -> dict:
    """Lookups against merge comparisons over the random pairs the merge chart shows."""
    merged = text_service.pairs_sample(ref, min_count, seed)
    if not len(merged):
        return {}
    table = dict_pairs(dictionaries(ref, min_count), merged["a"], merged["b"], smaller_first=smaller_first)
    return {"pairs": len(table), "lookups": float(table["lookups"].mean()), "steps": float(merged["steps"].mean()),
            "most lookups": int(table["lookups"].max()),
            "exact": bool(np.allclose(table["dot"].to_numpy(), merged["dot"].to_numpy()))}


def _svm_results() -> shared.SharedStore:
    return shared.store("text.svm", 8)


def svm_result(signed: bool, seed: int) -> pd.DataFrame | None:
    """The hashed-against-unhashed SVM table, if anyone has run it on this server."""
    return _svm_results().get((bool(signed), int(seed)))


def run_svm(signed: bool, seed: int) -> pd.DataFrame:
    """Run the SVM on the vocabulary and at every bucket width (seconds) and keep the table for everyone."""
    texts, labels = datasets.load_mini_newsgroups()
    table = hashed_svm_comparison(texts, labels, SVM_BITS, signed=bool(signed), random_state=int(seed))
    _svm_results().put((bool(signed), int(seed)), table)
    return table
