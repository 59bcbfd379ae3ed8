"""The page with the internet cut (issue 36): every request a phone makes, for every game's board, the event
stream and "Show join code", goes to the box; anything else would be refused as if the network were down
(and none is made). tests/device/test_offline.py starts the box itself with no network at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pagekit import shot
from realbox import make_table

pytestmark = pytest.mark.e2e

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
GAMES = {"dicethrone": "dicethrone-1v1", "kingoftokyo": "kingoftokyo-4-monsters", "magewars": "magewars-duel",
         "regidice": "regidice-2p-victory"}


class CutNetwork:
    """A phone whose only reachable host is the box: requests elsewhere are aborted as "internet
    disconnected" and listed, so the test sees whether the page tried."""

    def __init__(self, page) -> None:
        self.page = page
        self.box = ""
        self.asked: list[str] = []
        self.elsewhere: list[str] = []
        self.bad: list[tuple[str, int]] = []
        self.refused: list[str] = []  # what the page's Content-Security-Policy stopped before it was asked
        page.on("response", self._response)
        page.on("console", self._console)
        page.route("**/*", self._route)

    def _route(self, route) -> None:
        url = route.request.url
        if self.box and url.startswith(self.box + "/"):
            self.asked.append(url)
            route.continue_()
        else:
            self.elsewhere.append(url)
            route.abort("internetdisconnected")

    def _response(self, response) -> None:
        if response.status >= 400:
            self.bad.append((response.url, response.status))

    def _console(self, message) -> None:
        if "Content Security Policy" in message.text:
            self.refused.append(message.text)

    def close(self) -> None:
        self.page.unroute("**/*", self._route)
        self.page.remove_listener("response", self._response)
        self.page.remove_listener("console", self._console)


def example_setup(name: str) -> dict:
    setup = json.loads((EXAMPLES / f"{name}.setup.json").read_text())
    setup.pop("seed", None)  # the table's own seeds (the example's is for `dicesight play`)
    return setup


def test_every_game_loads_from_the_box_alone(tmp_path, serve_table, phone):
    page = phone("ko-KR")
    net = CutNetwork(page)
    tables = []
    try:
        for game, example in GAMES.items():
            table = make_table(tmp_path / game, camera=None, game=game, setup=example_setup(example))
            tables.append(table)
            net.box = serve_table(table)
            with page.expect_request(lambda r, g=game: f"/games/{g}/board.js" in r.url):
                page.goto(net.box)
            page.locator("#live.on").wait_for()
            page.wait_for_function("() => document.querySelector('#board').childElementCount > 0")
            shot(page, f"offline-{game}-ko")
        page.locator("#joinbtn").click()
        page.wait_for_function("() => { const i = document.querySelector('#joinpage img'); "
                               "return i.complete && i.naturalWidth > 0; }")
    finally:
        net.close()
        for table in tables:
            table.close()
    assert net.elsewhere == [] and net.refused == []  # nothing from a CDN, a font service, an analytics host...
    assert net.bad == []
    paths = {u.removeprefix(net.box) for u in net.asked}
    for needed in ("/static/app.js", "/static/style.css", "/games/dicethrone/board.css", "/join.svg", "/api/events"):
        assert any(p.startswith(needed) for p in paths), needed
    assert page.js_errors == []
