"""Fixtures for the page's browser tests: Debian's Chromium through Playwright at 390x844 (helpers in
pagekit.py), one browser and one web server for the whole session: each test hands the server its own
real table (tests/webui/realbox.py), so no test pays for a server start and stop."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pagekit import CHROMIUM, CHROMIUM_ARGS, PHONE, serve  # noqa: E402
from realbox import make_table  # noqa: E402

from webui import create_app  # noqa: E402
from webui.web import WebState  # noqa: E402


@pytest.fixture(scope="session")
def chromium():
    if not os.path.exists(CHROMIUM):
        pytest.fail("Debian's chromium is missing: apt-get install chromium (make test does it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def phone_pool(chromium):
    """Phones kept from one test to the next, by (locale, dark). A new Chromium context and page cost about
    a CPU second (a renderer process, a cold page); handing a kept one over fresh (no cookies, no storage,
    a blank page) costs about a third of that, and the suite opens ~60 phones."""
    free: dict[tuple[str, bool], list] = {}
    yield free
    for pages in free.values():
        for page in pages:
            page.context.close()


def _new_phone(chromium, locale: str, dark: bool):
    ctx = chromium.new_context(viewport=PHONE, device_scale_factor=2, locale=locale,
                               color_scheme="dark" if dark else "light", is_mobile=True, has_touch=True)
    page = ctx.new_page()
    page.set_default_timeout(15000)
    page.js_errors = []
    page.on("pageerror", lambda exc: page.js_errors.append(str(exc)))
    return page


def _hand_back(page) -> bool:
    """Make a used phone like new for the next test: True when it can be kept."""
    try:
        if page.url.startswith("http"):
            page.evaluate("() => { try { sessionStorage.clear(); localStorage.clear(); } catch (e) {} }")
        page.unroute_all(behavior="ignoreErrors")  # a test's network stand-ins (a cut connection) end with it
        page.context.unroute_all(behavior="ignoreErrors")
        page.goto("about:blank")  # its page's scripts and event stream end here
        page.context.clear_cookies()  # the pairing token: the next test's phone is not paired
        page.set_viewport_size(PHONE)
        return True
    except Exception:  # a phone a test broke (closed, crashed) is not kept
        try:
            page.context.close()
        except Exception:  # already gone with its browser context
            pass
        return False


@pytest.fixture()
def phone(chromium, phone_pool):
    """A new phone (its own cookies, no storage) at 390x844; call it with a locale for another language.
    `page.js_errors` lists the page's uncaught errors."""
    used = []

    def make(locale: str = "en-US", dark: bool = True):
        kept = phone_pool.get((locale, dark))
        page = kept.pop() if kept else _new_phone(chromium, locale, dark)
        page.js_errors = []
        used.append(((locale, dark), page))
        return page

    yield make
    for key, page in used:
        if _hand_back(page):
            phone_pool.setdefault(key, []).append(page)


@pytest.fixture(scope="session")
def web_server():
    """The web app behind waitress on a free loopback port, for the whole session. Every phone of the tests
    comes from 127.0.0.1, and streams of a finished test's pages may linger a few seconds: the per-address
    stream limit is lifted here (hardening tests it)."""
    app = create_app(None, secret_key="e2e", streams_per_address=1000)
    with serve(app) as url:
        yield app, url


@pytest.fixture()
def serve_table(web_server):
    """Put a table behind the shared server: `url = serve_table(table)`."""
    app, url = web_server

    def use(table):
        # A fresh web state for this table (its own stream hub subscribes to it); the previous test's
        # streams end (their pages are closed already).
        old = app.extensions["dicesight"]
        old.stopping.set()
        app.extensions["dicesight"] = WebState(table, old.secret)
        return url

    return use


@pytest.fixture()
def table(tmp_path):
    """The real table service with no camera (dice by hand, as on a box without one): most page tests play on
    it. A test file that needs a camera or a demo tray defines its own `table`."""
    table = make_table(tmp_path, camera=None)
    yield table
    table.close()


@pytest.fixture()
def box(table, serve_table):
    """The page's address for `table`."""
    return serve_table(table)
