"""A whole Dice Throne game played from a phone-sized Chromium (390x844) against the box's real table
service (device.table.Table, no camera: dice entered by hand): pair with the box's Pair button, set up a
1v1 game, play it to a winner, undo a move, reload mid-game, and look at the page in zh-TW and ko.

Screenshots of every screen go to test-artifacts/screenshots/.
"""

from __future__ import annotations

import pytest
from pagekit import choose_game, get_state, shot, wait_seq_above
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def pair_phone(page, table) -> None:
    page.locator("#pair").click()
    page.wait_for_function("() => /\\d/.test(document.getElementById('pairmsg').textContent)")
    assert table.snapshot()["pairing"]["open"] is True  # the status LED blinks while the window is open
    table.press("pair")  # a person at the box presses Pair
    page.locator("#pairbox").wait_for(state="hidden")
    assert page.evaluate("document.cookie") .find("dicesight_token") == -1  # HttpOnly: scripts cannot read it


def setup_1v1(page, health: int = 12, tag: str = "en") -> None:
    page.locator("#newgame").click()
    page.locator("#setup").wait_for(state="visible")
    choose_game(page, "dicethrone")
    page.locator("#s_modes label:has-text('1')").first.click()
    rows = page.locator("#s_players .splayer")
    expect(rows).to_have_count(2)
    rows.nth(0).locator("input").fill("Ana")
    rows.nth(0).locator("select").select_option("barbarian")
    rows.nth(1).locator("input").fill("Bo")
    rows.nth(1).locator("select").select_option("gunslinger")
    # the hero's dice symbols are shown as icons while choosing
    expect(rows.nth(0).locator(".preview .sym")).to_have_count(3)
    page.fill("#s_health", str(health))
    page.select_option("#s_start", "0")
    shot(page, f"02-setup-1v1-{tag}")
    page.locator("#s_go").click()
    page.locator("#players article[data-player='p1']").wait_for()


def enter_dice(page, values: list[int]) -> None:
    page.locator("#entryclear").click()
    for v in values:
        page.locator(f"#entrypad [data-add='{v}']").click()
    assert [int(x) for x in page.locator("#entrydice [data-value]").evaluate_all(
        "els => els.map(e => e.dataset.value)")] == values
    page.locator("#entrysubmit").click()


def step(page, url: str, hand: list[int] | None = None) -> dict:
    """Answer the pending decision through the page the way a player would; returns the state before."""
    snap = get_state(url)
    pending = snap["pending"]
    seq = snap["seq"]
    # the page draws the newest snapshot a moment after the box has it: act on what the page shows only
    # once it shows this one (a button of the previous decision would be refused)
    page.wait_for_function("s => window.dicesight.snap && window.dicesight.snap.seq === s", arg=seq)
    if pending["kind"] == "offense" and snap["attempts"]["used"] == 0 and hand is not None:
        enter_dice(page, hand)
    elif pending["kind"] == "offense" and snap["abilities"]:
        page.locator("#abilities button[data-ability]").first.click()
    else:
        page.locator("#pending button.option.primary").first.click()
    wait_seq_above(page, seq)
    return snap


def answer(table, hand: list[int] | None = None) -> dict:
    """What `step` taps, given straight to the table's one writer (`Table.submit`, the call behind the API):
    the dice `hand` entered on an offense's first roll, else the first ability the dice make, else the
    decision's default. For the long tail of a game whose page buttons were tapped already (the phone
    follows it on its event stream); returns the state before."""
    snap = table.snapshot()
    pending = snap["pending"]
    options = pending.get("options", [])
    if pending["kind"] == "offense" and snap["attempts"]["used"] == 0 and hand is not None:
        action = {**(pending["input"].get("action") or {"type": "roll"}), "dice": hand, "source": "manual"}
    else:
        abilities = [o["action"] for a in snap.get("abilities") or [] for o in options
                     if o["action"].get("type") == "ability" and o["action"].get("ability") == a["id"]]
        if pending["kind"] == "offense" and abilities:
            action = abilities[0]
        else:
            action = next(o["action"] for o in options if o.get("default"))
    table.submit(action)
    return snap


def health_shown(page) -> dict[str, int]:
    return {p: int(page.locator(f"#players article[data-player='{p}'] .health").inner_text()) for p in ("p1", "p2")}


LANGS = [  # browser locale, page language, Main phase 1, the winner line, the Pair button, health
    ("en-US", "en", "Main phase 1", "{} wins!", "Pair this phone", 12),
    ("zh-TW", "zh-TW", "主要階段（1）", "{} 獲勝！", "配對這支手機", 6),
    ("ko-KR", "ko", "주요 단계 (1)", "{} 승리!", "이 휴대폰 페어링", 6),
]
# (the other languages start at 6 health: the same whole game, to a winner in half the turns)
DRAW = {"en": "Draw: nobody wins", "zh-TW": "平手：沒有人獲勝", "ko": "무승부: 승자 없음"}


@pytest.mark.slow
@pytest.mark.parametrize("locale,lang,main1,wins,pair_label,health", LANGS, ids=[x[1] for x in LANGS])
def test_a_whole_dice_throne_game_from_a_phone(box, table, phone, locale, lang, main1, wins, pair_label, health):
    page = phone(locale)
    page.goto(box)
    page.locator("#live.on").wait_for()
    assert page.locator("#pair").inner_text() == pair_label
    shot(page, f"01-watching-unpaired-{lang}")
    assert page.locator("#newgame").is_disabled()  # watching phones cannot change the game

    pair_phone(page, table)
    setup_1v1(page, health=health, tag=lang)
    shot(page, f"03-table-start-{lang}")
    shot(page, f"03-table-start-full-{lang}", full=True)
    snap = get_state(box)
    assert snap["game"] == "dicethrone" and snap["active"] == "p1"
    assert health_shown(page) == {"p1": health, "p2": health}
    assert page.locator("#phase").inner_text() == main1

    # First turn, by hand: Ana ends Main (1), enters five dice, picks an ability the dice make.
    step(page, box)  # end Main phase 1
    # before rolling, the chance of each ability with three attempts, as the engine computes it
    page.locator("#odds li").first.wait_for()
    odds = {o["id"]: o["chance"] for o in get_state(box)["odds"]}
    first = page.locator("#odds li").first
    assert first.get_attribute("data-ability") == max(odds, key=odds.get)
    assert first.locator("b").inner_text() == f"{round(max(odds.values()) * 100)}%"
    shot(page, f"04a-odds-before-rolling-{lang}", at="#gamedicecard")
    step(page, box, hand=[1, 2, 3, 6, 6])
    tray = page.locator("#gamedice [data-value]").evaluate_all("els => els.map(e => e.dataset.value)")
    assert sorted(int(v) for v in tray) == [1, 2, 3, 6, 6]
    assert page.locator("#gamedice [data-face='pow']").count() == 2  # drawn as the hero's symbols
    assert page.locator("#abilities li").count() >= 1
    shot(page, f"04-offensive-roll-abilities-{lang}", at="#phasebar")

    # Play on until somebody has taken damage, then undo that move and see the health come back.
    before = health_shown(page)
    for _ in range(40):
        prev = step(page, box)
        now = health_shown(page)
        if now != before:
            break
    else:
        pytest.fail("no damage after 40 decisions")
    damaged = now
    shot(page, f"05-after-damage-{lang}", at="#phasebar")
    page.locator("#undo").click()
    wait_seq_above(page, get_state(box)["seq"] - 1)
    page.wait_for_function(
        "h => [...document.querySelectorAll('#players .health')].map(e => +e.textContent).join() === h",
        arg=",".join(str(prev_h) for prev_h in (p["health"] for p in prev["players"])))
    assert get_state(box)["pending"]["kind"] == prev["pending"]["kind"]
    shot(page, f"06-after-undo-{lang}", at="#logcard")

    # Reload mid-game: the same state comes back.
    mid = get_state(box)
    page.reload()
    page.locator("#live.on").wait_for()
    page.locator("#players article[data-player='p1']").wait_for()
    assert health_shown(page) == {p["id"]: p["health"] for p in mid["players"]}
    assert page.evaluate("window.dicesight.snap.seq") == mid["seq"]
    assert page.locator("#pairbox").is_hidden()  # still paired after the reload (cookie)

    # The same table in Traditional Chinese and Korean, on two more phones (watching).
    for other_locale, name, words in (("zh-TW", "zh-TW", ["配對這支手機", "生命值", "野蠻人"]),
                                ("ko-KR", "ko", ["이 휴대폰 페어링", "체력", "야만인"])):
        if lang != "en":
            break
        other = phone(other_locale)
        other.goto(box)
        other.locator("#players article[data-player='p1']").wait_for()
        other.wait_for_function("() => Object.keys(window.dicesight.games).length > 0")
        text = other.locator("body").inner_text()
        for word in words:
            assert word in text, (locale, word)
        assert other.locator("html").get_attribute("lang") == name
        shot(other, f"07-table-{name}")

    # Play to a winner (dice by hand on every offensive roll: three of the first symbol, two of the last),
    # the next turn from the phone and the rest through the table while the phone follows.
    turn = get_state(box)["turn"]
    while get_state(box)["turn"] == turn and get_state(box)["phase"] != "over":
        step(page, box, hand=[1, 2, 3, 6, 6])
    for _ in range(400):
        if table.snapshot()["phase"] == "over":
            break
        answer(table, hand=[1, 2, 3, 6, 6])
    else:
        pytest.fail("no winner after 400 decisions")
    page.locator("#winner").wait_for(state="visible")
    final = get_state(box)
    assert final["phase"] == "over"
    if final["draw"]:  # both heroes fell to the same attack (Dice Throne rules: a draw)
        assert not final["winners"] and all(p["health"] <= 0 for p in final["players"])
        expect(page.locator("#winnertext")).to_have_text(DRAW[lang])
    else:
        winner = {p["id"]: p["name"] for p in final["players"]}[final["winners"][0]]
        expect(page.locator("#winnertext")).to_have_text(wins.format(winner))
        loser = [p for p in final["players"] if p["id"] not in final["winners"]][0]
        assert loser["health"] <= 0
    shot(page, f"08-winner-{lang}")
    shot(page, f"08-winner-log-{lang}", at="#logcard")
    assert damaged is not None
    assert page.js_errors == []


def test_corrections_adjust_health_cp_and_tokens(box, table, phone):
    page = phone("en-US")
    page.goto(box)
    pair_phone(page, table)
    setup_1v1(page, health=30)
    page.locator("#corrections summary").click()
    row = "#adjust .adjplayer[data-player='p2']"
    seq = get_state(box)["seq"]
    page.locator(f"{row} .adjrow[data-field='health'] button[data-delta='-1']").click()
    wait_seq_above(page, seq)
    page.locator(f"{row} .adjrow[data-field='cp'] button[data-delta='1']").click()
    wait_seq_above(page, seq + 1)
    page.locator(f"{row} .adjrow[data-field='evasive'] button[data-delta='1']").click()
    wait_seq_above(page, seq + 2)
    p2 = get_state(box)["players"][1]
    assert p2["health"] == 29 and p2["cp"] == 3
    assert [(s["id"], s["count"], s["limit"]) for s in p2["statuses"]] == [("evasive", 1, 3)]
    chip = page.locator("#players article[data-player='p2'] .chip[data-status='evasive']")
    assert chip.inner_text().replace("\n", " ") == "Evasive 1/3"
    chip.click()  # tap a token for its rule text
    assert "roll 1 die" in page.locator("#info_text").inner_text()
    shot(page, "09-status-rule-text")
    page.locator("#info button").click()
    shot(page, "10-corrections", at="#corrections")


def test_a_watching_phone_is_refused_with_a_clear_message(box, table, phone):
    page = phone("en-US")
    page.goto(box)
    page.locator("#live.on").wait_for()
    result = page.evaluate("""async () => {
        const r = await fetch('/api/actions', {method: 'POST', headers: {'Content-Type': 'application/json',
            'X-Dicesight-CSRF': 'x'}, body: JSON.stringify({type: 'roll', dice: [1]})});
        return [r.status, await r.json()];
    }""")
    assert result[0] == 401 and result[1]["code"] == "not_paired"
    assert page.locator("#undo").is_disabled()


@pytest.mark.parametrize("mode,label,count", [("2v2", "2 vs 2", 4), ("koth", "King of the Hill", 3)])
def test_team_and_king_of_the_hill_setups(box, table, phone, mode, label, count):
    page = phone("en-US")
    page.goto(box)
    pair_phone(page, table)
    page.locator("#newgame").click()
    choose_game(page, "dicethrone")
    page.locator(f"#s_modes label:has-text('{label}')").click()
    rows = page.locator("#s_players .splayer")
    expect(rows).to_have_count(count)
    heroes = ["barbarian", "gunslinger", "pyromancer", "moon_elf"]
    for i in range(count):
        rows.nth(i).locator("input").fill(["Ana", "Bo", "Chen", "Dae"][i])
        rows.nth(i).locator("select").select_option(heroes[i])
    expect(page.locator("#s_health")).to_have_value("35" if mode == "koth" else "50")
    page.locator("#s_go").click()
    page.locator(f"#players[data-count='{count}']").wait_for()
    snap = get_state(box)
    assert snap["mode"] == mode and len(snap["players"]) == count
    if mode == "2v2":
        assert [t["members"] for t in snap["teams"]] == [["p1", "p2"], ["p3", "p4"]]
        assert page.locator("#players .team").count() == 4
    shown = [int(x) for x in page.locator("#players .health").all_inner_texts()]
    if mode == "2v2":  # a team's shared health is shown once, on its first member
        assert shown == [t["health"] for t in snap["teams"]]
        assert page.locator("#players .sharedhp").count() == 2
    else:
        assert shown == [p["health"] for p in snap["players"]]
    shot(page, f"11-table-{mode}")


def test_play_cards_from_the_phone(box, table, phone):
    page = phone("en-US")
    page.goto(box)
    pair_phone(page, table)
    setup_1v1(page, health=30)
    step(page, box)  # end Main phase 1
    step(page, box, hand=[1, 2, 3, 6, 6])
    before = get_state(box)["players"][0]
    page.locator("#cards summary").click()
    # the list is drawn when the panel's toggle event comes: wait for it, never read once
    expect(page.locator("#cardplayer")).to_have_value("p1")
    # Getting Paid! needs nothing: +2 CP for 0 CP
    seq = get_state(box)["seq"]
    page.locator("#cardlist [data-card='getting_paid']").click()
    page.locator("#cardplay").click()
    wait_seq_above(page, seq)
    # Six-It! turns a chosen die into a 6 (1 CP)
    seq = get_state(box)["seq"]
    page.locator("#cardlist [data-card='six_it']").click()
    page.locator("#cardform [data-name='die'] [data-k='0']").click()
    shot(page, "12-card-six-it")
    page.locator("#cardplay").click()
    wait_seq_above(page, seq)
    after = get_state(box)
    p1 = after["players"][0]
    assert [d["value"] for d in after["dice"]] == [6, 2, 3, 6, 6]
    assert p1["cp"] == before["cp"] + 2 - 1 and p1["hand"] == before["hand"] - 2
    assert page.locator("#gamedice [data-value]").first.get_attribute("data-value") == "6"
    shot(page, "13-after-cards", at="#gamedicecard")


def test_spending_a_token_asks_for_its_real_die(box, table, phone):
    page = phone("en-US")
    page.goto(box)
    pair_phone(page, table)
    setup_1v1(page, health=30)
    page.locator("#corrections summary").click()
    seq = get_state(box)["seq"]
    page.locator("#adjust .adjplayer[data-player='p2'] .adjrow[data-field='evasive'] button[data-delta='1']").click()
    wait_seq_above(page, seq)
    page.locator("#corrections summary").click()
    step(page, box)  # end Main phase 1
    step(page, box, hand=[1, 2, 3, 6, 6])
    spend = page.locator("#pending button.option[data-type='spend']")
    for _ in range(12):
        if any("Evasive" in x for x in spend.all_inner_texts()):
            break
        step(page, box)
    else:
        pytest.fail("no chance to spend Evasive before damage")
    health = get_state(box)["players"][1]["health"]
    seq = get_state(box)["seq"]
    spend.filter(has_text="Evasive").first.click()
    page.locator("#spendtray").wait_for()  # roll the real die into the tray, or enter it, or let the box roll
    shot(page, "14-spend-evasive")
    page.locator("#cardform [data-v='1']").click()  # a 1: the damage is avoided
    wait_seq_above(page, seq)
    snap = get_state(box)
    assert snap["players"][1]["statuses"] == [] or all(s["id"] != "evasive" for s in snap["players"][1]["statuses"])
    spent = [e for e in snap["log"] if e["action"]["type"] == "spend"][-1]["action"]
    assert spent == {"type": "spend", "player": "p2", "status": "evasive", "value": 1}
    for _ in range(6):  # finish the Roll Phase: Bo takes nothing from this attack
        if get_state(box)["phase"] != "offensive":
            break
        step(page, box)
    assert get_state(box)["players"][1]["health"] == health
