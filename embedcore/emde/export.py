"""Sketches as files: a compressed .npz of the sparse matrix with its parameters, or a CSV."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import scipy.sparse as sp


def _csr(S) -> sp.csr_array:
    S = sp.csr_array(S)
    S.sum_duplicates()
    return S


def sketches_npz(S, params: Mapping) -> bytes:
    """Sketches as a compressed ``.npz``: the CSR arrays, the shape and ``params`` as JSON.

    Load with ``f = np.load(...)`` and
    ``scipy.sparse.csr_array((f["data"], f["indices"], f["indptr"]), shape=f["shape"])``;
    ``json.loads(str(f["params"]))`` gives the parameters back.

    Examples
    --------
    >>> import io, json
    >>> S = sp.csr_array(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]))
    >>> f = np.load(io.BytesIO(sketches_npz(S, {"K": 1})))
    >>> sp.csr_array((f["data"], f["indices"], f["indptr"]), shape=f["shape"]).toarray().tolist(), json.loads(str(f["params"]))
    ([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]], {'K': 1})
    """
    import io
    import json

    S = _csr(S)
    buf = io.BytesIO()
    np.savez_compressed(buf, data=S.data, indices=S.indices, indptr=S.indptr, shape=np.array(S.shape),
                        params=np.array(json.dumps(dict(params))))
    return buf.getvalue()


def sketches_csv(S, columns: Sequence[str], params: Mapping) -> str:
    """Sketches as CSV text, one non-zero per line (``set,column,value``) under a ``#`` line of ``params``.

    Examples
    --------
    >>> S = sp.csr_array(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]))
    >>> print(sketches_csv(S, ["p0_b0", "p0_b1", "p1_b0"], {"K": 1}), end="")
    # EMDE sketches, one non-zero per line; {"K": 1}
    set,column,value
    0,p0_b0,1.0
    0,p1_b0,2.0
    1,p0_b1,3.0
    """
    import json

    S = _csr(S).tocoo()
    long = pd.DataFrame({"set": S.row, "column": np.asarray(columns, dtype=object)[S.col], "value": S.data})
    header = "# EMDE sketches, one non-zero per line; " + json.dumps(dict(params)) + "\n"
    return header + long.to_csv(index=False)
