"""The map component's pure logic (app/ui/map/logic.js), tested by node's own test runner.

The tests are in tests/js/ (hit tests for box and lasso against brute force, label placement without
overlap, the view's equal scales and zoom, frame matching and the glide's end points); this runs them
inside the pytest suite. Node comes from Debian's ``nodejs`` package (tests/run.sh installs it).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.conftest import ROOT

NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is missing: install Debian's nodejs package (tests/run.sh does)")
def test_map_logic_in_node():
    run = subprocess.run([NODE, "--test", "tests/js/"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"node --test tests/js/ failed:\n{run.stdout}\n{run.stderr}"
    assert "# fail 0" in run.stdout, run.stdout
