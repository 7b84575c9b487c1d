"""Share: every control lives in the URL, a link restores it, and what a link asks for that a page cannot
take is named, not silently reset."""

from __future__ import annotations

import ast

import pytest
from streamlit.testing.v1 import AppTest

from app.pages import PAGES
from app.ui.share import link_problems
from tests.conftest import ROOT

APP = ROOT / "app" / "streamlit_app.py"
#: Widgets that hold a setting of the view (buttons, uploads and downloads are actions, not settings).
SETTINGS = {"slider", "select_slider", "radio", "selectbox", "checkbox", "toggle", "number_input", "text_input",
            "multiselect", "segmented_control", "pills", "ranged_slider", "ranged_number", "ranged_select_slider"}
#: Settings kept out of the URL on purpose, with the reason.
NOT_IN_URL = {"global.seed": "kept in the URL as ?seed=, the parameter links have always used",
              "maps.search": "any text is a search, so a link's value could never be refused as not possible"}


def _calls(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if name in SETTINGS:
                yield node, {k.arg: k.value for k in node.keywords}


@pytest.mark.parametrize("path", sorted((ROOT / "app" / "app_pages").glob("*.py")) + [ROOT / "app/ui/sidebar.py"],
                         ids=lambda p: p.name)
def test_every_setting_is_bound_to_the_url(path):
    unbound = []
    for node, kw in _calls(path):
        key = kw.get("key")
        key = key.value if isinstance(key, ast.Constant) else ast.unparse(key) if key is not None else None
        if key in NOT_IN_URL:
            continue
        bind = kw.get("bind")
        if not (isinstance(bind, ast.Constant) and bind.value == "query-params"):
            unbound.append(f"line {node.lineno}: {ast.unparse(node.func)} key={key}")
    assert not unbound, f"settings not in the URL: {unbound}"


def test_link_problems_names_what_was_not_taken():
    requested = {"man.B": "999", "man.reg": "-2.0", "man.graph": "true", "man.noise": "0", "seed": "4",
                 "words.window": "3"}
    now = {"man.reg": "-2.0", "man.graph": "true", "seed": "4", "words.window": "3"}
    state = {"man.B": 12, "man.reg": -2.0, "man.graph": True, "man.noise": 0.0}
    lines = link_problems(requested, now, state, "man")
    assert lines == ["The link's man.B = '999' is not possible here, so 12 is used."]  # noise 0 is the default


def _open(page_path: str, params: dict) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=180)
    for k, v in params.items():
        at.query_params[k] = v
    at.switch_page(page_path)
    return at.run()


def test_a_link_restores_the_view_and_says_what_it_could_not():
    at = _open("app_pages/manifolds.py", {"man.B": "7", "man.graph": "true", "man.n": "600", "seed": "3"})
    assert not at.exception
    assert (at.session_state["man.B"], at.session_state["man.graph"], at.session_state["man.n"]) == (7, True, 600)
    assert at.session_state["global.seed"] == 3
    assert not [w for w in at.warning if "link" in w.value]
    assert at.query_params["man.B"] == "7" and at.query_params["seed"] == "3"  # the address keeps them

    at = _open("app_pages/manifolds.py", {"man.B": "999", "man.reg": "abc", "man.graph": "true"})
    assert not at.exception
    text = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "man.B = '999' is not possible here, so 12 is used" in text
    assert "man.reg = 'abc' is not possible here" in text and "graph" not in text
    assert at.session_state["man.graph"] is True  # what could be taken was


def test_a_link_made_from_an_upload_asks_for_the_file():
    at = _open("app_pages/manifolds.py", {"upload": "0123456789ab", "man.dataset": "Your upload: cloud.csv"})
    assert not at.exception
    text = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "made from an uploaded file (SHA-1 0123456789ab…): upload the same file" in text
    assert "man.dataset" not in text  # the missing upload is said once, not as a bad data-set name
@pytest.mark.parametrize("spec", [p for p in PAGES if not p.default], ids=lambda p: p.url)
def test_every_page_has_the_share_panel(spec):
    at = _open(spec.path, {})
    assert not at.exception
    if spec.url == "playlists":  # the panel exports a trained model: wait for the training the page started
        from tests.app.test_playlists_page import after_training

        at = after_training(at)
    assert any(b.label == "Download to reproduce (.zip)" for b in at.sidebar.get("download_button")), spec.url
