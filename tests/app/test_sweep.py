"""The sweep: every page, every bundled data set, every control at its ends, from the default state.

Generated from the page registry and from the widgets each page draws, so a
new page, data set or control is swept without editing this file. A state
passes when the page renders with no exception and no error or warning that
repeats an internal message; a message that says what to change is fine.
"""

from __future__ import annotations

import pytest

from app.pages import PAGES
from embedcore import datasets
from tests.app.sweep import Sweep
from tests.conftest import open_page


def _cases():
    for spec in PAGES:
        ids = [d.id for kind in spec.data for d in datasets.datasets_of_kind(kind)]
        for ds in ids or [None]:
            yield pytest.param(spec, ds, id=f"{spec.url}-{ds or 'no-data'}")


@pytest.mark.parametrize("spec, dataset", list(_cases()))
def test_every_control_at_its_ends(spec, dataset):
    at = open_page(spec.path)
    sweep = Sweep(at, f"{spec.url}/{dataset}")
    sweep.check("default")
    key = f"{spec.key}.dataset"
    if dataset is not None:
        at.session_state[key] = dataset
        sweep.run(f"data set {dataset}")
        box = [w for w in at.selectbox if w.key == key]
        assert box and box[0].value == dataset, f"{spec.url} does not offer {dataset} in {key}"
    sweep.turn_each(skip={key, "global.seed"} | ({"global.seed"} if dataset else set()))
    print(f"{sweep.label}: {sweep.states} states in {sweep.seconds:.1f} s")
    assert not sweep.failures, "\n".join(sweep.failures)


@pytest.mark.parametrize("spec", [s for s in PAGES if s.data], ids=[s.url for s in PAGES if s.data])
def test_registry_lists_the_data_sets_each_page_offers(spec):
    at = open_page(spec.path)
    box = [w for w in at.selectbox if w.key == f"{spec.key}.dataset"]
    assert box, f"{spec.url} has no data-set box under {spec.key}.dataset"
    titles = [d.title for kind in spec.data for d in datasets.datasets_of_kind(kind)]
    assert list(box[0].options) == titles
