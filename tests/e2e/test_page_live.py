"""The walking-skeleton page against the box's real table service (hardware faked: tests/webui/realbox.py): the tray live over SSE, dice by hand,
the banners when the camera or the connection is down, the virtual panel, and every hero's dice symbols."""

from __future__ import annotations

import pytest
from pagekit import pair_with_box, shot
from playwright.sync_api import expect
from realbox import make_table, reading, set_camera, set_tray

pytestmark = pytest.mark.e2e


@pytest.fixture()
def table(tmp_path):
    table = make_table(tmp_path)
    yield table
    table.close()


@pytest.fixture()
def box(table, serve_table):
    return serve_table(table)


def values(page, sel: str) -> list[int]:
    return [int(v) for v in page.locator(f"{sel} [data-value]").evaluate_all("els => els.map(e => e.dataset.value)")]


def test_tray_rolls_and_banners_follow_the_table_live(box, table, phone):
    page = phone("en-US")
    page.goto(box)
    page.locator("#live.on").wait_for()
    assert page.locator("#rolls").inner_text().startswith("No rolls yet")

    set_tray(table, "moving")
    page.locator("#traycard[data-state='moving']").wait_for()
    reading = [{"value": 5, "face": "5", "colour": "red", "confidence": 0.97, "center": [1, 2], "box": [0, 0, 1, 1],
                "certain": True},
               {"value": 2, "face": "2", "colour": "white", "confidence": 0.95, "center": [1, 2],
                "box": [0, 0, 1, 1], "certain": True}]
    set_tray(table, "settled", reading)
    page.locator("#traycard[data-state='settled']").wait_for()
    assert values(page, "#tray") == [5, 2]
    assert page.locator("#tray [data-colour='red']").count() == 1
    table.submit({"type": "roll", "dice": [{"value": 5, "colour": "red"}, {"value": 2}], "source": "camera"})
    page.locator("#rolls [data-n='1']").wait_for()
    assert values(page, "#rolls [data-n='1']") == [5, 2]
    shot(page, "20-freeroll-live")

    set_camera(table, "reconnecting", "USB camera unplugged")
    page.locator("#banner[data-kind='warn']").wait_for()
    assert "Camera reconnecting" in page.locator("#banner").inner_text()
    shot(page, "21-banner-camera")
    set_camera(table, "ok")
    page.locator("#banner").wait_for(state="hidden")


def test_connection_banner_and_catch_up_after_the_stream_drops(box, table, phone):
    page = phone("en-US")
    page.goto(box)
    page.locator("#live.on").wait_for()
    page.evaluate("window.dicesight.es.close(); window.dicesight.es.dispatchEvent(new Event('error'))")
    page.locator("#banner[data-kind='bad']").wait_for()
    assert "reconnecting" in page.locator("#banner").inner_text()
    shot(page, "22-banner-offline")
    table.submit({"type": "roll", "dice": [6, 6, 6]})  # happens while this phone is away
    page.locator("#rolls [data-n='1']").wait_for(timeout=10000)  # reconnected and caught up
    page.locator("#banner").wait_for(state="hidden")


def test_pair_with_the_virtual_button_and_enter_dice_by_hand(box, table, phone):
    page = phone("en-US", dark=False)  # and in light mode
    page.goto(box)
    page.locator("#live.on").wait_for()
    page.locator("#pair").click()
    page.wait_for_function("() => /Pair button/.test(document.getElementById('pairmsg').textContent)")
    page.locator("#panel-pair").click()  # the demo box's virtual Pair button
    page.locator("#pairbox").wait_for(state="hidden")
    for v in (3, 1, 6):
        page.locator(f"#entrypad [data-add='{v}']").click()
    page.locator("#entrydice [data-value='1']").click()  # tap an entered die to take it back
    assert values(page, "#entrydice") == [3, 6]
    shot(page, "23-freeroll-entry-light", at="#entry")
    page.locator("#entrysubmit").click()
    page.locator("#rolls [data-n='1']").wait_for()
    assert table.snapshot()["rolls"][0]["dice"] == [{"value": 3}, {"value": 6}]
    assert "by hand" in page.locator("#rolls [data-n='1']").inner_text()
    page.locator("#undo").click()
    page.locator("#rolls [data-n='1']").wait_for(state="detached")
    shot(page, "23-freeroll-paired")


def test_every_hero_symbol_is_drawn(box, table, phone):
    page = phone("ko-KR")
    page.goto(box)
    page.locator("#live.on").wait_for()
    missing = page.evaluate("""async () => {
        const m = await import('/static/dice.js');
        const d = await (await fetch('/api/games')).json();
        // every symbol face of every game's dice sets; faces named by a letter are symbols the hero data
        // cannot name yet: drawn as that letter; numerals and marks ("text:7", "blank", a starburst) are
        // drawn from their glyph
        const sets = d.games.flatMap(g => Object.values(g.dice_sets));
        return sets.flatMap(s => s.faces.filter(f => !f.glyph.startsWith('pips') && !m.hasIcon(f.name) &&
            !m.hasMarks(f.glyph) && !/^[a-z]$/.test(f.name)).map(f => s.id + ':' + f.name));
    }""")
    assert missing == []
    # a gallery of every hero's six faces, to look at
    page.evaluate("""async () => {
        const m = await import('/static/dice.js');
        const d = await (await fetch('/api/games')).json();
        const main = document.querySelector('main');
        main.replaceChildren();
        const game = d.games.find(g => g.name === 'dicethrone');
        for (const h of game.catalogue.heroes) {
            const row = document.createElement('div');
            row.className = 'card dice';
            row.dataset.hero = h.id;
            const name = document.createElement('b');
            name.textContent = h.name.ko || h.name.en;
            name.style.width = '100%';
            row.append(name, ...h.faces.map((f, i) => m.dieElement(i + 1, {face: f})));
            main.append(row);
        }
    }""")
    assert page.locator("[data-hero] [data-face]").count() == 6 * page.locator("[data-hero]").count()
    shot(page, "24-hero-dice-gallery", full=True)


def test_unpair_all_phones_from_the_page(box, table, phone):
    page = phone("en-US")
    page.goto(box)
    page.locator("#live.on").wait_for()
    page.locator("#pair").click()
    page.wait_for_function("() => /Pair button/.test(document.getElementById('pairmsg').textContent)")
    table.press("pair")
    page.locator("#pairedline").wait_for()
    page.on("dialog", lambda d: d.accept())
    page.locator("#unpair").click()
    page.locator("#pairbox").wait_for()
    assert page.evaluate("fetch('/api/session').then(r => r.json()).then(s => s.paired)") is False
    assert table.pairing.phones() == []


def test_panel_leds_are_labelled_in_the_page_language(box, table, phone):
    """The box's five phase LEDs carry the game's words: its `led.<slot>` texts, else the names of its phases
    on that slot (free roll: its one phase, Roll, on slot 2), else "Phase N" in the page's language."""
    page = phone("ko-KR")
    page.goto(box)
    labels = page.locator("#panel .ledbox small")
    expect(labels).to_have_count(6)
    expect(labels.nth(2)).to_have_text("굴림")  # free roll's Roll phase, on the third LED
    assert not any("phase" in text.lower() for text in labels.all_inner_texts())
    shot(page, "25-panel-leds-ko", at="#panelcard")


@pytest.mark.parametrize("dice_set, read, stored", [
    ("dicethrone:barbarian", [reading(6, False, face="pow"), reading(2, True, face="sword")],
     [{"value": 6, "face": "pow"}, {"value": 2, "face": "sword"}]),
    ("magewars-attack", [reading(1, False, face="1"), reading(2, True, face="2")],
     [{"value": 1}, {"value": 2}]),  # never {"value": 1, "face": "blank"}
])
def test_a_confirmed_free_roll_keeps_the_faces_a_number_names(box, table, phone, dice_set, read, stored):
    """A free roll confirmed on a phone keeps each die's face only where a number names one face of the box's
    set (webui/static/app.js `facesByValue`): a hero die's 6 is its pow, but on Mage Wars' attack dice a 1 is
    two faces (the plain 1 and the 1 in a starburst) and the set's first face is a blank, so there the number
    alone is sent, as before."""
    table.dice_set = dice_set
    page = phone("en-US")
    page.goto(box)
    pair_with_box(page, table)
    set_tray(table, "settled", read, needs_confirmation=True)
    page.locator("#confirmbtn").click()
    # a loaded CI machine took longer than expect's 5 s to list it
    expect(page.locator("#rolls [data-n='1']")).to_be_visible(timeout=15_000)
    assert table.snapshot()["rolls"][0]["dice"] == stored
