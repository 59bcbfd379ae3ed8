"""Nothing a phone shows is English on a Traditional Chinese or Korean page (issue 34 #5).

Each of the four games is played a few steps from a paired phone at 390x844 in zh-TW and in ko, against the
box's real table service (the steps of the example games in docs/examples, sent through the table's one
writer as the box's buttons and the other phones would). At each step the phone's visible words are
collected: the page's text (document.body.innerText, with every <details> opened), and what a screen reader
or a finger reads without it showing as text (aria-label, placeholder, title, alt, select options). Any
Latin word outside a short allow-list (the player and card names typed for the test, the brand
"dicesight", the language switcher's "English") fails the test, with where it was seen.

Screenshots go to test-artifacts/screenshots/lang-<game>-<lang>-<step>.png: look at them after changing a
page's words.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from pagekit import PHONE, pair_with_box, shot
from realbox import make_table

pytestmark = [pytest.mark.e2e, pytest.mark.slow(20)]

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
LANGS = {"zh-TW": "zh-TW", "ko": "ko-KR"}
# Names the players typed: each language's players are named in that language; a card's name typed at the
# table (Mage Wars) is the player's own words, so the test types it in the page's language too.
NAMES = {"zh-TW": ["小明", "阿華", "美玲", "志豪"], "ko": ["서연", "지수", "민준", "하늘"]}
TYPED = {"Staff": {"zh-TW": "法杖", "ko": "지팡이"}, "Hellfire": {"zh-TW": "地獄火", "ko": "지옥불"},
         "Bear": {"zh-TW": "熊", "ko": "곰"}, "Claws": {"zh-TW": "熊爪", "ko": "발톱"},
         "Imp": {"zh-TW": "小惡魔", "ko": "임프"}, "Pitchfork": {"zh-TW": "乾草叉", "ko": "쇠스랑"}}
# "Regidice": the name its zh-TW rules (BGA, seed 002) write in Latin letters; "QR": the code's name in
# zh-TW and ko as in English ("顯示加入 QR 碼")
ALLOWED = {"dicesight", "English", "Regidice", "QR"}
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
NOT_WORDS = re.compile(r"https?://\S+|(?<![A-Za-z])d\d+(?![A-Za-z])")  # the page's address; dice as d12, d6
ROMAN = re.compile(r"[IVX]+")  # a level's number as the cards print it (Dice Throne's II and III)

# What the phone shows: its text, and the words a screen reader or a finger meets (labels, placeholders,
# tooltips, picture texts, a select's every option). Closed <details> are opened first so their forms count.
VISIBLE_WORDS = """() => {
  for (const d of document.querySelectorAll('details')) d.open = true;
  const seen = [['text', document.body.innerText]];
  const shown = (el) => el.checkVisibility ? el.checkVisibility() : el.offsetParent !== null;
  for (const el of document.querySelectorAll('[aria-label], [placeholder], [title], img[alt], select')) {
    if (!shown(el)) continue;
    const where = el.id ? '#' + el.id : el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ')[0] : '');
    for (const attr of ['aria-label', 'placeholder', 'title', 'alt']) {
      const v = el.getAttribute(attr);
      if (v) seen.push([where + '@' + attr, v]);
    }
    if (el.tagName === 'SELECT') for (const o of el.options) seen.push([where + ' option', o.textContent]);
  }
  return seen;
}"""


def english_words(seen: list[list[str]]) -> list[str]:
    """Every Latin word outside the allow-list, with where on the page it was and the line it stood in."""
    found = []
    for where, text in seen:
        text = NOT_WORDS.sub(" ", text or "")
        for word in LATIN_WORD.findall(text):
            if word not in ALLOWED and not ROMAN.fullmatch(word):
                alone = re.compile(rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])")
                line = next((ln for ln in (text or "").splitlines() if alone.search(ln)), "")
                found.append(f"{where}: {word!r} in {line.strip()[:90]!r}")
    return found


def example(name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    setup = json.loads((EXAMPLES / f"{name}.setup.json").read_text(encoding="utf-8"))
    lines = (EXAMPLES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return setup, [json.loads(ln) for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]


def typed(value: Any, lang: str) -> Any:
    """The example's setup or actions as players of `lang` type them: their names and the names they give
    their cards and attacks in their own language."""
    if isinstance(value, dict):
        return {k: typed(v, lang) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v, lang) for v in value]
    return TYPED.get(value, {}).get(lang, value) if isinstance(value, str) else value


def renamed(setup: dict[str, Any], lang: str) -> dict[str, Any]:
    """The example's setup with its players named in the page's language."""
    players = [{**p, "name": NAMES[lang][i]} for i, p in enumerate(setup["players"])]
    return typed({**setup, "players": players}, lang)


class Phone:
    """One paired phone following the table; `look` collects what it shows once it has drawn the latest move."""

    def __init__(self, page, table, game: str, lang: str) -> None:
        self.page, self.table, self.game, self.lang = page, table, game, lang
        self.found: list[str] = []  # each English word once, where it was first seen
        self.steps: list[str] = []

    def english(self) -> str:
        """The report of a failed check: each English word seen, once, with the step it was first seen at."""
        return "\n".join(f"{self.game} {self.lang} step {s}: {w}" for s, w in zip(self.steps, self.found, strict=True))

    def settle(self) -> None:
        seq = self.table.snapshot()["seq"]
        self.page.wait_for_function(
            "s => { const d = window.dicesight; return d && d.snap && d.snap.seq >= s && d.games[d.snap.game]; }",
            arg=seq)
        self.page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")

    def note(self, step: str, seen: list[list[str]]) -> None:
        for word in english_words(seen):
            if word not in self.found:
                self.found.append(word)
                self.steps.append(step)

    def look(self, step: str, at: str | None = None) -> None:
        """Collect what the phone shows now; with `at`, also a screenshot of the phone scrolled there."""
        self.settle()
        self.note(step, self.page.evaluate(VISIBLE_WORDS))
        if at:
            shot(self.page, f"lang-{self.game}-{self.lang}-{step}", at=at)

    def play(self, actions: list[dict[str, Any]], every: int = 1, tag: str = "") -> None:
        """Submit actions as the table's other hands would, looking after every `every`-th one."""
        for k, action in enumerate(actions, start=1):
            self.table.submit(action)
            if k % every == 0 or k == len(actions):
                self.look(f"{tag}{k}")


@pytest.fixture()
def open_phone(tmp_path, serve_table, phone):
    """A paired phone in `lang` on a table playing `game` from `setup` (a camera that sees an empty tray, so
    the tray's card and its messages show)."""
    tables = []

    def make(game: str, setup: dict[str, Any], lang: str) -> Phone:
        table = make_table(tmp_path / f"{game}-{lang}", game=game, setup=setup, seed=setup.get("seed", 1))
        tables.append(table)
        url = serve_table(table)
        page = phone(LANGS[lang])
        page.goto(url)
        pair_with_box(page, table)
        return Phone(page, table, game, lang)

    yield make
    for table in tables:
        table.close()


def refuse_a_tray_roll(table, values: list[Any]) -> None:
    """Dice confirmed on the tray when the game does not want them: the box words the refusal under the tray."""
    assert table.confirm_tray(values) is None


@pytest.mark.parametrize("lang", list(LANGS))
def test_dice_throne_speaks_the_page_language(open_phone, lang):
    setup, actions = example("dicethrone-1v1")
    ph = open_phone("dicethrone", renamed(setup, lang), lang)
    ph.look("0", at="#board")
    ph.play(actions[:3])
    ph.look("3", at="#pending")  # the offensive roll: keep dice, the abilities they make, the odds
    bullet = {"zh-TW": "子彈", "ko": "총알"}[lang]  # the Gunslinger's side 1, read with its number
    assert f"1 {bullet}" in ph.page.locator("#gamedice .die").first.get_attribute("aria-label")
    ph.play(actions[3:6])
    ph.look("6", at="#board")
    ph.play(actions[6:20], every=3, tag="b")
    ph.look("20", at="#logcard")
    assert not ph.found, ph.english()


@pytest.mark.parametrize("lang", list(LANGS))
def test_king_of_tokyo_speaks_the_page_language(open_phone, lang):
    setup, actions = example("kingoftokyo-4-monsters")
    ph = open_phone("kingoftokyo", renamed(setup, lang), lang)
    ph.look("0", at="#board")
    ph.play(actions[:5])
    ph.play([{"type": "keep", "dice": [0, 1]}], tag="keep")  # a die kept by tapping it: a line of the log
    ph.look("kept", at="#viewdice")
    # the hand-entry pad reads a symbol face by its name, not as "Die showing 4" (issue 34, smaller points)
    heart = {"zh-TW": "治癒", "ko": "하트"}[lang]
    assert heart in ph.page.locator("#entrypad [data-add='4']").get_attribute("aria-label")
    ph.play(actions[5:7], tag="b")
    ph.look("7", at="#logcard")
    ph.play(actions[7:20], every=3, tag="c")
    ph.look("20", at="#board")
    assert not ph.found, ph.english()


@pytest.mark.parametrize("lang", list(LANGS))
def test_regidice_speaks_the_page_language(open_phone, lang):
    setup, actions = example("regidice-2p-victory")
    ph = open_phone("regidice", renamed(setup, lang), lang)
    ph.look("0", at="#phasebar")
    ph.play(actions[:1])
    refuse_a_tray_roll(ph.table, ["R1", "R2", "R3", "B1", "B2", "B3", "Y1", "Y2"])  # 8 of the 9 dice p2 rolls
    ph.look("refused-count", at="#traycard")
    ph.play(actions[1:4], tag="b")
    refuse_a_tray_roll(ph.table, ["R1", "B2", "Y3"])  # dice thrown in the Declare phase
    ph.look("refused-phase", at="#traycard")
    ph.play(actions[4:7], tag="c")
    ph.look("prepare", at="#pending")  # passing dice to the neighbour: each die by its colour
    ph.play(actions[7:12], tag="d")
    ph.look("12", at="#phasebar")
    assert not ph.found, ph.english()


@pytest.mark.parametrize("lang", list(LANGS))
def test_mage_wars_speaks_the_page_language(open_phone, lang):
    setup, actions = example("magewars-duel")
    actions = typed(actions, lang)
    ph = open_phone("magewars", renamed(setup, lang), lang)
    ph.look("0", at="#board")
    ph.play(actions[:12], every=3)
    ph.look("12", at="#mwbuilder")  # Ana's mage acts: the attack builder
    ph.play(actions[12:17])
    ph.look("17", at="#mwstrike")  # Hellfire's dice and effect worked out, a blank among the faces
    ph.play(actions[17:23], every=2, tag="b")
    ph.look("23", at="#mwstory")
    assert not ph.found, ph.english()


def test_an_unnamed_mage_wars_attack_is_named_in_each_phone_s_language(tmp_path, serve_table, phone):
    """An attack the builder sends without a name is stored with none (not the sender's word for "attack"), and
    every phone names it in its own language; effects typed with the page's condition names reach the engine
    as conditions."""
    setup, actions = example("magewars-duel")
    table = make_table(tmp_path, game="magewars", setup=renamed(setup, "ko"), seed=1)
    try:
        url = serve_table(table)
        for action in typed(actions[:12], "ko"):
            table.submit(action)  # Ana's mage acts: the attack builder is open
        phones = {lang: phone(locale) for lang, locale in {**LANGS, "en": "en-US"}.items()}
        for page in phones.values():
            page.goto(url)
            page.locator("#live.on").wait_for()
        ko = phones["ko"]
        pair_with_box(ko, table)
        ko.locator("#mwbuilder").wait_for()
        ko.select_option("#mwtarget", "p2")
        ko.select_option("#mwtype", "flame")
        ko.fill("#mweffects", "7+ = 화상")
        ko.locator("#mwattackbtn").click()
        ko.locator("#mwattack").wait_for()
        spec = table.snapshot()["attack"]["spec"]
        assert spec["name"] == "" and spec["type"] == "flame"
        assert [(r["min"], r["max"], r["condition"]) for r in spec["effects"]] == [(7, None, "burn")]
        for lang, word in {"ko": "공격", "zh-TW": "攻擊", "en": "Attack"}.items():
            page = phones[lang]
            page.wait_for_function("() => window.dicesight.snap && window.dicesight.snap.attack")
            assert page.locator("#mwattack strong").first.inner_text() == word, lang
            assert word in page.locator("#mwstory").inner_text(), lang
        shot(ko, "lang-magewars-ko-unnamed-attack", at="#mwattack")
    finally:
        table.close()


# Every text the page puts on screen from its first frame on (nodes added, text changed, labels set), kept
# before any of its scripts runs: what a phone flashes for a moment counts as much as what stays.
RECORD_TEXTS = """
window.__texts = [];
const skip = (n) => Boolean(n.parentElement && n.parentElement.closest('script, style, title'));
const textsOf = (n) => {
  if (n.nodeType === 3) return skip(n) ? [] : [n.data];
  if (n.nodeType !== 1) return [];
  const out = [];
  const walk = document.createTreeWalker(n, NodeFilter.SHOW_TEXT);
  for (let t = walk.nextNode(); t; t = walk.nextNode()) if (!skip(t)) out.push(t.data);
  for (const el of [n, ...n.querySelectorAll('[aria-label], [placeholder], [title], [alt]')]) {
    for (const a of ['aria-label', 'placeholder', 'title', 'alt']) if (el.getAttribute && el.getAttribute(a)) out.push(el.getAttribute(a));
  }
  return out;
};
new MutationObserver((changes) => {
  const keep = (where, s) => { if (s && /[A-Za-z]/.test(s)) window.__texts.push([where, s]); };
  for (const c of changes) {
    if (c.type === 'characterData' && !skip(c.target)) keep('text', c.target.data);
    else if (c.type === 'attributes') keep('@' + c.attributeName, c.target.getAttribute(c.attributeName));
    for (const n of c.addedNodes || []) for (const s of textsOf(n)) keep('text', s);
  }
}).observe(document, { subtree: true, childList: true, characterData: true, attributes: true,
                       attributeFilter: ['aria-label', 'placeholder', 'title', 'alt'] });
"""


@pytest.mark.parametrize(("game", "steps"), [("magewars", 12), ("dicethrone", 3)])
def test_no_engine_words_flash_while_the_page_loads(tmp_path, serve_table, chromium, game, steps):
    """Issue 34 #5: a phone opening the page mid-game never shows the engine's ids or English option labels
    ("end_activation", "Keep die 1") while the game's words load, not even for one frame."""
    name = {"magewars": "magewars-duel", "dicethrone": "dicethrone-1v1"}[game]
    setup, actions = example(name)
    table = make_table(tmp_path, game=game, setup=renamed(setup, "ko"), seed=setup.get("seed", 1))
    context = chromium.new_context(viewport=PHONE, locale="ko-KR", is_mobile=True, has_touch=True)
    try:
        url = serve_table(table)
        for action in typed(actions[:steps], "ko"):
            table.submit(action)
        context.add_init_script(RECORD_TEXTS)
        page = context.new_page()
        page.route("**/games/*/board.js*", lambda route: (time.sleep(0.3), route.continue_()))  # a slow phone
        page.goto(url)
        ph = Phone(page, table, game, "ko")
        ph.settle()
        page.locator("#pending .option").first.wait_for()
        ph.note("load", page.evaluate("() => window.__texts"))
        assert not ph.found, ph.english()
    finally:
        context.close()
        table.close()


@pytest.mark.parametrize("lang", list(LANGS))
def test_the_free_roll_speaks_the_page_language(open_phone, lang):
    """The game a box starts with, before anyone sets one up."""
    setup, actions = example("freeroll-evening")
    ph = open_phone("freeroll", {**setup, "title": {"zh-TW": "週二骰子夜", "ko": "화요일 주사위"}[lang]}, lang)
    ph.look("0")
    ph.play(actions[:4], tag="r")
    refuse_a_tray_roll(ph.table, [])  # nothing confirmed: the box says why under the tray
    ph.look("4", at="#traycard")
    assert not ph.found, ph.english()
