"""Wording a lecture audience would stumble on: a table upload on a page of documents is named with its article."""

from __future__ import annotations

from tests.app.uploads import UPLOADS
from tests.conftest import open_page


def test_a_table_upload_on_a_page_of_vectors_is_called_a_table():
    at = open_page("app_pages/text.py")
    at.sidebar.file_uploader[0].set_value(UPLOADS["table-3-categories"][0] + ("text/csv",)).run()
    lines = [c.value for c in at.caption if "looks like" in c.value]
    assert lines and all("looks like a table," in line for line in lines), lines


def test_a_column_of_a_few_whole_numbers_is_a_label_with_a_legend():
    import numpy as np

    from app.services.manifolds import is_label

    assert is_label(np.array([0, 1, 1, 0])) and is_label(np.array([0.0, 1.0, 1.0])) and is_label(np.array(["a", "b"]))
    assert not is_label(np.linspace(0, 1, 50)) and not is_label(np.arange(100)) and not is_label(None)
