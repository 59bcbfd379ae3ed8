"""Are these dice fair? in a real Chromium at 390x844 (issue 36): from the game's page to the fairness view,
where a red die loaded to show 1 a third of the time is named, bar and words, and the fair blue die thrown with
it is not; the same in Traditional Chinese and Korean. Then "test my dice": a paired phone asks for N throws, a
free roll of its own starts, and the page follows the throws to the verdict. The throws are camera rolls
submitted as the tray service submits them (real table and store). Screenshots:
test-artifacts/screenshots/80-fairness-*.png."""

from __future__ import annotations

import pytest
from pagekit import pair_with_box, shot
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


def test_test_my_dice_asks_for_throws_and_follows_them_to_the_verdict(tmp_path, serve_table, phone):
    table = make_table(tmp_path / "box")
    try:
        page = phone("en-US")
        url = serve_table(table)
        page.goto(f"{url}/fairness")
        form = page.locator("#testform")
        expect(form.locator('input[name="throws"]')).to_have_value("277")  # one d6, a face 50% off, 4 times in 5
        form.locator("button").click()  # an unpaired phone may not change the game
        expect(page.locator("#testmsg")).to_contain_text("Pair this phone on the game's page first")
        page.goto(url)
        pair_with_box(page, table)
        page.locator("#fairlink a").click()
        form.locator('input[name="throws"]').fill("120")
        form.locator("button").click()
        page.wait_for_url("**/fairness?game=*&throws=120")
        expect(page.locator("#testrun .testline")).to_have_text("Testing the dice: 0 of 120 throws.")
        assert table.snapshot()["title"] == "Dice test" and table.snapshot()["count"] == 0
        # thrown into the tray while the page waits: red shows 1 half the time. (A fair die is wrongly accused
        # one time in twenty, by design: seed 36 is such a time for blue here; test_fairness.py checks the rates.)
        camera_rolls(table, 120, seed=37, share=0.5)
        expect(page.locator("#testrun .testline")).to_have_text("Done: 120 throws. Here is what they say.",
                                                                timeout=12000)  # it followed by itself
        expect(page.locator('article.fairdie[data-colour="red"]')).to_have_attribute("data-verdict", "biased")
        expect(page.locator('article.fairdie[data-colour="blue"] .verdict')).to_have_text(
            "No evidence of bias after 120 rolls.")
        shot(page, "80-fairness-test-my-dice", full=True)
        assert not page.js_errors
    finally:
        table.close()
