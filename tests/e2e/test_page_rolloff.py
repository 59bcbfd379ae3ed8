"""Who starts, rolled for on the tray; whose dice the game's dice are; roll photos seen from below; the
tray's label when it is empty. Against the box's real table service (hardware faked: tests/webui/realbox.py), whose tray the tests throw dice into.

Screenshots go to test-artifacts/screenshots/.
"""

from __future__ import annotations

import pytest
from pagekit import choose_game, pair_with_box, shot
from playwright.sync_api import expect
from realbox import make_table, set_camera, set_tray

pytestmark = pytest.mark.e2e


@pytest.fixture()
def table(tmp_path):
    table = make_table(tmp_path)
    yield table
    table.close()


@pytest.fixture()
def box(table, serve_table):
    return serve_table(table)


def die(value, certain=True) -> dict:
    return {"value": value, "face": str(value), "colour": "white", "confidence": 0.95 if certain else 0.5,
            "center": [50, 50], "box": [30, 30, 70, 70], "certain": certain}


def throw(table, *dice: dict) -> None:
    """A player throws into the tray: it moves, then settles with what the camera reads."""
    set_tray(table, "moving")
    set_tray(table, "settled", list(dice))


def rolled(page, i: int) -> str:
    return page.locator(f"#s_rolloff .roplayer[data-index='{i}']").get_attribute("data-values")


def wait_rolled(page, i: int, values: str) -> None:
    page.locator(f"#s_rolloff .roplayer[data-index='{i}'][data-values='{values}']").wait_for()


LANGS = [  # browser locale, tag, dark, whose throw it is, the tie line, the winner line
    ("en-US", "en", True, "Ana: throw one die into the tray", "Tie at 5: Ana, Bo roll again.", "Bo starts!"),
    ("zh-TW", "zh-TW", True, "Ana：擲一顆骰子到托盤裡", "5 點平手：Ana, Bo 重擲。", "Bo 先開始！"),
    ("ko-KR", "ko", False, "Ana: 트레이에 주사위 하나를 던지세요", "5 동점: Ana, Bo 다시 굴립니다.", "Bo 먼저 시작!"),
]


@pytest.mark.parametrize("locale,lang,dark,throw_line,tie_line,wins", LANGS, ids=[x[1] for x in LANGS])
def test_roll_for_who_starts_on_the_tray(box, table, phone, locale, lang, dark, throw_line, tie_line, wins):
    page = phone(locale, dark=dark)
    page.goto(box)
    pair_with_box(page, table)
    before = table.snapshot()
    page.locator("#newgame").click()
    choose_game(page, "dicethrone")
    rows = page.locator("#s_players .splayer")
    rows.nth(0).locator("input").fill("Ana")
    rows.nth(0).locator("select").select_option("barbarian")
    rows.nth(1).locator("input").fill("Bo")
    rows.nth(1).locator("select").select_option("monk")
    page.select_option("#s_start", "tray")
    page.locator("#s_go").click()
    page.locator("#s_rolloff").wait_for()
    assert page.locator("#ro_throw").inner_text() == throw_line
    shot(page, f"40-rolloff-start-{lang}")

    throw(table, die(5))  # Ana
    wait_rolled(page, 0, "5")
    # the die still lies on the tray: it is not Bo's throw
    assert page.locator("#s_rolloff .roplayer.now").get_attribute("data-index") == "1"
    assert rolled(page, 1) == ""
    page.locator("#ro_note").wait_for()
    throw(table, die(5))  # Bo: a tie, both roll again
    wait_rolled(page, 1, "5")
    assert page.locator("#ro_tie").inner_text() == tie_line
    shot(page, f"41-rolloff-tie-{lang}")

    throw(table, die(3, certain=False))  # Ana again: the camera is unsure, a player checks the die
    page.locator("#ro_yes").wait_for()
    assert page.locator("#ro_tray [data-value='3']").count() == 1
    shot(page, f"42-rolloff-unsure-{lang}")
    page.locator("#ro_yes").click()
    wait_rolled(page, 0, "5,3")

    throw(table, die(2), die(6))  # two dice on the tray: neither counts
    page.locator("#ro_note").wait_for()
    assert rolled(page, 1) == "5"
    page.locator("#ro_pad [data-v='6']").click()  # Bo's die entered by hand
    wait_rolled(page, 1, "5,6")
    assert page.locator("#ro_result").inner_text() == wins
    assert page.locator("#s_rolloff .roplayer.won").get_attribute("data-index") == "1"
    shot(page, f"43-rolloff-winner-{lang}")

    # nothing was recorded in any game by the throws: the page asked the box to only show them
    assert table.snapshot()["tray"]["observing"] is True
    now = table.snapshot()
    assert (now["game"], now["seq"], now["log"]) == (before["game"], before["seq"], before["log"])
    page.locator("#ro_go").click()
    page.locator("#setup").wait_for(state="hidden")
    page.locator("#players article[data-player='p2'].active").wait_for()
    snap = table.snapshot()
    assert snap["game"] == "dicethrone" and snap["start_player"] == "p2" and snap["active"] == "p2"
    assert [e for e in snap["log"] if e["action"]["type"] == "roll"] == []
    assert page.locator("#active").inner_text() == "Bo"
    assert page.js_errors == []


def test_rolloff_back_and_again(box, table, phone):
    """With no camera the throws are entered by hand; back returns to the setup with what was chosen; roll
    again forgets the throws; closing the sheet starts nothing."""
    page = phone("en-US")
    page.goto(box)
    pair_with_box(page, table)
    page.locator("#newgame").click()
    choose_game(page, "dicethrone")
    page.locator("#s_modes label:has-text('King of the Hill')").click()
    page.select_option("#s_start", "tray")
    page.locator("#s_go").click()
    expect(page.locator("#s_rolloff .roplayer")).to_have_count(3)
    page.locator("#ro_back").click()
    page.locator("#s_fields").wait_for()
    assert page.locator("#s_start").input_value() == "tray"
    set_camera(table, "off")  # no camera: every throw is entered by hand
    page.wait_for_function("() => window.dicesight.snap.camera.status === 'off'")  # the phone has heard it
    page.locator("#s_go").click()
    expect(page.locator("#ro_tray")).to_have_text("Camera off — enter dice by hand")
    for i, v in enumerate((2, 6, 4)):
        page.locator(f"#ro_pad [data-v='{v}']").click()
        wait_rolled(page, i, str(v))
    expect(page.locator("#ro_result")).to_have_text("Player 2 starts!")
    page.locator("#ro_again").click()
    expect(page.locator("#s_rolloff .roplayer[data-values='']")).to_have_count(3)
    page.keyboard.press("Escape")  # the phone's back gesture closes the sheet
    page.locator("#setup").wait_for(state="hidden")
    assert table.snapshot()["game"] == "freeroll"
    # the page tells the box to record camera rolls again (the phone hears it on its event stream)
    page.wait_for_function("() => window.dicesight.snap.tray.observing === false")
    assert table.snapshot()["tray"]["observing"] is False


DICE_LABELS = [  # locale, tag, dark, offensive dice, defensive dice, hero name, photo caption
    ("en-US", "en", True, "Ann's offensive dice", "Bo's defensive dice", "Barbarian", "Seen from below: bottom faces"),
    ("zh-TW", "zh-TW", False, "Ann 的攻擊骰", "Bo 的防禦骰", "野蠻人", "從下方拍攝：看到的是底面"),
    ("ko-KR", "ko", True, "Ann의 공격 주사위", "Bo의 방어 주사위", "야만인", "아래에서 찍은 사진: 바닥 면"),
]


@pytest.mark.parametrize("locale,lang,dark,offense,defense,hero,caption", DICE_LABELS,
                         ids=[x[1] for x in DICE_LABELS])
def test_the_dice_say_whose_they_are_and_what_for(box, table, phone, tmp_path, locale, lang, dark, offense, defense,
                                                  hero, caption):
    import cv2
    import numpy as np

    photo = np.full((96, 128, 3), 40, np.uint8)
    cv2.circle(photo, (64, 48), 20, (235, 235, 235), -1)
    jpeg = cv2.imencode(".jpg", photo)[1].tobytes()
    table.new_game("dicethrone", {"mode": "1v1", "start": "ann", "players": [
        {"id": "ann", "name": "Ann", "hero": "monk"}, {"id": "bo", "name": "Bo", "hero": "barbarian"}]})
    page = phone(locale, dark=dark)
    page.goto(box)
    page.locator("#players article[data-player='ann']").wait_for()
    table.submit({"type": "advance", "player": "ann"})
    page.locator("#dicetitle", has_text=offense).wait_for()
    fist = {"value": 1, "face": "fist", "colour": "black"}  # as the camera reads the Monk's dice
    table.submit({"type": "roll", "dice": [fist] * 5, "source": "camera"}, image=jpeg)  # kept with its photo
    page.locator("#gamedice [data-value='1']").first.wait_for()
    assert page.locator("#log [data-face='fist']").count() == 5  # the log draws the dice as read
    assert page.locator("#dicetitle").inner_text() == offense
    assert page.locator("#log .photocap").first.inner_text() == caption  # the camera is under the glass
    page.locator("#log img").first.scroll_into_view_if_needed()  # thumbnails load lazily, when seen
    page.wait_for_function("() => document.querySelector('#log img').naturalWidth === 128")  # the photo shows
    shot(page, f"44-offensive-dice-label-{lang}", at="#gamedicecard")
    shot(page, f"45-roll-photo-from-below-{lang}", at="#logcard")
    ability = table.snapshot()["abilities"][0]["id"]
    table.submit({"type": "ability", "player": "ann", "ability": ability})
    table.submit({"type": "pass"})
    table.submit({"type": "defense", "player": "bo", "defense": "thick_skin"})
    page.locator("#dicetitle", has_text=defense).wait_for()
    assert page.locator("#gamedicecard").get_attribute("data-role") == "defense"
    assert page.locator("#dicehero").inner_text() == hero  # the Barbarian's dice
    table.submit({"type": "roll", "dice": [3, 4, 5]})
    page.locator("#gamedice [data-value='5']").wait_for()
    assert page.locator("#dicetitle").inner_text() == defense
    shot(page, f"46-defensive-dice-label-{lang}", at="#phasebar")
    assert page.js_errors == []


def test_an_empty_tray_is_not_settling(box, table, phone):
    page = phone("en-US")
    page.goto(box)
    page.locator("#live.on").wait_for()
    expect(page.locator("#traystate")).to_have_text("")
    # the live flag and the tray view come from two messages: wait for the second (a loaded full run read it
    # between them, an empty string)
    expect(page.locator("#tray")).to_have_text("The tray is empty")
    set_tray(table, "settling")  # the camera watching an empty, still tray
    page.locator("#traycard[data-state='settling']").wait_for()
    assert page.locator("#traystate").inner_text() == ""
    assert page.locator("#tray").inner_text() == "The tray is empty"
    shot(page, "47-tray-empty-settling", at="#traycard")
    set_tray(table, "moving")  # a hand, a die rolling
    page.locator("#traycard[data-state='moving']").wait_for()
    assert page.locator("#traystate").inner_text() == "Dice moving…"
    set_tray(table, "settled", [die(4)])
    page.locator("#tray [data-value='4']").wait_for()
    assert page.locator("#traystate").inner_text() == "Settled"


def test_an_unsure_reading_is_worded_in_the_page_language(box, table, phone):
    page = phone("ko-KR")
    page.goto(box)
    page.locator("#live.on").wait_for()
    set_tray(table, "settled", [die(2), die(5, certain=False)], needs_confirmation=True,
                   message="Not sure of every die: confirm or fix the dice.")  # the box's English
    page.locator("#tray [data-value='5']").wait_for()
    assert page.locator("#traymsg").inner_text() == "주사위를 확실히 읽지 못했습니다: 확인하세요"
    assert "Not sure" not in page.locator("body").inner_text()
    shot(page, "48-tray-unsure-ko", at="#traycard")
