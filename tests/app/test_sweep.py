"""The sweep: every page, every bundled data set, every control at its ends, from the default state.

Generated from the page registry and from the widgets each page draws, so a
new page, data set or control is swept without editing this file. A state
passes when the page renders with no exception and no error or warning that
repeats an internal message; a message that says what to change is fine.
"""

from __future__ import annotations

import pytest

from app.pages import PAGES
from app.services.data import ACCEPTS, guess_kind
from embedcore import datasets
from tests.app.sweep import Sweep
from tests.app.uploads import UPLOADS
from tests.conftest import ARTIFACTS, open_page


def _record(line: str) -> None:
    """Print a sweep's size, and keep it in tests/.artifacts/sweep.txt (workers append in parallel)."""
    print(line)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with open(ARTIFACTS / "sweep.txt", "a") as f:
        f.write(line + "\n")


def _cases():
    for spec in PAGES:
        yield pytest.param(spec, id=spec.url)


@pytest.mark.parametrize("spec", list(_cases()))
def test_every_data_set_and_every_control_at_its_ends(spec):
    """The default data set with every control at its ends, then each other bundled data set.

    On another data set only the controls whose range or options it changes are turned again
    (the others were turned on the default data): the sweep stays affordable on the big sets.
    """
    at = open_page(spec.path)
    sweep = Sweep(at, f"{spec.url}/default")
    sweep.check("default")
    key = f"{spec.key}.dataset"
    skip = {key}
    if spec.data and key not in at.session_state and spec.key in DATA_MODES:
        sweep.turn_each(skip=skip)  # the page's own opening view, then its data sets
        mode, value = DATA_MODES[spec.key]
        at.session_state[mode] = value
        sweep.run(f"{mode}={value!r}")
        skip.add(mode)
    default = at.session_state[key] if spec.data else None
    base = sweep.signature(skip)
    sweep.turn_each(skip=skip)
    sweep.visit_tabs(spec.key, skip)
    skip.add("global.seed")
    for ds in [d.id for kind in spec.data for d in datasets.datasets_of_kind(kind)]:
        if ds == default:
            continue
        sweep.label = f"{spec.url}/{ds}"
        at.session_state[key] = ds
        sweep.run(f"data set {ds}")
        box = [w for w in at.selectbox if w.key == key]
        assert box and box[0].value == ds, f"{spec.url} does not offer {ds} in {key}"
        changed = {wid for wid, sig in sweep.signature(skip).items() if base.get(wid) != sig}
        sweep.turn_each(skip=skip, only=changed)
        sweep.visit_tabs(spec.key, skip, compare=True)
    _record(f"{spec.url}: {sweep.states} states in {sweep.seconds:.1f} s")
    assert not sweep.failures, "\n".join(sweep.failures)


@pytest.mark.parametrize("spec", [s for s in PAGES if s.data], ids=[s.url for s in PAGES if s.data])
def test_registry_lists_the_data_sets_each_page_offers(spec):
    at = open_page(spec.path)
    if f"{spec.key}.dataset" not in at.session_state and spec.key in DATA_MODES:
        mode, value = DATA_MODES[spec.key]
        at.session_state[mode] = value
        at.run()
    box = [w for w in at.selectbox if w.key == f"{spec.key}.dataset"]
    assert box, f"{spec.url} has no data-set box under {spec.key}.dataset"
    titles = [d.title for kind in spec.data for d in datasets.datasets_of_kind(kind)]
    assert list(box[0].options) == titles


#: Pages that open on a view without a data set: the control and value that show one (and take an upload).
DATA_MODES = {"cat": ("cat.kind", "learned from a table")}


def _upload_cases():
    for name in UPLOADS:
        yield pytest.param(name, id=name)


@pytest.mark.parametrize("upload", list(_upload_cases()))
def test_every_page_with_an_odd_upload(upload):
    """Each generated upload, on the Data page and every page that takes its kind: no exception, no markup."""
    names, blobs = zip(*UPLOADS[upload])
    kind = guess_kind(names, blobs)
    at = open_page("app_pages/home.py")
    files = [(name, blob, "text/plain") for name, blob in UPLOADS[upload]]
    at.sidebar.file_uploader[0].set_value(files if len(files) > 1 else files[0])
    sweep = Sweep(at, upload)
    sweep.run("uploaded")
    for spec in PAGES:
        if spec.default or (spec.data and not any(kind in ACCEPTS[k] for k in spec.data)):
            continue
        sweep.label = f"{upload} on {spec.url}"
        at.switch_page(spec.path)
        sweep.run("opened")
        key = f"{spec.key}.dataset"
        if spec.data and key not in at.session_state and spec.key in DATA_MODES:
            mode, value = DATA_MODES[spec.key]  # the page opens on a view of its own data: switch to one of data
            at.session_state[mode] = value
            sweep.run(f"{mode}={value!r}")
        if spec.data:
            if key not in at.session_state:
                sweep.failures.append(f"[{sweep.label}] the page drew no data-set box ({key})")
                continue
            if at.session_state[key] != "upload":
                # not readable as this page's data: it keeps its own, and says why in one line
                notes = [c.value for c in at.caption if "not used on this page" in c.value]
                assert len(notes) == 1, f"{spec.url} neither took nor explained the {kind} upload {upload}"
                continue
            sweep.turn_each(skip={key, "global.seed"}, depth=0)
            sweep.visit_tabs(spec.key, {key, "global.seed"}, depth=0)
            _walk_tour(sweep, spec.key)
    _record(f"upload {upload}: {sweep.states} states in {sweep.seconds:.1f} s")


def _walk_tour(sweep, prefix: str) -> None:
    """The page's tour on the person's data: every step opens without an exception; a step whose claim the data
    does not bear out says so ("Not so on the data shown here") instead of stating it."""
    from app.services.tours import TOURS

    steps = TOURS.get(prefix, [])
    buttons = {b.key for b in sweep.at.button}
    if not steps or f"{prefix}.tour_start" not in buttons:
        return
    sweep.at.button(key=f"{prefix}.tour_start").click()
    sweep.run("tour step 1")
    for i in range(2, len(steps) + 1):
        if f"{prefix}.tour_next" not in {b.key for b in sweep.at.button}:
            sweep.failures.append(f"[{sweep.label} | tour step {i - 1}] no Next button")
            return
        sweep.at.button(key=f"{prefix}.tour_next").click()
        sweep.run(f"tour step {i}")
    assert not sweep.failures, "\n".join(sweep.failures)


@pytest.mark.parametrize("upload, page", [("vectors-4-cols", "words"), ("text-25-words", "manifolds"),
                                          ("text-25-words", "sets"), ("playlists-markup", "categories")])
def test_a_page_keeps_its_own_data_when_the_upload_is_not_for_it(upload, page):
    spec = next(p for p in PAGES if p.url == page)
    at = open_page("app_pages/home.py")
    files = [(name, blob, "text/plain") for name, blob in UPLOADS[upload]]
    at.sidebar.file_uploader[0].set_value(files if len(files) > 1 else files[0]).run()
    at.switch_page(spec.path).run()
    if f"{spec.key}.dataset" not in at.session_state and spec.key in DATA_MODES:
        mode, value = DATA_MODES[spec.key]  # the page opens on a view of its own data: switch to one of data
        at.session_state[mode] = value
        at.run()
    assert not at.exception and not at.error, [e.value for e in list(at.exception) + list(at.error)]
    assert at.session_state[f"{spec.key}.dataset"] != "upload"
    notes = [c.value for c in at.caption if "Your upload" in c.value]
    assert len(notes) == 1 and ("not used on this page" in notes[0] or "keeps its own data" in notes[0]), notes


def test_graphs_names_a_node_it_drops_for_having_only_a_self_loop():
    from tests.app.uploads import SELF_LOOP_EDGES

    at = open_page("app_pages/graphs.py")
    at.file_uploader(key="graphs.edges").set_value(("edges.txt", SELF_LOOP_EDGES, "text/plain")).run()
    assert not at.exception and not at.error, [e.value for e in list(at.exception) + list(at.error)]
    named = [i.value for i in at.info if "only a self" in i.value and "no other edge" in i.value]
    assert len(named) == 1 and "lonely" in named[0] and "solo" in named[0], [i.value for i in at.info]
