"""Are these dice fair? The page (`/fairness`) and its API route (`GET /api/fairness`), issue 36.

The numbers come from the table service (`table().fairness()`: device.fairness_report over the store's log);
this module only words them in the phone's language and draws a chart per die (webui.charts). The API answers
the report as it is: codes and numbers for any client, and English sentences for scripts and logs.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from engine.games import FALLBACK_GAME, GAMES

from . import i18n
from .charts import face_bars
from .web import ApiError, table

page_bp = Blueprint("fairness", __name__)
api_bp = Blueprint("fairness_api", __name__, url_prefix="/fairness")  # nested in the api blueprint

THROWS_RANGE = (10, 10_000)  # what a "test my dice" may ask for
BIAS_RANGE = (0.05, 1.0)  # a face from 5% to 100% more (or less) often than it should: `dicesight stats --bias`
COLOURS = {"red": _l("Red"), "yellow": _l("Yellow"), "blue": _l("Blue"), "black": _l("Black"),
           "white": _l("White"), "green": _l("Green"), "purple": _l("Purple"), "other": _l("Other colour")}


# -- the request -----------------------------------------------------------------------------------------
def _set_ids() -> set[str]:
    return {sid for rules in GAMES.values() for sid in (rules.describe().get("dice_sets") or {})}


def _query() -> tuple[str | None, float | None, int | None]:
    """`set` (a set id), `bias` (a share, see BIAS_RANGE) and `game` (a game id) from the query string, checked."""
    set_id = request.args.get("set") or None
    if set_id is not None and set_id not in _set_ids():
        raise ApiError(404, "no_dice_set", i18n.msg("no_dice_set"))
    bias = None
    if request.args.get("bias") is not None:
        bias = _number(request.args["bias"], float)
        if bias is None or not BIAS_RANGE[0] <= bias <= BIAS_RANGE[1]:
            raise ApiError(400, "bad_bias", i18n.msg("bad_bias"))
    return set_id, bias, _whole("game", 1, 2**62)


def _number(raw: str, kind: type) -> Any:
    try:
        return kind(raw)
    except ValueError:
        return None


def _whole(name: str, low: int, high: int) -> int | None:
    """A whole number from the query string within [low, high], None when absent; 400 `bad_test` otherwise."""
    raw = request.args.get(name)
    if raw is None:
        return None
    value = _number(raw, int)
    if value is None or not low <= value <= high:
        raise ApiError(400, "bad_test", i18n.msg("bad_test"))
    return value


@api_bp.get("")
def report():
    """The whole report (docs/api.md, "Dice fairness")."""
    set_id, bias, game = _query()
    return jsonify(table().fairness(set_id, bias, game))


@page_bp.get("/fairness")
def page():
    lang = request.args.get("lang")
    if lang:  # the language switch, as on the game's page: a cookie, then the same page again
        resp = redirect(url_for("fairness.page", **({"set": request.args["set"]} if request.args.get("set") else {})))
        if lang in i18n.LANGS:
            resp.set_cookie(i18n.LANG_COOKIE, lang, max_age=400 * 24 * 3600, samesite="Lax")
        return resp
    set_id, bias, game = _query()
    wanted = _whole("throws", *THROWS_RANGE)
    rep = table().fairness(set_id, bias, game)
    code = i18n.current_code()
    test = test_view(rep, wanted) if game is not None else None
    return render_template("fairness.html", sets=[set_view(s, code) for s in rep["sets"]], notes=notes(rep),
                           langs=i18n.LANGS, lang=code, alpha=rep["alpha"], only_set=set_id, test=test,
                           plan=plan_view(rep) if game is None else None)


# -- words -----------------------------------------------------------------------------------------------
def text(value: Any, lang: str, fallback: str = "") -> str:
    """A Text ({"en": ..., "zh-TW": ..., "ko": ...}) in `lang`, else English, else `fallback`."""
    if isinstance(value, dict):
        return str(value.get(lang) or value.get("en") or fallback)
    return str(value) if value else fallback


def face_names(faces: list[dict[str, Any]], lang: str) -> list[str]:
    """Each face as the phone's language names it, with its number where the name alone repeats."""
    names = [text(f.get("label"), lang, f["face"]) for f in faces]
    return [f"{n} ({f['value']})" if names.count(n) > 1 and f.get("value") is not None else n
            for n, f in zip(names, faces, strict=True)]


def short_labels(faces: list[dict[str, Any]], lang: str) -> tuple[list[str], str]:
    """Labels short enough to sit under a bar (a face's name of up to 3 characters, else its number) and a
    legend for those that were shortened ("1 Sword · 4 Heart · 6 Pow"), empty when none were."""
    names = [text(f.get("label"), lang, f["face"]) for f in faces]
    short = [n if len(n) <= 3 or f.get("value") is None else str(f["value"]) for n, f in zip(names, faces, strict=True)]
    legend = [f"{s} {n}" for s, n in zip(short, names, strict=True) if s != n]
    return [s[:6] for s in short], " · ".join(legend)


def die_title(colour: str | None, several: bool) -> str:
    """"Red die", "Red dice", "The dice"."""
    if colour is None:
        return _("The dice") if several else _("The die")
    name = str(COLOURS.get(colour, colour))
    return _("%(colour)s dice", colour=name) if several else _("%(colour)s die", colour=name)


def p_text(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def verdict_text(verdict: dict[str, Any], names: list[str]) -> str:
    """The verdict of device.fairness.judge in the phone's language."""
    if verdict["code"] == "too_few":
        return _("Too few rolls to judge yet: %(n)s of the %(wanted)s needed.", n=verdict["rolls"],
                 wanted=verdict["wanted"])
    if verdict["code"] == "no_evidence":
        return _("No evidence of bias after %(n)s rolls.", n=verdict["rolls"])
    words = {"face": names[verdict["face"]], "p": p_text(verdict["p"]), "share": f"{verdict['share']:.0%}",
             "fair": f"{verdict['fair_share']:.0%}"}
    if verdict["direction"] == "often":
        return _("Shows %(face)s far too often: %(p)s (%(share)s of the rolls; a fair die: %(fair)s).", **words)
    return _("Shows %(face)s far too rarely: %(p)s (%(share)s of the rolls; a fair die: %(fair)s).", **words)


def numbers_text(die: dict[str, Any], dice_in_set: int) -> str:
    """The test's own numbers, for whoever wants to check them."""
    if die["chi2"] is None:
        return _("%(n)s rolls", n=die["rolls"])
    line = _("%(n)s rolls · chi-square %(chi2)s · %(p)s", n=die["rolls"], chi2=f"{die['chi2']:.2f}",
             p=p_text(die["p"]))
    if dice_in_set > 1 and die["p_adjusted"] is not None:
        line += " · " + _("adjusted for %(m)s dice: %(p)s", m=dice_in_set, p=p_text(die["p_adjusted"]))
    return line


def needed_text(die: dict[str, Any], bias: float, power: float) -> str:
    """How many rolls the power analysis asks for (device.fairness.rolls_needed), and how many are left."""
    words = {"needed": die["needed"], "bias": f"{bias:.0%}", "power": f"{power:.0%}", "more": die["more"]}
    if die["more"]:
        return _("%(needed)s rolls find a face that comes up %(bias)s more often than it should, %(power)s of the "
                 "time: %(more)s more to go.", **words)
    return _("Enough rolls to find a face that comes up %(bias)s more often than it should, %(power)s of the time.",
             **words)


def set_view(s: dict[str, Any], lang: str) -> dict[str, Any]:
    """One set's card: its name, where its dice came from, each die's chart and words."""
    names = face_names(s["faces"], lang)
    short, legend = short_labels(s["faces"], lang)
    src = s["sources"]
    dice = []
    for die in s["dice"]:
        verdict = die["verdict"]
        title = die_title(die["colour"], die["several"])
        hot = verdict["face"] if verdict["code"] == "biased" else None
        dice.append({
            "colour": die["colour"], "code": verdict["code"], "title": title,
            "state": {"biased": "bad", "no_evidence": "good"}.get(verdict["code"], "wait"),
            "chart": face_bars(die["counts"], die["expected"], short, hot=hot,
                               title=_("%(die)s: rolls per face; the dashes mark what a fair die gives", die=title)),
            "verdict": verdict_text(verdict, names), "numbers": numbers_text(die, len(s["dice"])),
            "needed": needed_text(die, s["bias"], s["power"]) if verdict["code"] != "biased" else ""})
    hand = s["hand"]
    return {"id": s["set"], "name": text(s.get("name"), lang, s["set"]), "dice": dice, "legend": legend,
            "sources": _("%(camera)s dice read by the camera (%(confirmed)s of them confirmed on a phone).",
                         camera=src["camera"] + src["confirmed"], confirmed=src["confirmed"]),
            "hand": _("Entered by hand (not tested): %(n)s dice, %(counts)s.", n=hand["rolls"],
                      counts=", ".join(f"{n} × {c}" for n, c in zip(names, hand["counts"], strict=True) if c))
            if hand["rolls"] else ""}


def notes(rep: dict[str, Any]) -> list[str]:
    """What the report leaves out, said once under the sets."""
    out = []
    if rep.get("left_out_game") is not None:
        out.append(_("The game on the table hides its rolls: its dice count once it is over."))
    if rep.get("virtual_rolls"):
        out.append(_("%(n)s rolls made by the box's own dice are not counted.", n=rep["virtual_rolls"]))
    if rep.get("unattributed"):
        out.append(_("%(n)s dice of no set the box could tell are not counted.", n=rep["unattributed"]))
    return out


# -- "test my dice" ---------------------------------------------------------------------------------------
def plan_view(rep: dict[str, Any]) -> dict[str, Any] | None:
    """The "test my dice" card: how many throws to ask for with the dice the box reads now."""
    plan = rep.get("plan")
    if not plan:
        return None
    return {"throws": plan["throws"], "title": _("Dice test"), "game": FALLBACK_GAME,
            "text": _("Throw only the dice you want to test: a new free roll starts that counts only its own throws "
                      "(the game on the table is kept on the box). %(n)s throws catch a die whose face comes up "
                      "%(bias)s too often, %(power)s of the time.", n=plan["throws"], bias=f"{rep['bias']:.0%}",
                      power=f"{rep['power']:.0%}")}


def test_view(rep: dict[str, Any], wanted: int | None) -> dict[str, Any]:
    """A test under way: how far it is (throws of its game) and whether the page should follow it."""
    want = wanted or (rep.get("plan") or {}).get("throws") or THROWS_RANGE[0]
    done = rep["throws"]
    return {"done": done, "want": want, "running": done < want, "game": rep["game"],
            "line": _("Testing the dice: %(n)s of %(want)s throws.", n=done, want=want) if done < want else
            _("Done: %(n)s throws. Here is what they say.", n=done)}
