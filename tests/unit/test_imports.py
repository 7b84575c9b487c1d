"""embedcore's import graph: no cycles, no reaching into another module's private names.

Every ``import`` and ``from ... import`` in every module of embedcore is read from its
source (function-level imports included, since a cycle hidden inside a function is
still a cycle), resolved to the module it names, and the graph is checked: a cycle
fails with its modules listed, and so does a name with a leading underscore imported
from another module. Leaf modules (exceptions, tokens, _linalg) sit at the bottom.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "embedcore"


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(module: str) -> list[tuple[str, str | None, int]]:
    """(imported module, imported name or None, line) for every import in ``module``'s source, and for every
    attribute read off an imported embedcore module (``spectral._check(...)`` reaches ``_check`` too)."""
    path = MODULES[module]
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    out = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else [])) \
                if node.level else (node.module or "")
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in MODULES:  # `from . import words` names a module
                    out.append((full, None, node.lineno))
                    aliases[alias.asname or alias.name] = full
                else:
                    out.append((base, alias.name, node.lineno))
        elif isinstance(node, ast.Import):
            out.extend((alias.name, None, node.lineno) for alias in node.names)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            out.append((aliases[node.value.id], node.attr, node.lineno))
    return [(m, n, line) for m, n, line in out if m.split(".")[0] == "embedcore"]


GRAPH = {m: sorted({t for t, _, _ in _imports(m) if t in MODULES and t != m}) for m in MODULES}


def _cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = counter[0]; counter[0] += 1
        stack.append(root); on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter[0]; counter[0] += 1
                    stack.append(w); on_stack.add(w)
                    work.append((w, iter(graph[w])))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop(); on_stack.discard(w); component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_graph_reads_every_module_and_finds_a_planted_cycle():
    assert len(MODULES) > 40 and "embedcore.io.text" in MODULES
    assert "embedcore.exceptions" in GRAPH["embedcore.io.results"]
    planted = {**GRAPH, "embedcore.exceptions": ["embedcore.io.results"]}
    assert any({"embedcore.exceptions", "embedcore.io.results"} <= set(c) for c in _cycles(planted))


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_embedcore_module_imported_exists(module):
    absent = [f"line {line}: {target}" for target, _, line in _imports(module)
              if target not in MODULES]
    assert not absent, f"{module} imports modules that do not exist: " + "; ".join(absent)


def test_embedcore_has_no_import_cycle():
    cycles = _cycles(GRAPH)
    assert not cycles, "import cycles (function-level imports included): " + "; ".join(
        " <-> ".join(c) for c in cycles)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_private_name_is_imported_from_another_module(module):
    reached = [f"line {line}: {name} from {target}" for target, name, line in _imports(module)
               if name and name.startswith("_") and not name.startswith("__") and target != module]
    assert not reached, f"{module} imports private names: " + "; ".join(reached)


@pytest.mark.parametrize("leaf", ["embedcore.exceptions", "embedcore.tokens", "embedcore._linalg"])
def test_leaf_modules_import_nothing_above_them(leaf):
    allowed = {"embedcore.exceptions"}
    assert set(GRAPH[leaf]) <= allowed, f"{leaf} imports {GRAPH[leaf]}"


#: The longest a module of embedcore may grow: past it, one file holds more than one idea.
MAX_LINES = 800


def test_no_module_is_longer_than_800_lines():
    long = {m: n for m, path in MODULES.items() if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"split these modules (lines): {long}"
