"""Fixtures for the page's browser tests: Debian's Chromium through Playwright at 390x844 (helpers in
pagekit.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pagekit import CHROMIUM, CHROMIUM_ARGS, PHONE  # noqa: E402


@pytest.fixture(scope="session")
def chromium():
    if not os.path.exists(CHROMIUM):
        pytest.fail("Debian's chromium is missing: apt-get install chromium (make test does it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture()
def phone(chromium):
    """A new phone (its own cookies) at 390x844; call it with a locale for another language."""
    contexts = []

    def make(locale: str = "en-US", dark: bool = True):
        ctx = chromium.new_context(viewport=PHONE, device_scale_factor=2, locale=locale,
                                   color_scheme="dark" if dark else "light", is_mobile=True, has_touch=True)
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(15000)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.js_errors = errors
        return page

    yield make
    for ctx in contexts:
        ctx.close()
