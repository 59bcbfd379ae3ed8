"""Are these dice fair? in a real Chromium at 390x844 (issue 36): from the game's page to the fairness view,
where a red die loaded to show 1 a third of the time is named, bar and words, and the fair blue die thrown with
it is not; the same in Traditional Chinese and Korean. The throws are camera rolls submitted as the tray service
submits them (real table and store), 300 of each die. Screenshots: test-artifacts/screenshots/80-fairness-*.png."""

from __future__ import annotations

import pytest
from pagekit import shot
from playwright.sync_api import expect
from realbox import camera_rolls, make_table

pytestmark = pytest.mark.e2e


@pytest.fixture()
def table(tmp_path):
    table = make_table(tmp_path)
    camera_rolls(table, 300, seed=36)  # red: 1 a third of the time; blue: fair
    yield table
    table.close()


@pytest.mark.parametrize(("locale", "loaded", "fair"), [
    ("en-US", "Shows 1 far too often: p < 0.001", "No evidence of bias after 300 rolls."),
    ("zh-TW", "1 出現得太頻繁：p < 0.001", "擲了 300 次，沒有偏差的證據。"),
    ("ko-KR", "1 면이 너무 자주 나옵니다: p < 0.001", "300번 굴린 결과, 치우침의 증거가 없습니다."),
])
def test_the_fairness_view_names_the_loaded_die_and_clears_the_fair_one(table, serve_table, phone, locale, loaded,
                                                                           fair):
    page = phone(locale)
    page.goto(serve_table(table))
    page.locator("#fairlink a").click()  # from the game's page
    red = page.locator('article.fairdie[data-colour="red"]')
    blue = page.locator('article.fairdie[data-colour="blue"]')
    expect(red.locator(".verdict")).to_contain_text(loaded)
    expect(blue.locator(".verdict")).to_have_text(fair)
    expect(red.locator("svg rect.bar")).to_have_count(6)
    expect(red.locator("svg rect.bar.hot")).to_have_count(1)  # the 1
    expect(blue.locator("svg rect.bar.hot")).to_have_count(0)
    # the chart is drawn, and fits the phone: six bars side by side, none wider than the screen
    box = red.locator("svg").bounding_box()
    assert box is not None and 300 < box["width"] <= 390 and box["height"] > 100
    hot = red.locator("svg rect.bar.hot").bounding_box()
    tallest = max(b["height"] for b in (r.bounding_box() for r in red.locator("svg rect.bar").all()))
    assert hot["height"] == tallest  # the loaded face stands out by its height too
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing runs off the screen
    shot(page, f"80-fairness-{locale}", full=True)
    assert not page.js_errors
