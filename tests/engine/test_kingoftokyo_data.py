"""King of Tokyo data against the reference: the 66 cards (§12.3 names, costs, types, copies), the six
monsters (§1, zh-TW names from the seed), the dice set, and a description a zh-TW or ko player reads whole."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from kothelp import R

from engine.describe import untranslated
from engine.kingoftokyo.data import cards, deck_ids

REFERENCE = Path("/work/shared/reference/king-of-tokyo.md")


def reference_cards() -> dict[str, tuple[int, str, int]]:
    """Name -> (cost, type, copies) from the §12.3 table."""
    text = REFERENCE.read_text(encoding="utf-8")
    table = text[text.index("### 12.3"):text.index("## 13")]
    out = {}
    for line in table.splitlines():
        m = re.match(r"\| ([^|]+?) \| (\d+) \| (keep|discard) \|", line)
        if m:
            name, copies = m.group(1), 1
            twice = re.search(r"\(×(\d)\)", name)
            if twice:
                copies = int(twice.group(1))
                name = name[:twice.start()].strip()
            out[name] = (int(m.group(2)), m.group(3), copies)
    return out


@pytest.mark.skipif(not REFERENCE.exists(), reason="needs /work/shared/reference")
def test_12_3_every_card_matches_the_reference_table() -> None:
    ref = reference_cards()
    ours = {row["name"]["en"]: (row["cost"], row["type"], row["count"]) for row in cards().values()}
    assert ours == ref
    assert len(deck_ids()) == 66 and len(cards()) == 64


def test_1_six_monsters_with_seed_names() -> None:
    rows = {m["id"]: m["name"] for m in R.describe()["catalogue"]["monsters"]}
    assert rows["gigazaur"]["zh-TW"] == "吉哥拉" and rows["cyber_kitty"]["zh-TW"] == "霹靂喵喵"
    assert rows["space_penguin"]["zh-TW"] == "太空企鵝" and rows["the_king"]["zh-TW"] == "金剛王"
    assert rows["meka_dragon"]["zh-TW"] == "麥卡龍" and len(rows) == 6


def test_12_2_seed_cards_carry_the_seed_names() -> None:
    seed = {"mimic": "模仿", "opportunist": "投機怪獸", "fire_breathing": "火焰吐息", "poison_spit": "猛毒唾液",
            "shrink_ray": "縮小雷射", "death_from_above": "天降神兵", "metamorph": "怪獸變形"}
    for cid, zh in seed.items():
        assert cards()[cid]["name"]["zh-TW"] == zh


def test_description_is_translated_everywhere() -> None:
    assert untranslated(R.describe()) == []


def test_dice_set_faces_and_no_colours() -> None:
    spec = R.describe()["dice_sets"]["kingoftokyo"]
    assert [f["name"] for f in spec["faces"]] == ["1", "2", "3", "heart", "energy", "claw"]
    # reference section 1: the green dice have the same six faces as the black, so no rule tells dice apart by
    # colour and the set names none (a named colour makes the reader doubt a die whose colour it doubts)
    assert "colours" not in spec
    names = {f["index"]: f["name"] for f in spec["faces"]}
    pairs = {names[int(k)]: names[v] for k, v in spec["opposite"].items()}
    # the same assumption as vision's own kingoftokyo set (docs/dice-sets.md)
    assert pairs == {"1": "energy", "energy": "1", "2": "claw", "claw": "2", "3": "heart", "heart": "3"}


def test_modes_cover_2_to_6_and_the_setup_form_is_unique_per_seat() -> None:
    desc = R.describe()
    assert [m["players"] for m in desc["modes"]] == [[2, 4], [5, 6]]
    seat = desc["setup"][0]
    assert seat["kind"] == "seat_choice" and seat["unique"] and len(seat["options"]) == 6
    assert [ph["led"] for ph in desc["phases"] if ph["id"] in ("roll", "resolve", "buy", "end")] == [0, 1, 2, 3]


def test_every_refusal_code_has_a_text() -> None:
    folder = Path(__file__).resolve().parents[2] / "engine" / "kingoftokyo"
    source = "".join(p.read_text(encoding="utf-8") for p in folder.glob("*.py"))
    codes = set(re.findall(r'(?<!who, )"([a-z_]+)",\s*f?"[A-Z{\\]', source))
    assert {"bad_dice", "no_energy", "wrong_time", "not_your_turn"} <= codes
    texts = R.describe()["texts"]
    missing = [c for c in codes if f"refusal.{c}" not in texts]
    assert not missing


def test_pending_dice_input_names_the_described_set() -> None:
    s = R.setup({"players": ["gigazaur", "the_king"]}, 1)
    snap = R.snapshot(s)
    assert snap["pending"]["kind"] == "rolloff"
    assert snap["pending"]["input"] == {"type": "dice", "count": 6, "dice_sets": ["kingoftokyo"],
                                        "colours": ["black"], "player": "p1"}
