"""Every refusal any game's engine can raise reads in Traditional Chinese and Korean on the page (issue 34,
point 5): the game's own `refusal.<code>` text, or the page's wording of a refusal every game shares. A
refusal the engine words only in English ("The dice are rolled in the Roll phase only.") fails here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))

from test_docs_interface import engine_codes, shared_codes  # noqa: E402

from engine.games import GAMES  # noqa: E402
from webui.i18n import ENGINE_MESSAGES  # noqa: E402


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_refusal_is_worded_in_zh_tw_and_ko(game):
    texts = GAMES[game].describe().get("texts") or {}

    def worded(code: str) -> bool:
        own = texts.get(f"refusal.{code}") or {}
        return bool(own.get("zh-TW") and own.get("ko")) or code in ENGINE_MESSAGES

    missing = sorted(c for c in engine_codes(game) | shared_codes() if not worded(c))
    assert not missing, f"{game}: refusals with no zh-TW/ko words: {', '.join(missing)}"
