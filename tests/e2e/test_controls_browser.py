"""Controls whose range comes from the data, in the browser: new data keep the value a person chose."""

from __future__ import annotations

import re

from tests.e2e.test_browser import browser, server, wait_idle  # noqa: F401  (fixtures)


def _thumb(page, label: str):
    exact = re.compile(rf"^\s*{re.escape(label)}\s*$")
    return page.locator('[data-testid="stSlider"]').filter(
        has=page.locator('[data-testid="stWidgetLabel"]', has_text=exact)).locator('input[type="range"]').first


def _value(thumb) -> tuple[str, str]:
    return thumb.input_value(), thumb.get_attribute("max")


def test_b_keeps_its_value_when_fewer_points_change_its_range(server, browser):  # noqa: F811
    url, _ = server
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    try:
        page.goto(f"{url}/manifolds?man.n=6000")
        wait_idle(page)
        b = _thumb(page, "B: neighbours")
        assert _value(b) == ("12", "54")  # on 6,000 points B goes up to 54 (LLE's n B^2 budget)
        points = _thumb(page, "Points")
        points.focus()
        page.keyboard.press("ArrowLeft")  # 5,900 points: B may go up to 55, a new range for the slider
        for _ in range(900):  # the slider is drawn anew (a new widget) once the page has the new points
            if _value(_thumb(page, "B: neighbours"))[1] == "55":
                break
            page.wait_for_timeout(200)
        wait_idle(page)
        assert _value(_thumb(page, "B: neighbours")) == ("12", "55")  # not the range's lower end, 3
    finally:
        page.close()
