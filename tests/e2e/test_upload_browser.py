"""Files as people have them, dropped on the sidebar's uploader in Chromium: Excel workbooks (.xlsx and the
old .xls), a CSV a spreadsheet in a European locale wrote (';' between fields, decimal commas) and GloVe word
vectors. Each is read as the right kind, says how, and raises nothing."""

from __future__ import annotations

import pytest

from tests.app.uploads import DISK_FILES
from tests.conftest import ARTIFACTS
from tests.e2e.test_browser import assert_no_exception, browser, server, wait_idle  # noqa: F401  (fixtures)

#: The MIME type a browser gives each file, as it would on a person's machine.
MIME = {".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", ".csv": "text/csv",
        ".txt": "text/plain", ".xls": "application/vnd.ms-excel"}


@pytest.mark.parametrize("case, kind, label, said", [
    ("vectors-xlsx", "vectors", "Vectors", "read its first sheet, 'Measurements'"),
    ("table-xls", "table", "Table", "read its first sheet, 'Measurements'"),
    ("table-semicolon-decimal-comma", "table", "Table", "decimal comma"),
    ("vectors-glove", "vectors", "Vectors", "a word and 5 numbers on every line"),
])
def test_a_file_from_a_disk_is_read_as_its_kind(server, browser, case, kind, label, said):  # noqa: F811
    url, _ = server
    name, blob = DISK_FILES[case][0]
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    try:
        page.goto(f"{url}/data")
        wait_idle(page)
        ext = name[name.rfind("."):]
        page.locator('[data-testid="stSidebar"] input[type="file"]').set_input_files(
            [{"name": name, "mimeType": MIME[ext], "buffer": blob}])
        page.wait_for_selector('[data-testid="stSidebar"] [data-testid="stFileChip"]', timeout=30_000)
        wait_idle(page)
        page.wait_for_selector(f'text=Guessed: {kind}.', timeout=60_000)
        assert_no_exception(page, case)
        main = page.locator('[data-testid="stMain"]')
        assert main.locator('[data-testid="stAlertContentError"]').count() == 0, main.inner_text()[:2000]
        checked = page.locator('[data-testid="stRadio"] label:has(input:checked)').first.inner_text()
        assert checked.startswith(label), checked
        text = main.inner_text()
        assert f"Read as {label.lower()}" in text and said in text, text[:2000]
        page.screenshot(path=str(ARTIFACTS / "screenshots" / f"upload-{case}.png"), full_page=True)
    finally:
        page.close()
