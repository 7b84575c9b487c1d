"""Every public function and class of embedcore carries a numpydoc ``Examples`` section with code.

The examples themselves run under ``--doctest-modules`` (see ``addopts`` in pyproject.toml); this
test makes sure there is one to run, so a new public name cannot arrive without an example.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import embedcore

# A numpydoc section header: its name on one line, a dashed underline of the same length on the next.
_SECTION = re.compile(r"^(\w[\w ]*)\n-{3,}[ \t]*$", re.MULTILINE)


def _is_public_module(name: str) -> bool:
    return not any(part.startswith("_") for part in name.split("."))


def _public_names(module) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    return [
        name
        for name, obj in vars(module).items()
        if not name.startswith("_") and getattr(obj, "__module__", None) == module.__name__
    ]


def public_objects() -> dict[str, object]:
    """Every public function and class defined in embedcore, once each, by its defining module's name."""
    modules = [embedcore] + [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(embedcore.__path__, prefix="embedcore.")
        if _is_public_module(info.name)
    ]
    found: dict[int, tuple[str, object]] = {}
    for module in modules:
        for name in _public_names(module):
            obj = getattr(module, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            home = getattr(obj, "__module__", "") or ""
            if home != "embedcore" and not home.startswith("embedcore."):
                continue  # re-exported from another library
            found.setdefault(id(obj), (f"{home}.{obj.__qualname__}", obj))
    return dict(found.values())


def examples_section(doc: str | None) -> str | None:
    """The text of a numpydoc ``Examples`` section (up to the next section), or None."""
    if not doc:
        return None
    headers = list(_SECTION.finditer(doc))
    for i, header in enumerate(headers):
        if header.group(1).strip() == "Examples":
            end = headers[i + 1].start() if i + 1 < len(headers) else len(doc)
            return doc[header.end():end]
    return None


def has_example(obj) -> bool:
    section = examples_section(inspect.cleandoc(obj.__doc__) if obj.__doc__ else None)
    return section is not None and any(line.lstrip().startswith(">>>") for line in section.splitlines())


def test_the_walk_finds_the_public_api():
    names = public_objects()
    # The estimators and readers a user imports from the top level are among them, each once.
    for expected in ("embedcore.emde.estimator.EMDE", "embedcore.exceptions.DataError"):
        assert expected in names, sorted(names)
    assert len(names) == len({id(obj) for obj in names.values()})
    assert not any(name.split(".")[-1].startswith("_") for name in names)


def test_the_section_check_tells_an_example_from_none():
    def documented():
        """Add one.

        Examples
        --------
        >>> 1 + 1
        2
        """

    def prose_only():
        """Add one.

        Examples
        --------
        Call it with a number.

        Notes
        -----
        >>> 1 + 1
        2
        """

    def undocumented():
        pass

    assert has_example(documented)
    assert not has_example(prose_only)  # the >>> line sits under Notes, not Examples
    assert not has_example(undocumented)


def test_every_public_function_and_class_has_a_doctested_example():
    missing = sorted(name for name, obj in public_objects().items() if not has_example(obj))
    assert not missing, (
        f"{len(missing)} public functions and classes of embedcore have no numpydoc Examples section "
        "with a >>> line:\n  " + "\n  ".join(missing)
    )
