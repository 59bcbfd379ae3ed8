"""Languages: English, Traditional Chinese (zh-TW) and Korean (ko) through Flask-Babel.

The language is the `lang` cookie (set by the switch on the page) or the browser's Accept-Language.
The page's own words (pairing, the tray, the panel, the setup sheet...) are messages in the Flask-Babel
catalogues under translations/; those its JavaScript needs are shipped inside the page as JSON, so the
script holds no text. A game's words (its title, phases, prompts, names, refusals) are not here: they come
with the game's description (engine.core.GameDescription.texts) in every language.

`python -m webui.i18n compile` rebuilds the .mo catalogues from the .po files (they are committed, and
the app also compiles a stale one at start when its folder is writable).
"""

from __future__ import annotations

import os
import pathlib
import sys
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from flask import Flask, has_request_context, request
from flask_babel import Babel, get_locale
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

LANG_COOKIE = "dicesight_lang"
TRANSLATIONS = pathlib.Path(__file__).parent / "translations"
# page code -> (Babel locale, name in its own language)
LANGS: dict[str, tuple[str, str]] = {
    "en": ("en", "English"),
    "zh-TW": ("zh_Hant_TW", "繁體中文"),
    "ko": ("ko", "한국어"),
}
BY_LOCALE = {loc: code for code, (loc, _name) in LANGS.items()}


def pick_code(accept: list[tuple[str, float]], cookie: str | None) -> str:
    """The page language: the cookie if it names one of ours, else the first Accept-Language we speak."""
    if cookie in LANGS:
        return cookie
    for value, _quality in accept:  # werkzeug keeps them best-first
        tag = value.lower().replace("_", "-")
        if tag.startswith("zh"):
            return "zh-TW"  # the only Chinese we have; Traditional is what our players read
        if tag.startswith("ko"):
            return "ko"
        if tag.startswith("en"):
            return "en"
    return "en"


def current_code() -> str:
    if not has_request_context():
        return "en"
    return pick_code(list(request.accept_languages), request.cookies.get(LANG_COOKIE))


def _select_locale() -> str:
    return LANGS[current_code()][0]


def compile_catalogues(force: bool = False) -> list[pathlib.Path]:
    """Write messages.mo next to every messages.po that is newer (or all with force)."""
    written = []
    for po in sorted(TRANSLATIONS.glob("*/LC_MESSAGES/messages.po")):
        mo = po.with_suffix(".mo")
        if not force and mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        with po.open("rb") as fh:
            catalog = read_po(fh, locale=po.parent.parent.name)
        tmp = mo.with_name(f".{mo.name}.{os.getpid()}.tmp")  # unique: two boxes starting at once
        with tmp.open("wb") as fh:
            write_mo(fh, catalog)
        tmp.replace(mo)
        written.append(mo)
    return written


def init_app(app: Flask) -> None:
    try:
        compile_catalogues()
    except OSError:
        pass  # read-only install: the committed .mo files are used as they are
    app.config["BABEL_TRANSLATION_DIRECTORIES"] = str(TRANSLATIONS)
    app.config["BABEL_DEFAULT_LOCALE"] = "en"
    Babel(app, locale_selector=_select_locale)

    @app.context_processor
    def _lang_context() -> dict[str, Any]:
        return {"locale_code": current_code(), "html_lang": current_code()}


# -- messages of the API (errors a player may see) ---------------------------------------------------
MESSAGES = {
    "not_paired": _l("This phone is not paired. Tap “Pair this phone”, then press the Pair button on the box."),
    "csrf_missing": _l("The request did not carry this page's check value. Reload the page and try again."),
    "csrf_mismatch": _l("The page's check value is out of date. Reload the page and try again."),
    "empty_body": _l("The request was empty; it needs a JSON object."),
    "bad_json": _l("The request is not valid JSON (%(detail)s)."),
    "not_object": _l("The request must be a JSON object."),
    "bad_action": _l("An action must be a JSON object with a “type”."),
    "no_game": _l("Choose a game."),
    "bad_setup": _l("The setup must be a JSON object."),
    "bad_seed": _l("The seed must be a whole number."),
    "unknown_request": _l("That pairing request is unknown or finished. Ask again."),
    "pair_expired": _l("Nobody pressed the Pair button within 30 seconds. Ask again."),
    "no_button": _l("The box has no such button."),
    "panel_physical": _l("This box has real buttons: press Pair on the box itself."),
    "bad_hold": _l("A press from the page is held 0 to 2 seconds (shutting down is done on the box)."),
    "bad_observe": _l("Watching the tray without recording takes \"seconds\" from 0 to 300."),
    "no_demo_throw": _l("Only the demo tray throws dice when asked: throw your dice into the tray."),
    "no_dice_wanted": _l("The game is not waiting for dice now: look at what it is waiting for."),
    "tray_busy": _l("The dice are still being thrown."),
    "no_image": _l("There is no such roll photo."),
    "bad_learnt_set": _l("Say which dice to forget: \"set\" must name a set the box has learnt."),
    "not_found": _l("There is nothing at this address."),
    "method_not_allowed": _l("This address does not accept that method."),
    "too_large": _l("The request is too large."),
    "bad_host": _l("This address is not one of the box's own. Open the page with the address the box shows."),
    "bad_origin": _l("This change did not come from the box's own page, so it was refused."),
    "seed_not_allowed": _l("This box picks its own random rolls: a game's seed can be chosen only where its config allows it (web.allow_seed)."),
    "seat_press_pair": _l("Another phone holds this seat. Press Pair on the box within 30 seconds to take it (or ask that phone to leave it)."),
    "storage_full": _l("Storage full: the box cannot save anything more, so this was not kept. Free space on the box's card, then try again."),
    "internal": _l("Something went wrong inside the box; nothing was changed. Try again."),
    "too_many_streams": _l("Too many phones are watching right now. The page will try again in a moment."),
    "too_many_streams_here": _l("This phone already has too many live pages open. Close a tab, then try again."),
    "too_many_pair_requests": _l("This phone asked to pair too often. Wait a minute, then ask again."),
    "pairing_busy": _l("Too many phones are asking to pair at once. Wait a little, then ask again."),
    "pair_conflict": _l("More than one phone asked to pair at the same time, so the box paired none. Ask again, one phone at a time."),
    "no_phone": _l("There is no paired phone with that id."),
    "bad_seat": _l("That player is not in this game."),
    "seat_taken": _l("Another phone already plays as that player. Unpair it first, or choose another player."),
    "not_your_seat": _l("This phone plays as another player: act from that player's own phone."),
    "hidden_photo": _l("This roll's photo is its player's own until the dice are revealed."),
    "bad_request": _l("The request could not be read."),
    "no_dice_set": _l("There is no such dice set."),
    "bad_test": _l("\"game\" must be a game's number and \"throws\" a whole number from 10 to 10000."),
    "bad_bias": _l("\"bias\" is the share by which a face is off, from 0.05 to 1."),
    "bad_value_too_deep": _l("The request is nested too deeply (at %(where)s)."),
    "bad_value_bad_number": _l("%(where)s is not a number the box accepts (no NaN, infinity or huge values)."),
    "bad_value_too_many": _l("%(where)s has too many items."),
    "bad_value_too_long": _l("%(where)s is too long."),
    "bad_value_bad_text": _l("%(where)s is not valid text."),
    "bad_value_bad_value": _l("%(where)s has a value the box cannot use."),
    "bad_value_setup_not_int": _l("%(where)s must be a whole number."),
    "bad_value_setup_out_of_range": _l("%(where)s is outside the game's limits."),
    "bad_value_setup_not_bool": _l("%(where)s must be yes or no (true or false)."),
    "bad_value_setup_not_text": _l("%(where)s must be text."),
    "bad_value_setup_bad_choice": _l("%(where)s is not one of the game's choices."),
    "bad_value_setup_not_unique": _l("%(what)s: %(name)s is chosen more than once. Each player needs a different one."),
}


# The engine explains refusals in English; the page's other languages get these by code (the English
# sentence, with its specifics, stays in `engine_message`).
ENGINE_MESSAGES = {
    "wrong_time": _l("That is not possible now: look at what the game is waiting for."),
    "not_your_turn": _l("It is another player's decision."),
    "not_yours": _l("That belongs to another player."),
    "bad_dice": _l("Those dice are not valid: each die shows 1 to 6."),
    "bad_die": _l("That die is not valid."),
    "wrong_dice_count": _l("This roll needs a different number of dice."),
    "game_over": _l("The game is over."),
    "nothing_to_undo": _l("There is nothing to undo."),
    "nothing_to_redo": _l("There is nothing to redo."),
    "bad_setup": _l("That setup is not possible."),
    "unknown_action": _l("This game has no such action."),
    "bad_action": _l("That is not an action this game understands."),
    "unknown_game": _l("There is no such game."),
    "malformed": _l("A field of this action has the wrong shape."),
}


def engine_message(code: str, message: str, texts: dict[str, dict[str, str]] | None = None) -> str:
    """The engine's refusal in the page's language: the game's own text for the code (its description's
    `refusal.<code>`), else the page's wording of refusals every game shares; English keeps the engine's
    sentence with its specifics."""
    lang = current_code()
    if lang == "en":
        return message
    own = (texts or {}).get(f"refusal.{code}")
    if own and own.get(lang):
        return own[lang]
    if code in ENGINE_MESSAGES:
        return str(ENGINE_MESSAGES[code])
    return message


def local(text: Any) -> str:
    """A game's Text ({"en": ..., "zh-TW": ..., "ko": ...}) in the page's language, English when it lacks
    one; a plain string as it is."""
    if isinstance(text, dict):
        return str(text.get(current_code()) or text.get("en") or "")
    return "" if text is None else str(text)


def msg(key: str, **kw: Any) -> str:
    text = str(MESSAGES[key])
    return text % kw if kw else text


# -- strings for the page's script ------------------------------------------------------------------
JS_STRINGS = {
    "tray": _l("On the tray"),
    "rolls": _l("Last rolls"),
    "no_rolls": _l("No rolls yet. Throw the dice into the tray."),
    "tray_empty": _l("The tray is empty"),
    "tray_moving": _l("Dice moving…"),
    "tray_settling": _l("Settling…"),
    "tray_settled": _l("Settled"),
    "total": _l("Total"),
    "by_camera": _l("camera"),
    "by_hand": _l("by hand"),
    "by_camera_confirmed": _l("camera, confirmed on a phone"),
    "photo": _l("Photo"),
    "pair": _l("Pair this phone"),
    "pair_wait": _l("Now press the Pair button on the box (%(s)s s left)"),
    "pair_ok": _l("Paired: this phone can run the game"),
    "pair_expired": _l("Nobody pressed Pair in time. Try again."),
    "watching": _l("Watching only"),
    "unpair_all": _l("Unpair all phones"),
    "live": _l("Live"),
    "offline": _l("Connection lost — reconnecting…"),
    "camera_reconnecting": _l("Camera reconnecting — enter dice by hand if needed"),
    "camera_error": _l("Camera problem — enter dice by hand"),
    "camera_off": _l("Camera off — enter dice by hand"),
    "undo": _l("Undo"),
    "redo": _l("Redo"),
    "next": _l("Next"),
    "panel": _l("Box panel"),
    "led_status": _l("Status"),
    "led_phase": _l("Phase"),
    "pat_reading": _l("reading"),
    "pat_confirm": _l("confirm the dice"),
    "pat_pairing": _l("pairing"),
    "pat_camera_error": _l("camera problem"),
    "pat_pair_conflict": _l("two phones asked: none paired"),
    "pat_gpio_error": _l("buttons not working"),
    "phones": _l("Paired phones"),
    "phones_none": _l("No paired phones."),
    "phone_this": _l("this phone"),
    "phone_unpair": _l("Unpair"),
    "seat": _l("This phone plays as"),
    "seat_none": _l("Nobody (watching)"),
    "seat_hint": _l("Choose your player: this phone then shows your hidden dice, and only yours."),
    "btn_next": _l("Next"),
    "btn_undo": _l("Undo"),
    "btn_pair": _l("Pair"),
    "btn_throw": _l("Throw the dice"),
    "demo_hint": _l("Demo tray (no camera): tap “Throw the dice” when the game waits for a roll."),
    "ro_demo_throw": _l("Throw a die"),
    "new_game": _l("New game"),
    "setup": _l("Set up a game"),
    "game": _l("Game"),
    "mode": _l("Mode"),
    "players": _l("Players"),
    "player_n": _l("Player %(n)s"),
    "name": _l("Name"),
    "starts": _l("Who starts"),
    "roll_box": _l("Let the box roll for it"),
    "roll_tray": _l("Roll for it on the tray"),
    "ro_title": _l("Who starts? Roll on the tray"),
    "ro_rules": _l("Each player throws one die into the tray. The highest roll starts; players tied for the highest roll again."),
    "ro_throw": _l("%(name)s: throw one die into the tray"),
    "ro_by_hand": _l("Or enter %(name)s's die by hand:"),
    "ro_pick_up": _l("Pick up the die: the next throw counts."),
    "ro_one_die": _l("%(n)s dice on the tray: throw only one die."),
    "ro_unread": _l("The die could not be read: enter it by hand."),
    "ro_unsure": _l("Not sure of this die: is it a %(v)s?"),
    "ro_yes": _l("Yes, %(v)s"),
    "ro_tie": _l("Tie at %(v)s: %(names)s roll again."),
    "ro_starts": _l("%(name)s starts!"),
    "ro_again": _l("Roll again"),
    "ro_back": _l("Back"),
    "start": _l("Start the game"),
    "cancel": _l("Cancel"),
    "close": _l("Close"),
    "apply": _l("Apply"),
    "decide": _l("Decide"),
    "waiting_for": _l("Waiting for %(name)s"),
    "enter_dice": _l("Enter dice by hand"),
    "submit_dice": _l("Use these dice"),
    "clear": _l("Clear"),
    "uncertain": _l("Not sure about these dice: check them"),
    "confirm_reading": _l("Yes, the dice are right"),
    "fix_reading": _l("Fix the dice"),
    "use_tray": _l("Use the dice on the tray"),
    "adjust": _l("Adjust"),
    "log": _l("Log"),
    "winner": _l("%(name)s wins!"),
    "draw": _l("Draw: nobody wins"),
    "game_over": _l("Game over"),
    "phase": _l("Phase"),
    "turn": _l("Turn %(n)s"),
    "active": _l("Active player"),
    "you_can_act": _l("Pair this phone to play from it"),
    "error": _l("Refused"),
    "language": _l("Language"),
    "seq": _l("Move %(n)s"),
    "roll_n": _l("Roll %(n)s"),
    "die_value": _l("Die showing %(v)s"),
    "die_face": _l("Die showing the face %(face)s"),
    "tray_unread": _l("A die could not be read: enter it by hand."),
    "tray_teaching": _l("Teaching: confirm or fix the dice."),
    "theme": _l("Theme"),
    "dice": _l("Dice"),
    "photo_below": _l("Seen from below: bottom faces"),
    "paired_badge": _l("Paired"),
    "undone": _l("undone"),
    "learnt": _l("Dice this box has learnt"),
    "learnt_n": _l("%(n)s dice learnt"),
    "learnt_hint": _l("Every roll you confirm or fix teaches the box your dice: it reads them better from the next roll on."),
    "forget": _l("Forget"),
    "fault_recovered": _l("The saved games were damaged. The box recovered %(games)s game(s) and %(actions)s action(s); the damaged file is kept on the box."),
    "fault_recovered_lost": _l("%(n)s game(s) could not be read."),
    "fault_set_aside": _l("Part of saved game %(game)s was damaged: it goes on after move %(seq)s. %(n)s damaged record(s) are kept aside on the box."),
    "fault_storage_full": _l("Storage full: the box's card has no room left, so new rolls and moves are refused until space is freed. The game so far is safe, and phones still follow it."),
    "fault_roll_unsaved": _l("The last roll could not be saved: its dice wait on the tray; confirm them to try again."),
    "fault_photos_unsaved": _l("Roll photos cannot be kept (the card refused them); rolls are still recorded."),
    "fault_learn_unsaved": _l("The dice you confirm cannot be learnt (the card refused them); rolls are still recorded."),
    "fault_not_resumed": _l("Saved game %(game)s could not be resumed; it is kept on the box. A free roll has started."),
    "fault_gpio": _l("The box's buttons and LEDs are not working. Use the buttons on this page; to pair a phone, use the box itself until they are repaired."),
    "streams_full": _l("Too many phones are watching right now. Trying again in %(s)s s."),
    "streams_polling": _l("Meanwhile this page refreshes every few seconds."),
    "streams_full_here": _l("This phone has too many live pages open. Close a tab; trying again in %(s)s s."),
    "pair_retry": _l("Asked too often: you can ask again in %(s)s s."),
    "forget_sure": _l("Tap again to forget"),
}


def js_strings() -> dict[str, str]:
    """The page's words for its script, with the refusals every game shares (`refusal_<code>`): the page words
    an engine refusal it shows itself (under the tray) by its code, as the API does (`engine_message`)."""
    return {**{k: str(v) for k, v in JS_STRINGS.items()},
            **{f"refusal_{code}": str(v) for code, v in ENGINE_MESSAGES.items()}}


# -- the venue board's words (webui/venue.py, static/venue.js) ----------------------------------------------
VENUE_STRINGS = {
    "venue": _l("Venue board"),
    "live": _l("Live"),
    "offline": _l("Connection lost — reconnecting…"),
    "broker_down": _l("The broker cannot be reached: the board shows what it last heard and keeps trying."),
    "no_tables": _l("No tables yet. Each box appears here once it publishes to the broker (mqtt.broker in its config)."),
    "table_online": _l("Online"),
    "table_offline": _l("Offline"),
    "table_unknown": _l("Waiting for the box"),
    "offline_since": _l("Offline for %(s)s"),
    "offline_now": _l("Offline just now"),
    "no_game": _l("No game yet"),
    "to_play": _l("%(name)s to play"),
    "last_roll": _l("Last roll"),
    "rolled_by": _l("%(name)s rolled"),
    "hidden_die": _l("Hidden die"),
    "roll_photo": _l("Photo of this roll"),
    "winners": _l("Winner: %(names)s"),
    "game_over": _l("Game over"),
    "tables_n": _l("%(online)s of %(n)s tables online"),
    "damage": _l("%(name)s lost %(n)s"),
    "seconds": _l("%(n)s s"),
    "minutes": _l("%(n)s min"),
}


def venue_strings() -> dict[str, str]:
    return {k: str(v) for k, v in VENUE_STRINGS.items()}


def locale_name() -> str:
    return str(get_locale() or "en")


def main(argv: list[str]) -> int:
    if argv[:1] == ["compile"]:
        for path in compile_catalogues(force=True):
            print(path)
        return 0
    print("usage: python -m webui.i18n compile", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

__all__ = ["_", "LANGS", "init_app", "msg", "js_strings", "venue_strings", "engine_message", "current_code"]
