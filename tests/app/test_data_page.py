"""The Data page: uploads are read and reported, bad files give st.error and the app lives on."""

from __future__ import annotations

import io

import numpy as np

from tests.conftest import open_page


def upload(at, name: str, content: bytes, mime: str = "text/plain"):
    at.sidebar.file_uploader[0].set_value((name, content, mime))
    return at.run()


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_bundled_preview_without_upload():
    at = open_page("app_pages/data.py")
    assert metrics(at)["rows"] == "1,797"
    at.selectbox(key="data.bundled").set_value("tips").run()
    assert metrics(at)["rows"] == "244"


def test_good_upload_is_reported():
    at = open_page("app_pages/data.py")
    upload(at, "pts.csv", b"x,y,name\n1,2,a\n3,nan,b\n5,6,c\n", "text/csv")
    assert not at.error and not at.exception
    m = metrics(at)
    assert m["rows"] == "2" and m["numeric columns"] == "2" and m["metadata columns"] == "1"
    assert any("Dropped 1 row with a missing value" in i.value for i in at.info)


def test_bad_upload_shows_error_and_app_keeps_working():
    at = open_page("app_pages/data.py")
    upload(at, "bad.csv", b"a,b\n1,2\n3\n", "text/csv")
    assert not at.exception
    assert len(at.error) == 1 and "line 3" in at.error[0].value and "fields" in at.error[0].value
    # Reading the same file as another kind still works.
    at.radio(key="data.kind").set_value("sets").run()
    assert not at.error and metrics(at)["sets"] == "3"
    # And a corrected file replaces the bad one.
    upload(at, "good.csv", b"a,b\n1,2\n3,4\n", "text/csv")
    at.radio(key="data.kind").set_value("vectors").run()
    assert not at.error and metrics(at)["rows"] == "2"


def test_pickled_npy_upload_is_refused():
    buf = io.BytesIO()
    np.save(buf, np.array([object()], dtype=object), allow_pickle=True)
    at = open_page("app_pages/data.py")
    upload(at, "x.npy", buf.getvalue(), "application/octet-stream")
    assert not at.exception and "never unpickles" in at.error[0].value


def test_upload_text_is_not_rendered_as_markup():
    at = open_page("app_pages/data.py")
    upload(at, "evil.csv", b"a,b\n1,2\n3,<b>x</b>\n4,5\n5,6\n6,7\n7,8\n", "text/csv")
    msg = at.error[0].value
    assert "<b>" not in msg and "\\<b\\>" in msg


def test_every_bundled_data_set_is_described():
    from embedcore.datasets import DATASETS

    at = open_page("app_pages/data.py")
    for ds in DATASETS:
        at.selectbox(key="data.bundled").set_value(ds).run()
        assert not at.exception and not at.error, ds
        assert at.metric, ds


def test_the_guess_of_each_generated_upload_routes_it_to_its_pages():
    from app.services.data import ACCEPTS, guess_kind
    from tests.app.uploads import UPLOADS

    prefix = {"vectors": "vectors", "item-sets": "item_sets", "table": "table", "playlists": "playlists",
              "text": "documents"}
    for case, files in UPLOADS.items():
        kind = next(v for p, v in prefix.items() if case.startswith(p))
        names, blobs = zip(*files)
        assert guess_kind(names, blobs) in ACCEPTS[kind], case


def test_playlists_with_a_tag_file_are_guessed_as_playlists():
    at = open_page("app_pages/data.py")
    at.sidebar.file_uploader[0].set_value([("lists.txt", b"s1 s2 s3\ns2 s3\n", "text/plain"),
                                           ("song_tags.tsv", b"s1\trock\ns2\tjazz\n", "text/plain")]).run()
    assert at.radio(key="data.kind").value == "playlists"
    assert not at.error and metrics(at)["playlists"] == "2"


def test_the_guess_and_its_reason_are_shown_and_can_be_overridden():
    from tests.app.uploads import DISK_FILES

    at = open_page("app_pages/data.py")
    name, blob = DISK_FILES["vectors-labelled"][0]
    upload(at, name, blob, "text/csv")
    assert at.radio(key="data.kind").value == "vectors"
    why = [m.value for m in at.markdown if m.value.startswith("**Guessed: vectors.**")]
    assert why and "one column of labels" in why[0]
    assert metrics(at)["metadata columns"] == "1"
    at.radio(key="data.kind").set_value("table").run()  # the override reads the same file as a table
    assert not at.error and not at.exception and metrics(at)["rows"] == "60"


def test_a_corpus_of_ids_is_guessed_as_playlists_says_it_may_be_text_and_reads_as_text_when_told():
    """Lines such as 'u123 i45 i46' are playlists or a corpus of id tokens: the reason says both and the override
    reads the same file as documents, which Words then takes."""
    rng = np.random.default_rng(0)
    lines = [f"u{rng.integers(1000)} " + " ".join(f"i{j}" for j in rng.integers(0, 60, 6)) for _ in range(150)]
    at = open_page("app_pages/data.py")
    upload(at, "events.txt", ("\n".join(lines) + "\n").encode())
    assert at.radio(key="data.kind").value == "playlists"
    why = next(m.value for m in at.markdown if m.value.startswith("**Guessed: playlists.**"))
    assert "look like ids" in why and "Ids can also be a corpus" in why and "choose Text" in why
    assert "another kind of id" in why and "'u850' before" in why  # the user id in front of each line is named
    at.radio(key="data.kind").set_value("documents").run()
    assert not at.error and not at.exception, [e.value for e in at.error]
    assert metrics(at)["documents"] == "150"
    at.switch_page("app_pages/words.py").run()
    at.session_state["words.dataset"] = "upload"
    at.run()
    assert not at.error and not at.exception, [e.value for e in list(at.error) + list(at.exception)]
    assert at.session_state["words.dataset"] == "upload"  # Words reads the ids as its corpus


def test_a_workbook_and_a_european_csv_are_read_with_their_notices():
    from tests.app.uploads import DISK_FILES

    at = open_page("app_pages/data.py")
    for case, notice in [("vectors-xlsx", "first sheet, 'Measurements'"), ("vectors-xls", "first sheet, 'Measurements'"),
                         ("table-xls", "first sheet, 'Measurements'"), ("table-semicolon-decimal-comma", "decimal comma"),
                         ("vectors-cp1252", "cp1252"), ("vectors-glove", None)]:
        name, blob = DISK_FILES[case][0]
        upload(at, name, blob, "application/octet-stream")
        assert not at.error and not at.exception, (case, [e.value for e in at.error])
        assert at.radio(key="data.kind").value == case.split("-")[0], case
        if notice:
            assert any(notice in i.value for i in at.info), (case, [i.value for i in at.info])


def test_a_bad_seed_in_a_link_is_named_cut_and_replaced_in_the_link():
    from streamlit.testing.v1 import AppTest

    from tests.conftest import APP

    for bad in ["-1", str(2**64), "seven", "9" * 10_000]:
        at = AppTest.from_file(str(APP), default_timeout=120)
        at.query_params["seed"] = bad
        at.switch_page("app_pages/data.py").run()
        assert not at.exception and at.session_state["global.seed"] == 0
        warned = [w.value for w in at.sidebar.warning if "seed" in w.value]
        assert len(warned) == 1 and "0 is used" in warned[0] and len(warned[0]) <= 300, warned
        assert at.query_params["seed"] == ["0"] or at.query_params["seed"] == "0"
