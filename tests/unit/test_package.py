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
