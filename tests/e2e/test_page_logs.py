"""The logs say what happened (issue 34, point 7): King of Tokyo's kept dice by face, once per run of taps,
not as 0-based positions one row a tap; Mage Wars attack dice entered on the pad logged as the faces they
are (2* 1* 2 blank, not the pad's 6 5 4 1); a hit told before the damage it dealt; no attack offered once
the creature has attacked; a hit of no damage says why; and a camera roll names its roller. The games are
set up and partly played on the real table; the phone does the rest. The lines the checks read are read on
en, zh-TW and ko phones. Screenshots: test-artifacts/screenshots/logs-*.png."""

from __future__ import annotations

import re

import pytest
from pagekit import pair_with_box, shot
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e
SLOW = 45_000  # ms

KOT = {"players": [{"id": "p1", "name": "Ana", "monster": "cyber_kitty"},
                   {"id": "p2", "name": "Bo", "monster": "the_king"}], "first": "p1"}
MAGE_WARS = {"initiative": "p1", "phase": "actions",
             "players": [{"name": "Ana", "mage": "wizard"}, {"name": "Ben", "mage": "warlock", "armor": 3}],
             "objects": [{"name": "Bear", "owner": "p1", "life": 8, "ready": True}]}


# The lines the checks read, as each phone's language words them (the games' texts log.kept and view.why_armor)
KEPT = {"en-US": "Dice kept: Claw Claw", "zh-TW": "保留骰子：爪擊 爪擊", "ko-KR": "남긴 주사위: 발톱 발톱"}
NO_DAMAGE = {"en-US": "no damage (armor 3 stops all 1)", "zh-TW": "沒有傷害（護甲 3 擋下全部 1 點）",
             "ko-KR": "피해 없음 (방어구 3: 일반 피해 1 모두 막음)"}


def paired_phone(phone, box, table, locale: str = "en-US"):
    page = phone(locale)
    page.goto(box)
    pair_with_box(page, table)
    return page


def settle(page, table) -> None:
    page.wait_for_function("s => window.dicesight.snap && window.dicesight.snap.seq >= s", arg=table.snapshot()["seq"],
                           timeout=SLOW)


def tap(page, locator) -> None:
    """Tap something that sends an action, and wait for the box's answer (patient: the suite's workers and
    the box's threads share two cores)."""
    with page.expect_response(lambda r: r.url.endswith("/api/actions"), timeout=SLOW) as answer:
        locator.click(timeout=SLOW)
    assert answer.value.ok, answer.value.text()
    page.wait_for_function("s => window.dicesight.snap.seq >= s", arg=answer.value.json()["seq"], timeout=SLOW)


@pytest.mark.parametrize("locale", sorted(KEPT))
def test_king_of_tokyo_logs_the_kept_faces_once(phone, box, table, locale):
    table.new_game("kingoftokyo", KOT)
    table.submit({"type": "roll", "player": "p1", "dice": ["heart", "claw", "claw", "1", "2", "3"]})
    page = paired_phone(phone, box, table, locale)
    settle(page, table)
    for i in (1, 2):
        tap(page, page.locator("#kot-dice button").nth(i))
    kept = page.locator("#kot-events li[data-type='kept']")
    expect(kept).to_have_count(1, timeout=SLOW)
    expect(kept).to_have_text(KEPT[locale])
    expect(page.locator("#log")).to_contain_text(KEPT[locale].rsplit(" ", 1)[0])
    assert "keep" not in page.locator("#log").inner_text().split()
    shot(page, f"logs-kot-kept-{locale}", at="#kot-events")


# A run of taps between two throws, as one row: the faces kept at its end (the dice of that throw, not today's)
RUN_KEPT = {"en-US": ("Dice kept: Claw", "Dice kept: Energy Claw"), "zh-TW": ("保留骰子：爪擊", "保留骰子：能量 爪擊"),
            "ko-KR": ("남긴 주사위: 발톱", "남긴 주사위: 에너지 발톱")}


@pytest.mark.parametrize("locale", sorted(RUN_KEPT))
def test_king_of_tokyo_s_action_log_has_one_row_per_run_of_taps(phone, box, table, locale):
    table.new_game("kingoftokyo", KOT)
    table.submit({"type": "roll", "player": "p1", "dice": ["heart", "claw", "claw", "1", "2", "3"]})
    page = paired_phone(phone, box, table, locale)
    settle(page, table)
    for i in (1, 2, 1):  # keep a claw, the other, let the first go again: claw (die 3) is kept
        tap(page, page.locator("#kot-dice button").nth(i))
    first, last = table.snapshot()["log"][-3]["seq"], table.snapshot()["log"][-1]["seq"]
    rows = page.locator("#log li[data-type='keep']")
    expect(rows).to_have_count(1, timeout=SLOW)
    expect(rows).to_have_text(re.compile(f"Ana: {re.escape(RUN_KEPT[locale][0])}$"))
    expect(rows.locator("small").first).to_have_text(f"{first}–{last}")
    # the reroll puts a heart where the first claw lay: the row still says what was kept then
    table.submit({"type": "roll", "player": "p1", "dice": ["energy", "heart", "1", "2", "3"]})
    settle(page, table)
    tap(page, page.locator("#kot-dice button").nth(0))
    expect(rows).to_have_count(2, timeout=SLOW)
    expect(rows.nth(0)).to_have_text(re.compile(f"Ana: {re.escape(RUN_KEPT[locale][1])}$"))
    expect(rows.nth(1)).to_have_text(re.compile(f"Ana: {re.escape(RUN_KEPT[locale][0])}$"))
    shot(page, f"logs-kot-run-of-taps-{locale}", at="#logcard")


@pytest.mark.parametrize("locale", sorted(NO_DAMAGE))
def test_mage_wars_logs_faces_the_order_of_a_hit_and_why_it_did_nothing(phone, box, table, locale):
    table.new_game("magewars", MAGE_WARS)
    table.submit({"type": "activate", "object": "p1"})
    table.submit({"type": "attack", "target": "p2", "attack": {"name": "Staff", "dice": 4}})
    page = paired_phone(phone, box, table, locale)
    settle(page, table)
    for v in (6, 5, 4, 1):  # the pad's sides: 2*, 1*, 2, blank
        page.locator(f"#entrypad [data-add='{v}']").click()
    tap(page, page.locator("#entrysubmit"))
    snap = table.snapshot()
    assert snap["log"][-1]["action"]["dice"] == ["2*", "1*", "2", "blank"]
    story = [li.get_attribute("data-key") for li in page.locator(".mwstory li").all()]
    assert story.index("log.strike") < story.index("log.damage"), story
    # its attack is used: the prompt offers guard and the end of the action phase only
    if locale == "en-US":
        expect(page.locator("#pending h2")).to_contain_text("guard, or end")
    assert page.locator("#pending button.option[data-type='attack']").count() == 0
    shot(page, f"logs-mw-hit-then-damage-{locale}", at=".mwstory")

    table.submit({"type": "end_activation"})
    table.submit({"type": "activate", "object": "p2"})
    table.submit({"type": "end_activation"})
    table.submit({"type": "activate", "object": "o1"})
    table.submit({"type": "attack", "target": "p2", "attack": {"name": "Claw", "dice": 2}})
    table.submit({"type": "roll", "dice": ["1", "blank"]})  # 1 normal against armor 3
    settle(page, table)
    expect(page.locator(".mwstory li[data-key='log.strike']").first).to_contain_text(NO_DAMAGE[locale], timeout=SLOW)
    shot(page, f"logs-mw-no-damage-why-{locale}", at=".mwstory")


def test_a_camera_roll_names_its_roller(table):
    table.new_game("magewars", MAGE_WARS)
    table.submit({"type": "activate", "object": "p1"})
    table.submit({"type": "attack", "target": "p2", "attack": {"name": "Staff", "dice": 2}})
    table.submit({"type": "roll", "source": "camera", "dice": [{"face": "2"}, {"face": "blank"}]})
    assert table.snapshot()["log"][-1]["action"]["player"] == "p1"
