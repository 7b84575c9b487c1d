"""Run every benchmark: `python -m tests.benchmarks.run [name ...]` from the project root.

Each module ``bench_*.py`` here has a ``run()`` that returns harness Results;
each figure is measured next to its reference in the same process.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path

from tests.benchmarks.harness import print_table


def main(argv: list[str]) -> None:
    here = Path(__file__).resolve().parent
    names = sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))
    if argv:
        names = [n for n in names if any(a in n for a in argv)]
    results = []
    for name in names:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        results.extend(importlib.import_module(f"tests.benchmarks.{name}").run())
    print_table(results)


if __name__ == "__main__":
    main(sys.argv[1:])
