"""A whole Regidice game with four phones (four Chromium contexts at 390x844, each paired with the box's Pair
button and bound to its player's seat with the page's seat chooser) against the box's real table service: the
first round is played on the phones (two players enter their own roll colour by colour on the page, the other
two send theirs from their phones; all declare, resolve, take the damage and prepare on the page), the second
round of the example game docs/examples/regidice-4p-victory is sent from each acting player's phone, and the
rest goes through the table's one writer (`Table.submit`, the call behind the API) while the four phones
follow, to victory.

Every snapshot each phone received on its event stream and every /api/state it fetched is checked, as the
bytes it got (parsed): before the Collect phase of a round, no die in another player's pool carries its pips
while the phone's own rolled dice do, the log shows rolls by colour only, and the round's events carry no
pips of a roll. The truth to compare with is the table's own game replayed to each snapshot's sequence
number.

Screenshots go to test-artifacts/screenshots/regidice-*.png.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pagekit import PHONE, pair_with_box, serve, shot
from playwright.sync_api import expect

from engine.games import get_rules
from engine.match import Match
from webui import create_app

pytestmark = [pytest.mark.e2e, pytest.mark.slow(30)]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "regidice-4p-victory"
RULES = get_rules("regidice")
PLAYERS = ["p1", "p2", "p3", "p4"]

# Every snapshot frame the page's own EventSource receives, kept as the raw text (the bytes on the wire).
RECORD_FRAMES = """
(() => {
  const Native = window.EventSource;
  window.__frames = [];
  function Recording(url, opts) {
    const es = new Native(url, opts);
    es.addEventListener("snapshot", (ev) => window.__frames.push(ev.data));
    return es;
  }
  Recording.prototype = Native.prototype;
  for (const k of ["CONNECTING", "OPEN", "CLOSED"]) Recording[k] = Native[k];
  window.EventSource = Recording;
})();
"""


@pytest.fixture()
def table(tmp_path):
    from device.pairing import Pairing
    from device.store import Store
    from device.table import Table

    # Four phones ask to pair from the same loopback address: allow them (the box limits asks per address).
    table = Table(Store(tmp_path / "state"), camera=None,
                  pairing=Pairing(tmp_path / "tokens.json", asks_per_address=8))
    yield table
    table.close()


def script() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    setup = json.loads(EXAMPLE.with_suffix(".setup.json").read_text(encoding="utf-8"))
    lines = EXAMPLE.with_suffix(".jsonl").read_text(encoding="utf-8").splitlines()
    return setup, [json.loads(ln) for ln in lines if ln.strip() and not ln.startswith("#")]


def post(page, action: dict[str, Any]) -> dict[str, Any]:
    """POST /api/actions from this phone (its pairing cookie and CSRF header), as the page's act() does."""
    return page.evaluate("""async (action) => {
        const r = await fetch('/api/actions', {method: 'POST', credentials: 'same-origin',
          headers: {'Content-Type': 'application/json', 'X-Dicesight-CSRF': window.dicesight.session.csrf || 'page'},
          body: JSON.stringify(action)});
        return {status: r.status, body: await r.json()};
    }""", action)


def fetch_state(page) -> str:
    return page.evaluate("async () => (await fetch('/api/state', {credentials: 'same-origin'})).text()")


def wait_seq(page, seq: int) -> None:
    page.wait_for_function("s => window.dicesight && window.dicesight.snap && window.dicesight.snap.seq >= s", arg=seq)


GROUPED = ("option.declare_cast", "option.nudge", "option.prepare_one")  # folded by the view's optionGroup


def click_option(page, action: dict[str, Any]) -> None:
    """Tap the pending decision's button whose action is `action`. The page numbers the buttons within their
    list: the plain options, then the ones the view folds under a heading (cast declarations...)."""
    found = page.evaluate("""([want, grouped]) => {
        const key = (a) => JSON.stringify(Object.keys(a).sort().map((k) => [k, a[k]]));
        const options = window.dicesight.snap.pending.options;
        const folded = (o) => grouped.includes(o.text);
        for (const fold of [false, true]) {
          const list = options.filter((o) => folded(o) === fold);
          const i = list.findIndex((o) => key(o.action) === key(want));
          if (i >= 0) return {i, fold};
        }
        return null;
    }""", [action, list(GROUPED)])
    assert found is not None, action
    if found["fold"]:
        details = page.locator("#pending details")
        if details.get_attribute("open") is None:
            details.locator("summary").click()
        button = details.locator(f".options button[data-option='{found['i']}']")
    else:
        button = page.locator(f"#pending > .options button[data-option='{found['i']}']")
    button.click()


def enter_roll(page, dice: list[str]) -> None:
    """This phone's own roll on the view's colour-by-colour entry: tap each die up to its pips, send."""
    expect(page.locator("#rdentry")).to_be_visible()
    expect(page.locator("#entry")).to_be_hidden()  # the page's number-only pad gives way (ownEntry)
    buttons = page.locator("#rdentrydice button")
    colours = [buttons.nth(i).get_attribute("data-colour") for i in range(buttons.count())]
    letters = {"red": "R", "blue": "B", "yellow": "Y", "black": "K"}
    wanted: dict[str, list[int]] = {}
    for text in dice:
        wanted.setdefault(text[0], []).append(int(text[1]))
    for i, colour in enumerate(colours):
        pips = wanted[letters[colour]].pop(0)
        for _ in range(pips):
            buttons.nth(i).click()
        expect(buttons.nth(i).locator(".die")).to_have_attribute("data-value", str(pips))
    page.locator("#rdsend").click()


# -- the leak check ----------------------------------------------------------------------------------
class Truth:
    """The table's game replayed to any sequence number: which pips are hidden from whom at that point."""

    def __init__(self, setup: dict[str, Any], seed: int, actions: list[dict[str, Any]]) -> None:
        self.states = [Match(RULES, setup, seed).state]
        match = Match(RULES, setup, seed)
        for action in actions:
            match.submit(action)
            self.states.append(match.state)

    def rolled(self, seq: int) -> dict[str, dict[str, int]]:
        """Before the reveal: each player's dice rolled this round (die id -> pips); {} once revealed."""
        s = self.states[seq]
        if s["phase"] not in ("roll", "declare"):
            return {}
        out: dict[str, dict[str, int]] = {}
        for d in s["dice"]:
            if d["at"].startswith("pool:") and d["rolled"]:
                out.setdefault(d["at"][5:], {})[d["id"]] = d["pips"]
        return out


def walk(value: Any):
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)


def check_frame(raw: str, truth: Truth, where: str, viewer: str) -> int:
    """Assert one received snapshot shows the phone its own rolled pips and nobody else's; answers its seq."""
    snap = json.loads(raw)
    seq = snap["seq"]
    # a frame from before the phone took its seat is the watchers' view: it shows nobody's pips
    seen_as = snap.get("viewer")
    assert seen_as in (viewer, None), f"{where}: seq {seq} rendered for {seen_as}"
    rolled = truth.rolled(seq)
    hidden = {i: v for player, dice in rolled.items() if player != seen_as for i, v in dice.items()}
    for node in walk(snap):
        die_id = node.get("id", node.get("die"))
        if die_id in hidden:
            shown = node.get("pips", node.get("value"))
            assert shown is None, f"{where}: seq {seq} shows {die_id}={shown} to {viewer}"
    own = {d["id"]: d["pips"] for p in snap["players"] if p["id"] == seen_as for d in p["pool"]}
    for die_id, pips in rolled.get(seen_as, {}).items() if seen_as else ():
        assert own[die_id] == pips, f"{where}: seq {seq} hides {viewer}'s own {die_id} from them"
    for entry in snap.get("log", []):
        if entry["action"].get("type") == "roll":
            for die in entry["action"].get("dice", []):
                assert isinstance(die, dict) and set(die) <= {"colour"}, f"{where}: a roll's pips in the log"
    for event in snap.get("events", []):
        if event.get("type") == "rolled":
            assert set(event) == {"type", "player", "count", "colours"}, f"{where}: a roll's pips in an event"
    for die in (snap.get("tray") or {}).get("dice", []):
        if hidden:
            assert die.get("value") is None, f"{where}: the tray shows a hidden roll"
    if hidden:
        assert snap["collect"] == [] and snap["hidden"] is True
    return seq


def test_four_phones_play_regidice_and_never_see_each_others_hidden_dice(table, chromium) -> None:
    setup, actions = script()
    table.new_game("regidice", setup, seed=setup["seed"])
    app = create_app(table, secret_key="e2e")
    checked = 0
    contexts = []
    # the session's browser (conftest): a second Playwright in one process trips over the first one's loop
    with serve(app) as url:
        browser = chromium
        phones = {}
        for k, player in enumerate(PLAYERS):
            context = browser.new_context(viewport=PHONE, locale=["en", "zh-TW", "ko", "en"][k])
            contexts.append(context)
            context.add_init_script(RECORD_FRAMES)
            page = context.new_page()
            page.goto(url + "/?lang=" + ["en", "zh-TW", "ko", "en"][k])
            pair_with_box(page, table)
            expect(page.locator("#seatcard")).to_be_visible()
            page.locator("#seat").select_option(player)  # "This phone plays as"
            # the page reopens its event stream once paired, so the seat's own dice arrive live (no reload)
            page.wait_for_function("p => window.dicesight.snap && window.dicesight.snap.viewer === p", arg=player)
            phones[player] = page
        for page in phones.values():
            expect(page.locator("#rdenemy h2")).to_be_visible()
        states: list[tuple[str, str]] = []

        # Round 1 on the phones themselves (p1 and p2 tap their dice in, p3 and p4 send theirs).
        n = 0
        while actions[n]["type"] == "roll":
            page = phones[actions[n]["player"]]
            if actions[n]["player"] in ("p1", "p2"):
                enter_roll(page, actions[n]["dice"])
            else:
                expect(page.locator("#rdentry")).to_be_visible()
                assert post(page, actions[n])["status"] == 200
            wait_seq(page, n + 1)
            if n == 1:
                shot(page, "regidice-roll-p2-zh")
            n += 1
        states.append(("p1", fetch_state(phones["p1"])))
        expect(phones["p1"].locator("#rdplayers article[data-player='p1'] .die[data-value='']")).to_have_count(0)
        expect(phones["p1"].locator("#rdplayers article[data-player='p2'] .die[data-value='']")).to_have_count(6)
        expect(phones["p1"].locator("#rdminedice .die")).to_have_count(6)  # "Your dice", on this phone only
        expect(phones["p2"].locator("#rdminedice .die")).to_have_count(6)
        shot(phones["p1"], "regidice-own-dice-p1", at="#rdplayers")
        shot(phones["p1"], "regidice-declare-p1", at="#rdmine")
        while actions[n]["type"] == "declare":
            page = phones[actions[n]["player"]]
            wait_seq(page, n)
            click_option(page, actions[n])
            wait_seq(page, n + 1)
            n += 1
        page = phones["p3"]
        expect(page.locator("#rdmoves li").first).to_be_visible()
        shot(page, "regidice-collect-p3-ko", at="#rdcollect")
        click_option(page, actions[n])  # go on to Resolve
        n += 1
        wait_seq(phones["p1"], n)
        while actions[n]["type"] not in ("roll",):
            action = actions[n]
            page = phones.get(action.get("player"), phones["p1"])
            wait_seq(page, n)
            if action["type"] == "prepare" and action.get("dice"):
                assert post(page, action)["status"] == 200
            else:
                click_option(page, action)
            wait_seq(page, n + 1)
            n += 1
        shot(phones["p4"], "regidice-round2-p4")

        # Round 2, each action from the acting player's phone; then the rest through the table's one writer
        # while the phones follow (a whole game of POSTs would mostly test fetch, at four pages' cost).
        round2 = n + next(i for i, a in enumerate(actions[n:]) if i and a["type"] == "roll" and
                          actions[n + i - 1]["type"] != "roll")
        # Each time a round enters its Declare or Collect phase, one phone (in turn) also asks GET /api/state.
        last = None
        for k, action in enumerate(actions[n:], start=n):
            page = phones.get(action.get("player"), phones["p1"])
            if k < round2:
                answer = post(page, action)
                assert answer["status"] == 200, answer
                phase = answer["body"]["phase"]
            else:
                phase = table.submit(action)["phase"]
            if phase in ("declare", "collect") and phase != last:
                who = PLAYERS[len(states) % 4]
                states.append((who, fetch_state(phones[who])))
            last = phase
        final = table.match.seq
        for page in phones.values():
            wait_seq(page, final)
            expect(page.locator("#rdresult")).to_have_attribute("data-result", "victory")
        shot(phones["p2"], "regidice-victory-p2-zh")

        truth = Truth(setup, setup["seed"], table.match.effective_actions())
        for player, page in phones.items():
            frames = page.evaluate("() => window.__frames")
            assert len(frames) > 20, player
            seqs = [check_frame(raw, truth, f"{player} event stream", player) for raw in frames]
            assert max(seqs) == final
            checked += len(frames)
        assert len(states) > 20  # every phone asked, in Declare and in Collect, round after round
        for player, raw in states:
            check_frame(raw, truth, f"{player} GET /api/state", player)
        for context in contexts:
            context.close()
    assert checked > 80
