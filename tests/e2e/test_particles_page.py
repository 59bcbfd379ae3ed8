"""The page chooses Korean particles as the engine does (webui/static/i18n.js against engine/particles.py), in
the browser the page runs in: every case of tests/engine/test_particles.py, plus text the engine has no case
for, gives the same answer on both sides."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engine.particles import korean_particles

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
from test_particles import CASES  # noqa: E402

pytestmark = pytest.mark.e2e

MORE = ["민준이(가) 지수을(를) 서연(으)로", "하늘와(과) 1000(으)로", "7을(를) 8을(를) 9을(를)", "(워락)이(가)",
        "지수 (워락)  이(가)", "Bong이(가)", "「지옥불」(으)로"]


def test_the_page_and_the_engine_choose_the_same_particles(web_server, phone):
    _app, url = web_server
    page = phone("ko-KR")
    page.goto(url + "/healthz")  # any page of the box: the module is loaded from its origin
    texts = [text for text, _want in CASES] + MORE
    got = page.evaluate("""async (texts) => {
        const m = await import('/static/i18n.js');
        return texts.map((t) => m.particles(t));
    }""", texts)
    assert got == [korean_particles(t) for t in texts]
    assert got[: len(CASES)] == [want for _text, want in CASES]
