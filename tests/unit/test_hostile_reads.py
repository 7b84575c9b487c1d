"""Hostile files read as the server reads them: in a contained child, held to the budgets of embedcore.io.budgets.

Every case ends in the file's result or one DataError a person can act on; none takes the caller with it.
The browser test of the same files against the real server is tests/e2e/test_hostile_uploads_browser.py.
"""

from __future__ import annotations

import os
import resource

import pytest

from embedcore.exceptions import DataError
from embedcore.io import budgets, contained
from embedcore.io.kinds import explain_kind
from embedcore.io.uploads import read_upload
from tests import hostile

#: The words each refusal must hold: what is wrong, in the file's own numbers.
SAYS = {
    "sparse far cell (.xlsx)": ["XFD1048576", "1,048,576 rows x 16,384 columns", "4,000,000 cells"],
    "sheet bomb, no dimension (.xlsx)": ["450 MB of XML", "up to 400 MB"],
    "shared-strings bomb (.xlsx)": ["110 MB of shared strings", "up to 100 MB"],
    "30,000 columns (.parquet)": ["30,000 columns", "20,000"],
    "a 100 MB cell (.parquet)": ["'title'", "100,000 characters"],
    "a 20 MB cell (.csv)": ["row 1, column 'title'", "20,000,000 characters"],
    "gzip bomb (.csv)": ["gzip-compressed"],
    "bzip2 bomb (.tsv)": ["bzip2-compressed"],
    "pickled objects (.npy)": ["never unpickles"],
    "billion laughs (.xlsx)": ["cannot be read as a workbook"],
}


@pytest.mark.parametrize("case", list(hostile.CASES))
def test_a_hostile_file_is_read_or_refused_in_words_within_its_child(case):
    make, kind, readable = hostile.CASES[case]
    name, data = make()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    guessed, _ = contained.run(explain_kind, (name,), (data,))  # the guess is held too
    assert guessed in ("vectors", "table", "documents", "sets", "playlists")
    if readable:
        result = contained.run(read_upload, kind, [name], [data], 0)
        assert result.name == name
        return
    with pytest.raises(DataError) as err:
        contained.run(read_upload, kind, [name], [data], 0)
    message = str(err.value)
    assert name in message or "This file" in message, message
    for words in SAYS.get(case, []):
        assert words in message, message
    assert "Traceback" not in message and len(message) < 400
    # the caller held the bytes and a short message, nothing the reader built
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown * 1024 < 3 * len(data) + 64 * 2**20, (grown, len(data))


def test_a_read_past_its_memory_or_time_ends_in_a_message_and_the_next_read_works():
    with pytest.raises(DataError, match="needs more than 1 GB of memory"):
        contained.run(bytearray, 4 * 2**30, memory=2**30)
    with pytest.raises(DataError, match="needs more than 1 s to read"):
        contained.run(os.system, "sleep 30", seconds=1)
    assert contained.run(sum, range(10)) == 45


def test_a_reader_that_dies_without_an_answer_is_a_message_not_a_hang():
    with pytest.raises(DataError, match="ended without an answer"):
        contained.run(os._exit, 3)
    assert contained.run(len, "abc") == 3


def test_the_budgets_refuse_by_metadata_before_any_read(monkeypatch):
    """The refusals above come from the checks, not from the limits: with no memory to spare they still say why."""
    name, data = hostile.sparse_far_xlsx()
    with pytest.raises(DataError, match="XFD1048576"):
        contained.run(read_upload, "table", [name], [data], 0, memory=64 * 2**20)
    name, data = hostile.wide_parquet(5, 30_000)
    with pytest.raises(DataError, match="30,000 columns"):
        contained.run(read_upload, "vectors", [name], [data], 0, memory=256 * 2**20)
    assert budgets.MAX_SHEET_CELLS * 8 < budgets.READ_MEMORY  # a sheet within budget fits in a read's memory
