"""Korean particles for texts the engine fills in itself (card and option texts built from data).

A Korean template cannot know which particle follows a name it is filled with: "서연이" but "지수가", "2를" but
"3을", "공격으로" but "마을로". Templates write the pair, as Korean forms do ("{name}이(가)", "{n}을(를)",
"{x}(으)로"), and `korean_particles` picks the one that fits the sound just before it once the name is in.
The page does the same for the texts it fills (webui/static/i18n.js); both follow this one table.
"""

from __future__ import annotations

import re

# pair written in a template -> (after a final consonant, after a vowel, after ㄹ)
PAIRS: dict[str, tuple[str, str, str]] = {
    "이(가)": ("이", "가", "이"), "가(이)": ("이", "가", "이"),
    "을(를)": ("을", "를", "을"), "를(을)": ("을", "를", "을"),
    "은(는)": ("은", "는", "은"), "는(은)": ("은", "는", "은"),
    "과(와)": ("과", "와", "과"), "와(과)": ("과", "와", "과"),
    "(으)로": ("으로", "로", "로"),
    "(이)": ("이", "", "이"),  # (이)나, (이)라, (이)야...
}
PATTERN = re.compile("|".join(re.escape(p) for p in PAIRS))
# What may stand between a word and its particle without being read: an aside in brackets ("지수 (워락)" is read
# "지수": the particle follows the word before it), and closing quotes (a quoted name is read).
ASIDES = {")": "(", "）": "（", "]": "["}
QUOTES = set("」』》〉\"'’”*")
# How the last digit of a number is read (영, 일, 이, 삼, 사, 오, 육, 칠, 팔, 구), and round numbers by their
# trailing zeros (십, 백, 천, 만).
DIGIT = ["consonant", "rieul", "vowel", "consonant", "vowel", "vowel", "consonant", "rieul", "rieul", "vowel"]
ZEROS = ["", "consonant", "consonant", "consonant", "consonant"]


def _last_read(text: str, i: int) -> int:
    """Where the last character read aloud stands at or before `i`: brackets' asides and closing quotes are
    passed over."""
    while i >= 0:
        opening = ASIDES.get(text[i])
        if opening:
            start = text.rfind(opening, 0, i)
            if start <= 0:  # nothing before the aside: it is what is read
                i -= 1
                continue
            i = start - 1
            while i >= 0 and text[i] == " ":  # "지수 (워락)": the space before the aside
                i -= 1
        elif text[i] in QUOTES:
            i -= 1
        else:
            return i
    return i


def final_sound(text: str, end: int | None = None) -> str | None:
    """How the word ending at `end` reads at its end ("consonant", "vowel", "rieul"), or None when that
    cannot be told (a Chinese name, a symbol): the template's pair is then left as written."""
    i = _last_read(text, (len(text) if end is None else end) - 1)
    if i < 0:
        return None
    c = text[i]
    if "가" <= c <= "힣":
        last = (ord(c) - 0xAC00) % 28
        return "vowel" if last == 0 else "rieul" if last == 8 else "consonant"
    if c.isascii() and c.isdigit():
        digits = re.search(r"[0-9]+$", text[: i + 1]).group().lstrip("0") or "0"  # type: ignore[union-attr]
        if digits == "0":
            return "consonant"  # 영
        zeros = len(digits) - len(digits.rstrip("0"))
        return DIGIT[int(c)] if zeros == 0 else ZEROS[min(zeros, 4)]
    if c.isascii() and c.isalpha():
        tail = text[max(0, i - 1): i + 1].lower()
        if tail.endswith("l"):
            return "rieul"
        return "consonant" if tail[-1] in "mn" or tail == "ng" else "vowel"
    return None


def korean_particles(text: str) -> str:
    """`text` with each written pair of particles replaced by the one its word takes."""

    def pick(m: re.Match[str]) -> str:
        sound = final_sound(m.string, m.start())
        if sound is None:
            return m.group()
        consonant, vowel, rieul = PAIRS[m.group()]
        return vowel if sound == "vowel" else rieul if sound == "rieul" else consonant

    return PATTERN.sub(pick, text)
