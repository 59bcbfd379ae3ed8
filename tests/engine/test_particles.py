"""Korean particles chosen by the last sound of the word before them (issue 34 #5: "서연이(가)", "2을(를)",
"공격(으)로" on Korean pages). webui/static/i18n.js follows the same table: tests/e2e/test_particles_page.py
checks it gives the same answers on these cases."""

from __future__ import annotations

import pytest

from engine.particles import final_sound, korean_particles

# template as filled -> what a Korean reader expects
CASES = [
    ("서연이(가) 공격합니다", "서연이 공격합니다"),        # 연: a final consonant
    ("지수이(가) 공격합니다", "지수가 공격합니다"),        # 수: a vowel
    ("지수을(를) 맞힙니다", "지수를 맞힙니다"),
    ("서연은(는) 아낍니다", "서연은 아낍니다"),
    ("지수은(는) 아낍니다", "지수는 아낍니다"),
    ("공격(으)로 방어", "공격으로 방어"),
    ("지옥불(으)로 공격", "지옥불로 공격"),               # ㄹ takes 로
    ("지팡이(으)로 공격", "지팡이로 공격"),
    ("서연과(와) 지수", "서연과 지수"),
    ("지수와(과) 서연", "지수와 서연"),
    ("2을(를) 잃음", "2를 잃음"),                          # 이
    ("3을(를) 잃음", "3을 잃음"),                          # 삼
    ("1(으)로", "1로"),                                   # 일: ㄹ
    ("6(으)로", "6으로"),                                 # 육
    ("10을(를)", "10을"),                                 # 십
    ("12을(를)", "12를"),                                 # 십이
    ("100이(가)", "100이"),                               # 백
    ("지수 (워락)이(가) 맞힙니다", "지수 (워락)가 맞힙니다"),  # an aside in brackets is not read
    ("서연 (위저드)을(를)", "서연 (위저드)을"),
    ("「검」이(가) 없으면", "「검」이 없으면"),             # a quoted word is
    ("Ann이(가)", "Ann이"),
    ("Paul(으)로", "Paul로"),
    ("Dana이(가)", "Dana가"),
    ("小明이(가)", "小明이(가)"),                          # cannot tell: the pair stays as written
    ("피해 없음", "피해 없음"),                            # nothing to choose
]


@pytest.mark.parametrize(("text", "want"), CASES)
def test_particles_follow_the_last_sound(text, want):
    assert korean_particles(text) == want


def test_final_sounds():
    assert final_sound("서연") == "consonant" and final_sound("지수") == "vowel" and final_sound("마을") == "rieul"
    assert final_sound("7") == "rieul" and final_sound("9") == "vowel" and final_sound("0") == "consonant"
    assert final_sound("") is None and final_sound("★") is None


def test_texts_the_engine_fills_take_the_right_particles():
    """Dice Throne's card and option texts are filled by the engine: their Korean particles are chosen there."""
    from engine.dicethrone.words import words

    grown = words("grow_stage", a={"en": "Seedling", "ko": "새싹"}, b={"en": "Sapling", "ko": "어린나무"})
    assert grown["ko"] == "새싹이 어린나무로 성장"
