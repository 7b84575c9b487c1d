"""A download that reproduces what a page shows, outside the app.

One zip per view: the arrays shown (``.npy``, read with ``allow_pickle=False``,
and ``.csv`` beside them), ``params.json`` (the page, its settings and seed,
and what identifies the data: a bundled id and its generator's settings, or
the upload's file names and SHA-1), ``versions.json`` (the lab and every
library that computed them) and ``reproduce.py``, a short script that loads
the same data with embedcore, recomputes the arrays and compares them with
the exported ones (exactly, or up to the sign of each column where an
eigen-solver may flip it, or within a stated tolerance).

Each page's service builds a :class:`Recipe`; :func:`bundle` makes the zip.
"""

from __future__ import annotations

import io as _io
import json
import platform
import textwrap
import zipfile
from dataclasses import dataclass, field
from importlib import metadata
from typing import Callable

import numpy as np
import pandas as pd

from app.services import data as data_service
from embedcore import __version__ as embedcore_version
from embedcore.io import as_arrays

#: Libraries whose versions go with every export (those that compute something the lab shows).
LIBRARIES = ("numpy", "scipy", "scikit-learn", "pandas", "umap-learn", "openTSNE", "gensim", "numba",
             "streamlit", "plotly")
#: How an exported array is compared with its recomputation.
COMPARISONS = ("exact", "columns up to sign", "close")


@dataclass(frozen=True)
class Recipe:
    """What a view shows and how embedcore computes it again.

    ``code`` is Python run after ``data = load_data()``; it must leave a dict
    ``result`` of arrays under the names in ``arrays``. ``compare`` says, per
    array, one of :data:`COMPARISONS` (default "exact"); "close" uses
    ``rtol``/``atol``. ``load`` replaces the default data loading (a bundled
    data set by id and seed, or the upload's files) when a page generates
    its data (``load`` must define ``load_data()``). ``files`` names an upload
    taken by the page's own uploader, which the sidebar does not know.
    """

    page: str
    title: str
    arrays: dict[str, np.ndarray]
    params: dict
    data: data_service.DataRef
    code: str
    compare: dict[str, str] = field(default_factory=dict)
    rtol: float = 1e-7
    atol: float = 1e-9
    load: str | None = None
    imports: str = "import numpy as np"
    files: tuple[str, ...] | None = None  # an upload made on the page itself (not the sidebar's): its file names


def versions() -> dict:
    """The lab's version, Python's and each library's in :data:`LIBRARIES` (None if not installed)."""
    out = {"embedding-lab": embedcore_version, "python": platform.python_version()}
    for name in LIBRARIES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def data_description(ref: data_service.DataRef, files: tuple[str, ...] | None = None) -> dict:
    """What identifies the data in ``params.json``: a bundled id, or the upload's names (``files``, else the
    sidebar upload's) and digest."""
    out = {"kind": ref.kind, "seed": ref.seed}
    if ref.source.startswith("upload:"):
        if files is None:
            up = data_service.current_upload()
            files = None if up is None else up.names
        out.update(upload_sha1=ref.source.split(":", 1)[1], files=None if files is None else list(files))
    else:
        out["bundled"] = ref.source
    return out


def _default_loader(ref: data_service.DataRef, files: list[str] | None) -> str:
    if not ref.source.startswith("upload:"):
        return textwrap.dedent(f'''
            def load_data():
                """The bundled data set {ref.source!r}, read with seed {ref.seed}."""
                from embedcore import datasets

                return datasets.load({ref.source!r}, seed={ref.seed})
            ''')
    digest = ref.source.split(":", 1)[1]
    return textwrap.dedent(f'''
        FILES = {files!r}  # the files uploaded, in this order
        SHA1 = {digest!r}  # of their names and bytes


        def load_data():
            """The upload, read as {ref.kind!r} with seed {ref.seed}: give its files' paths as arguments."""
            from pathlib import Path

            from embedcore import io

            paths = [Path(p) for p in sys.argv[1:]]
            if len(paths) != len(FILES):
                sys.exit(f"usage: python reproduce.py {{' '.join(FILES)}}  (the {{len(FILES)}} file(s) you uploaded)")
            blobs = [p.read_bytes() for p in paths]
            if io.upload_digest(FILES, blobs) != SHA1:
                sys.exit("These are not the files this view was made from (their SHA-1 differs); "
                         "pass them in the order " + ", ".join(FILES) + " with their original contents.")
            return io.read_upload({ref.kind!r}, FILES, blobs, seed={ref.seed})
        ''')


def single_file_loader(name: str, digest: str, what: str, reader_import: str, reader: str) -> str:
    """``load_data`` for a file a page reads itself (an edge list, an affinity matrix): it takes the file's
    path, checks its SHA-1 against the view's and reads it with ``reader(blob, FILE)``."""
    return textwrap.dedent(f'''
        FILE = {name!r}  # the {what} uploaded on the page
        SHA1 = {digest!r}  # of its name and bytes


        def load_data():
            """The uploaded {what}: give its path as the argument."""
            from embedcore.io import upload_digest
            {reader_import}

            if len(sys.argv) != 2:
                sys.exit(f"usage: python reproduce.py {{FILE}}  (the {what} you uploaded)")
            blob = Path(sys.argv[1]).read_bytes()
            if upload_digest([FILE], [blob]) != SHA1:
                sys.exit(f"This is not the file this view was made from (its SHA-1 differs); pass {{FILE}} "
                         "with its original contents.")
            return {reader}(blob, FILE)
        ''')


_FOOTER = '''

def _check(name, how, ours, theirs):
    theirs = np.asarray(theirs)
    if ours.shape != theirs.shape:
        return f"shape {theirs.shape} instead of {ours.shape}"
    if how == "columns up to sign" and ours.ndim == 2:
        flip = np.where(np.sum(ours * theirs, axis=0) < 0, -1.0, 1.0)
        theirs = theirs * flip
        how = "close"
    if how == "exact" or ours.dtype.kind not in "fc":
        same = np.array_equal(ours, theirs, equal_nan=ours.dtype.kind in "fc")
    else:
        same = np.allclose(ours, theirs, rtol=RTOL, atol=ATOL, equal_nan=True)
    if same:
        return None
    if ours.dtype.kind in "fc":
        return f"largest difference {np.nanmax(np.abs(ours - theirs)):.3g}"
    return f"{int(np.sum(ours != theirs))} values differ"


def main():
    here = Path(__file__).resolve().parent
    data = load_data()
    result = compute(data)
    failed = 0
    for name, how in COMPARE.items():
        ours = np.load(here / "arrays" / f"{name}.npy", allow_pickle=False)
        problem = _check(name, how, ours, result[name])
        print(f"{name}: {'reproduced (' + how + ')' if problem is None else 'DIFFERENT: ' + problem}")
        failed += problem is not None
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
'''


def script(recipe: Recipe) -> str:
    """``reproduce.py``: load the data, recompute, compare with ``arrays/*.npy``."""
    compare = {name: recipe.compare.get(name, "exact") for name in recipe.arrays}
    bad = {how for how in compare.values() if how not in COMPARISONS}
    if bad:
        raise ValueError(f"Unknown comparison {bad}; one of {COMPARISONS}.")
    loader = recipe.load if recipe.load is not None else _default_loader(
        recipe.data, data_description(recipe.data, recipe.files).get("files"))
    head = (f'"""Recompute the {recipe.title} exported from Embedding Lab and compare it with the export.\n\n'
            "Run from this folder with embedcore installed (the same versions as versions.json give the same "
            'bytes):\n    python reproduce.py\n"""\n\n'
            "import os\nimport sys\nfrom pathlib import Path\n\n"
            "# One thread per numeric library, as the app computes: the same sums in the same order, the same bytes.\n"
            'for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):\n'
            '    os.environ.setdefault(_name, "1")\n\n'
            f"{recipe.imports}  # noqa: E402\n\n"
            f"COMPARE = {compare!r}\nRTOL, ATOL = {recipe.rtol!r}, {recipe.atol!r}\n")
    body = "\n\ndef compute(data):\n" + textwrap.indent(textwrap.dedent(recipe.code).strip() + "\nreturn result", "    ")
    return head + "\n" + loader.strip("\n") + "\n" + body + "\n" + _FOOTER


def _csv(name: str, a: np.ndarray) -> str:
    a = np.asarray(a)
    if a.ndim == 1:
        return pd.DataFrame({name: a}).to_csv(index=False)
    if a.ndim == 2:
        return pd.DataFrame(a, columns=[f"{name}_{j}" for j in range(a.shape[1])]).to_csv(index=False)
    return ""


def bundle(recipe: Recipe) -> bytes:
    """The zip: README.txt, params.json, versions.json, reproduce.py, arrays/<name>.npy and .csv."""
    params = {"page": recipe.page, "title": recipe.title, "parameters": recipe.params,
              "data": data_description(recipe.data, recipe.files)}
    buf = _io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("params.json", json.dumps(params, indent=2, default=str) + "\n")
        z.writestr("versions.json", json.dumps(versions(), indent=2) + "\n")
        z.writestr("reproduce.py", script(recipe))
        for name, a in recipe.arrays.items():
            a = np.asarray(a)
            if a.dtype == object:
                a = a.astype(str)
            npy = _io.BytesIO()
            np.save(npy, a, allow_pickle=False)
            z.writestr(f"arrays/{name}.npy", npy.getvalue())
            csv = _csv(name, a)
            if csv:
                z.writestr(f"arrays/{name}.csv", csv)
        z.writestr("README.txt", textwrap.dedent(f"""\
            Embedding Lab export: {recipe.title}

            params.json    the page, its settings and seed, and the data ({'an upload: pass its files to reproduce.py'
                           if recipe.data.source.startswith('upload:') else 'a bundled data set'})
            versions.json  the lab's version and every library's
            arrays/        {', '.join(recipe.arrays)} (.npy: numpy.load(path, allow_pickle=False); .csv beside them)
            reproduce.py   recomputes these arrays with embedcore and compares them with the export
            """))
    return buf.getvalue()


def lazy(make: Callable[[], Recipe]) -> Callable[[], bytes]:
    """The zip of ``make()``, built only when called (a download button calls it on click)."""
    return lambda: bundle(make())


def data_recipe(ref: data_service.DataRef) -> Recipe:
    """The Data page: the data as the lab read it (embedcore.io.as_arrays), read again by the script."""
    arrays = as_arrays(data_service.load(ref))
    code = """
        from embedcore.io import as_arrays

        result = as_arrays(data)
        """
    return Recipe("data", f"{ref.kind} data as read", arrays, {"read as": ref.kind}, ref, code,
                  compare={name: "exact" for name in arrays})
