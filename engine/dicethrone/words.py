"""Option labels the engine builds from data, in every language.

A pending decision's options carry an English `label` (the contract of engine.core.decision) and, where the
engine writes the words itself (questions effects ask, passing an attack to a companion, rerolls), a `text`
with the same words in en, zh-TW and ko, so a page shows them without knowing Dice Throne. Translated here
(docs/translations.md lists where names come from); {placeholders} are filled per language.
"""

from __future__ import annotations

from typing import Any

from ..particles import korean_particles

WORDS: dict[str, dict[str, str]] = {
    "pass_to_companion": {"en": "Pass the attack to {name}", "zh-TW": "將攻擊轉給{name}", "ko": "{name}에게 공격 넘기기"},
    "take_attack": {"en": "Take the attack", "zh-TW": "承受這次攻擊", "ko": "공격 받기"},
    "reroll_die": {"en": "Reroll die {n}", "zh-TW": "重擲第 {n} 顆骰子", "ko": "{n}번 주사위 다시 굴리기"},
    "take_tokens": {"en": "Take {n} {status}", "zh-TW": "拿取 {n} 個{status}", "ko": "{status} {n}개 받기"},
    "decline": {"en": "Decline", "zh-TW": "拒絕", "ko": "거절"},
    "new_stage": {"en": "A new {stage}", "zh-TW": "新的{stage}", "ko": "새 {stage}"},
    "grow_stage": {"en": "A {a} grows into a {b}", "zh-TW": "{a}成長為{b}", "ko": "{a}이(가) {b}(으)로 성장"},
}


def words(key: str, **parts: Any) -> dict[str, str]:
    """WORDS[key] in every language; a part given as Text is taken in the same language (else English), and
    the Korean particles are chosen once the names are in ("새싹이 어린나무로 성장")."""
    out = {lang: template.format(**{k: (v.get(lang, v["en"]) if isinstance(v, dict) else v) for k, v in parts.items()})
           for lang, template in WORDS[key].items()}
    return {**out, "ko": korean_particles(out["ko"])}
