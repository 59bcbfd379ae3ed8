"""Board and card texts in English, Traditional Chinese and Korean, written from the effect data itself.

A hero file states what an ability or a card does as effects (`{"do": "damage", "amount": 5}`...); the
page needs a sentence a player reads ("Deal 5 damage" / "造成 5 點傷害" / "피해 5"). Writing every sentence
by hand in three languages would drift from the numbers the engine plays; rendering them from the same
effects keeps one source of truth. By-hand effects carry their own Text (`manual`). Punctuation follows one
style per language: ASCII in English and Korean, full-width in Traditional Chinese.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core import LANGS
from ..particles import korean_particles
from .companions import defs as companion_defs
from .data import statuses

Text = dict[str, str]
LANG = tuple(LANGS)

SEP = {"en": "; ", "zh-TW": "；", "ko": "; "}
END = {"en": ".", "zh-TW": "。", "ko": "."}
COLON = {"en": ": ", "zh-TW": "：", "ko": ": "}
PAREN = {"en": " ({})", "zh-TW": "（{}）", "ko": " ({})"}

# One template per effect and language; {n} the number, {s} a status name, {x} a symbol name.
T: dict[str, dict[str, str]] = {
    "damage": {"en": "{n} damage", "zh-TW": "造成 {n} 點傷害", "ko": "피해 {n}"},
    "damage_undefendable": {"en": "{n} undefendable damage", "zh-TW": "造成 {n} 點無法防禦傷害", "ko": "방어 불가 피해 {n}"},
    "damage_pure": {"en": "{n} pure damage", "zh-TW": "造成 {n} 點真實傷害", "ko": "고정 피해 {n}"},
    "damage_collateral": {"en": "{n} collateral damage to every opponent", "zh-TW": "對每位對手造成 {n} 點連帶傷害",
                          "ko": "모든 상대에게 부수적인 피해 {n}"},
    "damage_ultimate": {"en": "{n} damage", "zh-TW": "造成 {n} 點傷害", "ko": "피해 {n}"},
    "per": {"en": "{body} per {x}", "zh-TW": "每個{x}：{body}", "ko": "{x}마다 {body}"},
    "per_pair": {"en": "{body} per pair of {x}", "zh-TW": "每 2 個{x}：{body}", "ko": "{x} 2개마다 {body}"},
    "sum": {"en": "damage equal to the dice total", "zh-TW": "造成等同點數總和的傷害", "ko": "눈의 합만큼 피해"},
    "half_value": {"en": "half the die (rounded up)", "zh-TW": "點數的一半（無條件進位）", "ko": "눈의 절반(올림)"},
    "plus_cp_all": {"en": "damage equal to your CP{plus}", "zh-TW": "造成等同你的戰鬥點數{plus}的傷害", "ko": "컴뱃 포인트{plus}만큼 피해"},
    "plus_cp_half": {"en": "damage equal to half your CP (rounded up)", "zh-TW": "造成你戰鬥點數一半（無條件進位）的傷害",
                     "ko": "컴뱃 포인트의 절반(올림)만큼 피해"},
    "heal": {"en": "heal {n}", "zh-TW": "回復 {n} 點生命值", "ko": "{n} 치유"},
    "heal_companion": {"en": "heal {x} {n}", "zh-TW": "治療{x} {n} 點", "ko": "{x}을(를) {n} 치유"},
    "cp": {"en": "gain {n} CP", "zh-TW": "獲得 {n} 戰鬥點數", "ko": "컴뱃 포인트 {n} 획득"},
    "draw": {"en": "draw {n}", "zh-TW": "抽 {n} 張牌", "ko": "카드 {n}장 뽑기"},
    "gain": {"en": "gain {c}{s}", "zh-TW": "獲得{c}{s}", "ko": "{s}{c} 획득"},
    "inflict": {"en": "inflict {c}{s}", "zh-TW": "施加{c}{s}", "ko": "{s}{c} 부여"},
    "remove": {"en": "remove {c}{s}", "zh-TW": "移除{c}{s}", "ko": "{s}{c} 제거"},
    "limit": {"en": "{s} limit +{n}", "zh-TW": "{s}堆疊上限 +{n}", "ko": "{s} 한도 +{n}"},
    "undefendable": {"en": "the attack becomes undefendable", "zh-TW": "攻擊變為無法防禦", "ko": "공격이 방어 불가가 됨"},
    "prevent": {"en": "prevent {n} damage", "zh-TW": "防止 {n} 點傷害", "ko": "피해 {n} 방지"},
    "prevent_all": {"en": "take none of the incoming damage", "zh-TW": "不受這次傷害", "ko": "받을 피해를 모두 무시"},
    "prevent_half": {"en": "prevent half the incoming damage (rounded up)", "zh-TW": "防止即將受到傷害的一半（無條件進位）",
                     "ko": "받을 피해의 절반(올림) 방지"},
    "cleanse": {"en": "remove a negative status from yourself", "zh-TW": "移除你身上 1 個負面狀態",
                "ko": "자신의 부정적인 상태 1개 제거"},
    "cleanse_all": {"en": "remove every negative status from yourself", "zh-TW": "移除你身上所有負面狀態",
                    "ko": "자신의 부정적인 상태 모두 제거"},
    "bonus": {"en": "+{n} damage to the attack", "zh-TW": "攻擊傷害 +{n}", "ko": "공격 피해 +{n}"},
    "recoil": {"en": "you take {n} undefendable damage if damage was dealt", "zh-TW": "若造成傷害，你受到 {n} 點無法防禦傷害",
               "ko": "피해를 주었다면 자신도 방어 불가 피해 {n}"},
    "roll": {"en": "roll {n} dice", "zh-TW": "擲 {n} 顆骰子", "ko": "주사위 {n}개 굴리기"},
    "roll_one": {"en": "roll 1 die", "zh-TW": "擲 1 顆骰子", "ko": "주사위 1개 굴리기"},
    "opposed": {"en": "you and the opponent roll 1 die each", "zh-TW": "你與對手各擲 1 顆骰子", "ko": "당신과 상대가 주사위를 1개씩 굴림"},
    "lose_cp": {"en": "the opponent loses {n} CP", "zh-TW": "對手失去 {n} 戰鬥點數", "ko": "상대가 컴뱃 포인트 {n}을(를) 잃음"},
    "steal_cp": {"en": "steal {n} CP", "zh-TW": "偷取 {n} 戰鬥點數", "ko": "컴뱃 포인트 {n} 훔치기"},
    "steal_health": {"en": "steal {n} health", "zh-TW": "偷取 {n} 點生命值", "ko": "체력 {n} 훔치기"},
    "flip": {"en": "flip the board to its Cursed side", "zh-TW": "將圖板翻到咒縛面", "ko": "보드를 저주 면으로 뒤집기"},
    "chosen": {"en": "a chosen player: {body}", "zh-TW": "一名指定的玩家：{body}", "ko": "고른 플레이어 1명: {body}"},
    "chosen_opponent": {"en": "a chosen opponent: {body}", "zh-TW": "一名指定的對手：{body}", "ko": "고른 상대 1명: {body}"},
    "chosen_teammate": {"en": "a chosen teammate: {body}", "zh-TW": "一名指定的隊友：{body}", "ko": "고른 팀원 1명: {body}"},
    "grow": {"en": "grow {n} Spirits", "zh-TW": "培育 {n} 個樹靈", "ko": "정령 {n}개 성장"},
    "grow_one": {"en": "grow a Spirit", "zh-TW": "培育 1 個樹靈", "ko": "정령 1개 성장"},
    "choose_one": {"en": "choose one: {body}", "zh-TW": "擇一：{body}", "ko": "하나 선택: {body}"},
    "reroll": {"en": "you may reroll up to {n} of these dice once", "zh-TW": "你可以重擲其中至多 {n} 顆骰子一次",
               "ko": "이 주사위 중 최대 {n}개를 한 번 다시 굴릴 수 있음"},
    "reroll_one": {"en": "you may reroll one of these dice once", "zh-TW": "你可以重擲其中 1 顆骰子一次",
                   "ko": "이 주사위 중 1개를 한 번 다시 굴릴 수 있음"},
    "if_on": {"en": "{x}: {body}", "zh-TW": "{x}：{body}", "ko": "{x}: {body}"},
    "if_not_on": {"en": "no {x}: {body}", "zh-TW": "沒有{x}：{body}", "ko": "{x}이(가) 없으면: {body}"},
    "if_kind": {"en": "{n} of a kind: {body}", "zh-TW": "{n} 顆點數相同：{body}", "ko": "같은 눈 {n}개: {body}"},
    "if_count": {"en": "{what}: {body}", "zh-TW": "{what}：{body}", "ko": "{what}: {body}"},
    "if_sum": {"en": "total {n} or more: {body}", "zh-TW": "總和至少 {n}：{body}", "ko": "합이 {n} 이상: {body}"},
    "if_sum_most": {"en": "total {n} or less: {body}", "zh-TW": "總和至多 {n}：{body}", "ko": "합이 {n} 이하: {body}"},
    "if_none": {"en": "no {what}: {body}", "zh-TW": "沒有{what}：{body}", "ko": "{what}이(가) 없으면: {body}"},
    "if_companion": {"en": "while {x} stands: {body}", "zh-TW": "{x}在場時：{body}", "ko": "{x}이(가) 있는 동안: {body}"},
    "if_first": {"en": "if you start the game: {body}", "zh-TW": "若你是起始玩家：{body}", "ko": "시작 플레이어라면: {body}"},
    "count_sym": {"en": "{n} {x}", "zh-TW": "{n} 個{x}", "ko": "{x} {n}개"},
    "small": {"en": "Small straight", "zh-TW": "小順", "ko": "스몰 스트레이트"},
    "large": {"en": "Large straight", "zh-TW": "大順", "ko": "라지 스트레이트"},
    "dice": {"en": "Roll {n} dice", "zh-TW": "擲 {n} 顆骰子", "ko": "주사위 {n}개"},
    "upkeep": {"en": "In your Upkeep", "zh-TW": "在你的維持階段", "ko": "유지 단계에"},
    "end_turn": {"en": "At the end of your turn", "zh-TW": "在你的回合結束時", "ko": "차례가 끝날 때"},
    "and": {"en": " and ", "zh-TW": "、", "ko": ", "},
    "or": {"en": " or ", "zh-TW": "或", "ko": " 또는 "},
    "upgrade": {"en": "Upgrade {x} to level {n}.", "zh-TW": "將{x}升級至 {n} 級。", "ko": "{x}을(를) {n}레벨로 강화합니다."},
}


# Companions named in texts, by id, from companions.json (Nyra: 妮拉 in ZG's zh-CN, same in Traditional).
COMPANIONS: dict[str, Text] = {c["id"]: c["name"] for c in companion_defs("huntress")}


def _fill(key: str, lang: str, **parts: Any) -> str:
    values = {k: (v[lang] if isinstance(v, dict) else v) for k, v in parts.items()}
    filled = T[key][lang].format(**values)
    return korean_particles(filled) if lang == "ko" else filled  # "검이 없으면", "니라를 2 치유"


def _count(n: int, lang: str) -> str:
    """A token count before a status name; 1 is left out ("gain Evasive")."""
    if n == 1:
        return ""
    return {"en": f"{n} ", "zh-TW": f" {n} 個", "ko": f" {n}개"}[lang]


def _symbols(syms: list[str], names: dict[str, Text], lang: str, joiner: str = "or") -> str:
    return T[joiner][lang].join(names.get(s, {"en": s}).get(lang, s) for s in syms)


def _need(need: dict[str, int], names: dict[str, Text], lang: str) -> str:
    return T["and"][lang].join(_fill("count_sym", lang, n=n, x=names.get(sym, {"en": sym})) for sym, n in need.items())


def effect(eff: dict[str, Any], names: dict[str, Text]) -> Text:
    """One effect as a clause in each language (no condition, no final stop)."""
    return {lang: _effect(eff, names, lang) for lang in LANG}


def _status(sid: str, lang: str) -> str:
    row = statuses().get(sid)
    return row["name"].get(lang, row["name"]["en"]) if row else sid


def _effect(eff: dict[str, Any], names: dict[str, Text], lang: str) -> str:
    """One effect's clause in `lang`: what it does, what it counts per, whom it is for, the effects that come
    with it, and its condition, each wrapped around the clause so far (the order the words nest in)."""
    if eff["do"] == "manual":
        text = eff["text"]
        return (text.get(lang) or text["en"]) if isinstance(text, dict) else text
    n = eff.get("amount", eff.get("count", 1))
    body = _SAY.get(eff["do"], _say_plain)(eff, n, lang)
    body = _per(eff, names, lang, body)
    body = _whom(eff, lang, body)
    for extra in eff.get("also", []):
        body += SEP[lang] + _effect(extra, names, lang)
    return _condition(eff.get("if") or {}, names, lang, body)


def _say_plain(eff: dict[str, Any], n: int, lang: str) -> str:
    """An effect with one sentence of its own (`do` names it in T), else the bare `do`."""
    do = eff["do"]
    return _fill(do, lang, n=n) if do in T else do


def _say_damage(eff: dict[str, Any], n: int, lang: str) -> str:
    """Damage: the dice's sum, half their value, the attacker's CP, or an amount of a kind."""
    if eff.get("sum"):
        return T["sum"][lang]
    if eff.get("half_value"):
        return T["half_value"][lang]
    if "plus_cp" in eff:
        plus = f" + {n}" if n else ""
        return _fill("plus_cp_half" if eff["plus_cp"] == "half" else "plus_cp_all", lang, plus=plus)
    kind = eff.get("type")
    return _fill("damage_" + kind if kind in ("undefendable", "pure", "collateral", "ultimate") else "damage",
                 lang, n=n)


def _say_tokens(eff: dict[str, Any], n: int, lang: str) -> str:
    """Gaining, inflicting or removing tokens: no count where it is worked out (half a value, per symbol)."""
    counted = not (eff.get("half_value") or "per" in eff or "per_final" in eff)
    body = _fill(eff["do"], lang, c=_count(n, lang) if counted else "", s=_status(eff["status"], lang))
    if eff.get("half_value"):
        body += PAREN[lang].format(T["half_value"][lang])
    return body


def _say_limit(eff: dict[str, Any], n: int, lang: str) -> str:
    return _fill("limit", lang, s=_status(eff["status"], lang), n=n)


def _say_cleanse(eff: dict[str, Any], n: int, lang: str) -> str:
    return T["cleanse_all" if eff.get("all") else "cleanse"][lang]


def _say_prevent(eff: dict[str, Any], n: int, lang: str) -> str:
    return T["prevent_all"][lang] if eff.get("all") else _fill("prevent", lang, n=n)


def _say_heal(eff: dict[str, Any], n: int, lang: str) -> str:
    """Healing a companion names it; healing the hero is a plain sentence."""
    if "companion" not in eff:
        return _say_plain(eff, n, lang)
    return _fill("heal_companion", lang, x=COMPANIONS.get(eff["companion"], {}).get(lang, eff["companion"]), n=n)


def _say_roll(eff: dict[str, Any], n: int, lang: str) -> str:
    body = T["roll_one"][lang] if eff.get("dice", 1) == 1 else _fill("roll", lang, n=eff["dice"])
    if eff.get("reroll"):
        body += SEP[lang] + (T["reroll_one"][lang] if eff["reroll"] == 1 else _fill("reroll", lang, n=eff["reroll"]))
    return body


def _say_grow(eff: dict[str, Any], n: int, lang: str) -> str:
    plain = n == 1 and not any(k in eff for k in ("per", "per_final", "per_status"))
    return T["grow_one"][lang] if plain else _fill("grow", lang, n=n)


def _say_choose(eff: dict[str, Any], n: int, lang: str) -> str:
    return _fill("choose_one", lang, body=T["or"][lang].join(
        o["label"].get(lang, o["label"]["en"]) for o in eff["options"]))


# What an effect does, by its `do`, as the start of its clause (the rest: _say_plain).
_SAY: dict[str, Callable[[dict[str, Any], int, str], str]] = {
    "damage": _say_damage, "gain": _say_tokens, "inflict": _say_tokens, "remove": _say_tokens,
    "limit": _say_limit, "cleanse": _say_cleanse, "prevent": _say_prevent, "heal": _say_heal,
    "roll": _say_roll, "grow": _say_grow, "choose": _say_choose,
}


def _per(eff: dict[str, Any], names: dict[str, Text], lang: str, body: str) -> str:
    """"... per symbol" (or per pair) for an effect counted on the dice."""
    for key in ("per", "per_final"):
        if key in eff:
            syms = eff[key] if isinstance(eff[key], list) else [eff[key]]
            body = _fill("per_pair" if eff.get("divisor") == 2 else "per", lang, body=body,
                         x=_symbols(syms, names, lang))
    return body


def _whom(eff: dict[str, Any], lang: str, body: str) -> str:
    """"... to a chosen player" (opponent, teammate) for an effect the player aims."""
    to = eff.get("to")
    if to in ("chosen", "opponent", "teammate"):
        body = _fill({"chosen": "chosen", "opponent": "chosen_opponent", "teammate": "chosen_teammate"}[to],
                     lang, body=body)
    return body


def _condition(cond: dict[str, Any], names: dict[str, Text], lang: str, body: str) -> str:
    if "on" in cond:
        body = _fill("if_on", lang, x=names.get(cond["on"], {"en": cond["on"]}), body=body)
    if "not_on" in cond:
        body = _fill("if_not_on", lang, x=names.get(cond["not_on"], {"en": cond["not_on"]}), body=body)
    if "kind" in cond:
        body = _fill("if_kind", lang, n=cond["kind"], body=body)
    for key in ("count", "final_count"):
        if key in cond:
            body = _fill("if_count", lang, what=_need(cond[key], names, lang), body=body)
    if "sum_at_least" in cond:
        body = _fill("if_sum", lang, n=cond["sum_at_least"], body=body)
    if "sum_at_most" in cond:
        body = _fill("if_sum_most", lang, n=cond["sum_at_most"], body=body)
    if "none_of" in cond:
        body = _fill("if_none", lang, what=_symbols(cond["none_of"], names, lang), body=body)
    if "companion_active" in cond:
        who = cond["companion_active"]
        body = _fill("if_companion", lang, x=COMPANIONS.get(who, {}).get(lang, who), body=body)
    if cond.get("first_player"):
        body = _fill("if_first", lang, body=body)
    return body


def effects(effs: list[dict[str, Any]], names: dict[str, Text]) -> Text:
    """A list of effects as one sentence per language (clauses joined, first letter up in English)."""
    out: Text = {}
    for lang in LANG:
        clauses = [_effect(e, names, lang) for e in effs]
        text = SEP[lang].join(c.rstrip(".。") for c in clauses if c)
        if lang == "en" and text:
            text = text[0].upper() + text[1:]
        out[lang] = text + END[lang] if text else ""
    return out


def requirement(tier: dict[str, Any], names: dict[str, Text]) -> Text:
    """What the final dice must show for a tier: symbol counts or a straight."""
    if tier.get("straight"):
        return dict(T[tier["straight"]])
    return {lang: _need(tier.get("need", {}), names, lang) for lang in LANG}


def level_text(level: dict[str, Any], names: dict[str, Text]) -> dict[str, Any]:
    """One level of an ability for the page: requirement and effect per tier, or the defense/passive effects."""
    out: dict[str, Any] = {"level": level["level"]}
    if "cost" in level:
        out["cost"] = level["cost"]
    if "name" in level:
        out["name"] = level["name"]
    if "tiers" in level:
        out["tiers"] = [{"need": requirement(t, names), "text": effects(t["effects"], names)} for t in level["tiers"]]
    if "effects" in level:
        text = effects(level["effects"], names)
        if "dice" in level:
            text = {lang: _fill("dice", lang, n=level["dice"]) + COLON[lang] + text[lang] for lang in LANG}
        out["text"] = text
    for key in ("upkeep", "end_turn"):
        if level.get(key):
            body = effects(level[key], names)
            out["text"] = {lang: T[key][lang] + COLON[lang] + body[lang] for lang in LANG}
    if isinstance(level.get("text"), dict):
        out["text"] = level["text"]
    return out


def card_text(card: dict[str, Any], names: dict[str, Text], abilities: dict[str, dict[str, Any]]) -> Text:
    """What a hero card does: its own text, its effects, or (upgrades) the level it installs."""
    if isinstance(card.get("text"), dict):
        return card["text"]
    if card.get("type") == "upgrade":
        ability = abilities[card["slot"]]
        return {lang: _fill("upgrade", lang, x=ability["name"], n=card["level"]) for lang in LANG}
    return effects(card.get("effects", []), names)
