"""What a reader made of a file, as figures and tables a person can check (the Data page's report).

Works on every reader's result and on bundled data sets alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from embedcore.io import DocumentData, PlaylistData, SetData, TableData, VectorData


@dataclass
class Report:
    """What a reader made of a file, for a person to check."""

    summary: dict[str, Any]
    columns: pd.DataFrame
    preview: pd.DataFrame
    notices: list[str]
    dropped: pd.DataFrame


def _dropped_frame(result) -> pd.DataFrame:
    d = getattr(result, "dropped", {}) or {}
    return pd.DataFrame({"reason": list(d), "rows": list(d.values())})


def _items_report(kind: str, groups: list[list[str]], labels, result, n_preview: int) -> Report:
    sizes = np.fromiter((len(g) for g in groups), dtype=np.int64, count=len(groups))
    distinct = len({x for g in groups for x in g})
    summary = {
        kind: len(groups),
        "distinct items": distinct,
        "items per line (mean)": round(float(sizes.mean()), 2) if len(sizes) else 0,
        "largest": int(sizes.max()) if len(sizes) else 0,
    }
    if labels is not None:
        summary["distinct labels"] = len(set(labels))
    preview = pd.DataFrame({"items": [" ".join(g[:30]) + (" ..." if len(g) > 30 else "") for g in groups[:n_preview]]})
    if labels is not None:
        preview.insert(0, "label", labels[:n_preview])
    counts = pd.Series([x for g in groups for x in g]).value_counts().head(10)
    columns = pd.DataFrame({"most frequent item": counts.index.astype(str), "count": counts.to_numpy()})
    return Report(summary, columns, preview, list(getattr(result, "notices", [])), _dropped_frame(result))


def describe(result: Any, n_preview: int = 20) -> Report:
    """Summarise any reader's (or bundled loader's) result for the Data page."""
    if isinstance(result, VectorData):
        n, d = result.X.shape
        meta_cols = [] if result.meta is None else list(result.meta.columns)
        summary = {"rows": n, "numeric columns": d, "metadata columns": len(meta_cols)}
        col_names = result.columns or [f"x{i}" for i in range(d)]
        shown = min(d, 50)
        columns = pd.DataFrame(
            {
                "column": meta_cols + col_names[:shown],
                "type": ["text (metadata)"] * len(meta_cols) + ["number"] * shown,
                "min": [None] * len(meta_cols) + list(np.round(result.X[:, :shown].min(axis=0), 4)),
                "max": [None] * len(meta_cols) + list(np.round(result.X[:, :shown].max(axis=0), 4)),
            }
        )
        preview = pd.DataFrame(result.X[:n_preview, :shown], columns=col_names[:shown])
        if result.meta is not None:
            preview = pd.concat([result.meta.iloc[:n_preview].reset_index(drop=True), preview], axis=1)
        return Report(summary, columns, preview, list(result.notices), _dropped_frame(result))
    if isinstance(result, TableData):
        f = result.frame
        summary = {"rows": len(f), "columns": f.shape[1], "rows with missing cells": int(f.isna().any(axis=1).sum())}
        columns = pd.DataFrame(
            {
                "column": [str(c) for c in f.columns],
                "type": ["number" if f[c].dtype.kind in "fiu" else "category/text" for c in f.columns],
                "distinct values": [int(f[c].nunique()) for c in f.columns],
                "missing": [int(f[c].isna().sum()) for c in f.columns],
            }
        )
        return Report(summary, columns, f.head(n_preview), list(result.notices), _dropped_frame(result))
    if isinstance(result, DocumentData):
        lengths = np.array([len(doc.split()) for doc in result.documents])
        summary = {"documents": len(lengths), "words": int(lengths.sum()), "words per document (mean)": round(float(lengths.mean()), 1)}
        preview = pd.DataFrame({"document": [doc[:200] + (" ..." if len(doc) > 200 else "") for doc in result.documents[:n_preview]]})
        return Report(summary, pd.DataFrame(), preview, list(result.notices), _dropped_frame(result))
    if isinstance(result, SetData):
        return _items_report("sets", result.sets, result.labels, result, n_preview)
    if isinstance(result, PlaylistData):
        rep = _items_report("playlists", result.playlists, None, result, n_preview)
        rep.summary["transitions"] = int(sum(max(len(p) - 1, 0) for p in result.playlists))
        return rep
    if hasattr(result, "sets") and hasattr(result, "vectors"):  # bundled item sets
        rep = _items_report("sets", result.sets, result.labels, result, n_preview)
        rep.summary["item vector dimension"] = int(result.vectors.shape[1])
        return rep
    if hasattr(result, "matrix") and hasattr(result, "labels"):  # bundled category graphs
        m = pd.DataFrame(result.matrix, index=result.labels, columns=result.labels)
        summary = {"categories": len(result.labels), "matrix": result.kind}
        return Report(summary, pd.DataFrame(), m.reset_index(names=""), [], _dropped_frame(result))
    raise TypeError(f"Cannot describe a {type(result).__name__}.")
