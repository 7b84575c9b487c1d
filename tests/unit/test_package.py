"""The package boundary: embedcore stands alone, without the UI or the heavy engines."""

from __future__ import annotations

import subprocess
import sys


def test_importing_embedcore_does_not_import_streamlit_or_heavy_engines():
    code = (
        "import sys, embedcore; "
        "bad = [m for m in ('streamlit', 'gensim', 'umap', 'openTSNE', 'numba') if m in sys.modules]; "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", out.stdout


def test_public_names_are_exported():
    import embedcore

    for name in embedcore.__all__:
        assert hasattr(embedcore, name), name


def test_no_module_of_embedcore_imports_streamlit():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "embedcore"
    for path in root.glob("*.py"):
        text = path.read_text()
        assert "import streamlit" not in text and "from streamlit" not in text, path.name


def _machine_sized_pools(source: str) -> list[int]:
    """Lines that size a pool from the machine: a call to cpu_count(), or n_jobs=-1 passed to a call."""
    import ast

    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) == "cpu_count":
            lines.append(node.lineno)
        for kw in node.keywords:
            if kw.arg == "n_jobs" and isinstance(kw.value, ast.UnaryOp) and isinstance(kw.value.op, ast.USub) \
                    and isinstance(kw.value.operand, ast.Constant) and kw.value.operand.value == 1:
                lines.append(node.lineno)
    return sorted(lines)


def test_the_scan_finds_a_pool_sized_from_the_machine():
    assert _machine_sized_pools("import os\nn = min(os.cpu_count() or 1, 8)\nf(x, n_jobs=-1)\nf(n_jobs=2)\n") == [2, 3]


def test_library_code_takes_its_threads_from_the_caller():
    """The server runs many sessions on shared cores, so library code uses the n_jobs it is given (None: one).

    Only a batch job, which has the machine to itself, sizes its pools from the machine: the
    command line and the batch package.
    """
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "embedcore"
    found = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] == "batch" or rel.name == "cli.py":
            continue
        lines = _machine_sized_pools(path.read_text())
        if lines:
            found[str(rel)] = lines
    assert found == {}


def test_the_library_alone_needs_numpy_scipy_scikit_learn_and_pandas_and_the_rest_are_extras():
    import re
    import tomllib
    from pathlib import Path

    meta = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    names = lambda deps: {re.split(r"[<>=!~\[; ]", d)[0].lower() for d in deps}  # noqa: E731
    assert names(meta["dependencies"]) == {"numpy", "scipy", "scikit-learn", "pandas"}
    extras = meta["optional-dependencies"]
    assert {"streamlit", "plotly", "embedding-lab"} <= names(extras["app"])
    assert {"dask", "distributed"} <= names(extras["batch"])
    assert {"umap-learn", "opentsne"} <= names(extras["maps"]) and names(extras["words"]) == {"gensim"}
    assert meta["scripts"] == {"embedcore": "embedcore.cli:main"}


def test_the_embedcore_command_is_installed_and_answers_help():
    import shutil
    from pathlib import Path

    command = shutil.which("embedcore", path=str(Path(sys.executable).parent))
    assert command, "no embedcore command next to this Python: install the package (tests/run.sh does)"
    out = subprocess.run([command, "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "sketch" in out.stdout and "word-vectors" in out.stdout, out.stderr
