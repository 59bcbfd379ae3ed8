// Shared helpers of the phone page: the page's state, its words, DOM building and talking to the box.
// Every other module imports from here; this module imports none of them (the page's render function is
// handed in with setRenderer, so there is no import circle). It imports only the DOM-free language helpers.
import { particles } from "./i18n.js";

const boot = JSON.parse(document.getElementById("boot").textContent);

// The page's state: its own words (strings), this phone's session, the language, the games' descriptions
// (by name), the latest snapshot, the connection and hand entry.
export const S = {
  strings: boot.strings, session: boot.session, lang: boot.lang,
  games: {}, snap: null, online: false, everOnline: false, entry: [], fix: null, forgetArmed: null, pairing: null, es: null,
};

export const $ = (id) => document.getElementById(id);

// Words with their names filled in, finished for the page's language: Korean particles chosen by the
// name's last sound ("서연이", "지수가"), so a template may write "{name}이(가)".
function finish(text) {
  return S.lang === "ko" ? particles(text) : text;
}

// A page word (webui's Flask-Babel catalogues, shipped in the page) with %(name)s placeholders filled.
export function t(key, vars = {}) {
  const s = S.strings[key] ?? key;
  return finish(s.replace(/%\((\w+)\)s/g, (_, k) => String(vars[k] ?? "")));
}

// A name in the page's language from a Text ({"en": ..., "zh-TW": ..., "ko": ...}) or a plain string.
export function loc(v) {
  if (v == null) return "";
  if (typeof v === "string" || typeof v === "number") return String(v);
  return v[S.lang] ?? v.en ?? Object.values(v)[0] ?? "";
}

// The description of the game on the table (engine.core.GameDescription), or null until it is known.
export function currentGame() {
  return (S.snap && S.games[S.snap.game]) || null;
}

// One of the current game's texts (its description's `texts`) in the page's language, with {name}
// placeholders filled; null when the game has no such text.
export function gameText(key, vars = {}, game = currentGame()) {
  const entry = game && game.texts ? game.texts[key] : null;
  if (!entry) return null;
  return finish(loc(entry).replace(/\{(\w+)\}/g, (_, k) => String(vars[k] ?? "")));
}

// An engine refusal the page shows itself (under the tray), in the page's language: the game's own words for
// its code (`refusal.<code>`), else the page's for the codes every game shares; the engine's English sentence
// only where neither has the code (and on an English page, where it keeps the refusal's specifics).
export function refusalText(code, message = "") {
  if (S.lang === "en" || !code) return message;
  const own = gameText("refusal." + code);
  if (own) return own;
  return S.strings["refusal_" + code] != null ? t("refusal_" + code) : message;
}

export function h(tag, attrs = {}, ...kids) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v == null || v === false) continue;
    if (k === "class") n.className = v;
    else if (k === "text") n.textContent = v;
    else if (k.startsWith("on")) n.addEventListener(k.slice(2), v);
    else if (k === "data") Object.assign(n.dataset, v);
    else n.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) if (kid != null) n.append(kid);
  return n;
}

// replaceChildren without the "null" text nodes that conditional children would leave.
export function fill(node, ...kids) {
  node.replaceChildren(...kids.flat().filter((k) => k != null && k !== false));
  return node;
}

// -- drawing the whole page: app.js registers its render function here ----------------------------
let renderer = () => {};
export function setRenderer(fn) { renderer = fn; }
export function render() { renderer(); }

// Whether two snapshots say the same thing (key order aside: the box's answers and its events encode the
// same snapshot with their keys in different orders).
export function sameSnapshot(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameSnapshot(a[k], b[k]));
}

// A new snapshot from an answer: ignored when an event already brought it, or a newer one of the same game.
export function apply(snap) {
  if (S.snap && snap.game_id === S.snap.game_id) {
    if (snap.seq < S.snap.seq) return;
    if (snap.seq === S.snap.seq && sameSnapshot(snap, S.snap)) return;  // the event brought it first
  }
  S.snap = snap;
  render();
}

// -- talking to the box ---------------------------------------------------------------------------
// A refusal is toasted and thrown (the Error's message is the box's, in the page's language); `quiet` leaves
// the toast to the caller, which says it where the player looks (the setup sheet: inside its dialog).
export async function api(method, path, body, { quiet = false, retried = false } = {}) {
  const opts = { method, credentials: "same-origin", headers: { "X-Dicesight-CSRF": S.session.csrf || "page" } };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, opts);
  } catch (err) {
    if (quiet) throw new Error(t("offline"));
    toast(t("offline"), "warn");
    throw err;
  }
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (res.ok) return data;
  if (res.status === 403 && !retried && data && String(data.code).startsWith("csrf")) {
    await refreshSession();
    return api(method, path, body, { quiet, retried: true });
  }
  if (res.status === 401) { S.session.paired = false; S.session.csrf = null; render(); }
  if (!quiet) toast((data && data.message) || `${res.status}`, true);
  const e = new Error((data && data.message) || res.statusText);
  e.data = data;
  e.status = res.status;
  e.retryAfter = retryAfter(res);
  throw e;
}

// Seconds a refusal asks the phone to wait before asking again (Retry-After), 0 when it does not say.
export function retryAfter(res) {
  const s = Number(res.headers.get("Retry-After"));
  return Number.isFinite(s) && s > 0 ? Math.ceil(s) : 0;
}

export async function refreshSession() {
  try {
    const r = await fetch("/api/session", { credentials: "same-origin" });
    S.session = await r.json();
  } catch { /* offline: keep what we have */ }
}

// Submit an action (docs/actions.md) and show the snapshot the box answers.
export async function act(action) {
  const snap = await api("POST", "/api/actions", action);
  if (snap) apply(snap);
  return snap;
}

// -- the demo tray (no camera: `dicesight run` on a PC) ---------------------------------------------
// Whether the camera is the demo tray throwing only when asked (snapshot.camera.throw, device/camera/demo.py).
export function demoThrows(snap) {
  return Boolean(snap && snap.camera && snap.camera.throw === "ask");
}

// Whether a throw is of use now: the game waits for dice (or phones roll for who starts) and no dice are
// flying; the box refuses other throws anyway, so the demo never plays the game by itself.
export function canThrowDemo(snap) {
  const tray = (snap && snap.tray) || {};
  return Boolean(S.session.paired && (diceInput(snap) || tray.observing) && tray.state !== "moving");
}

// The demo tray's "Throw the dice" (the box panel's throw button): it throws the dice the game waits for.
export function throwDemo() {
  return api("POST", "/api/panel/throw", {}).then((snap) => { if (snap) apply(snap); return snap; }).catch(() => null);
}

let toastTimer = null;
// A short message over the page: `kind` is "good" (done), "warn" (a passing trouble, e.g. the connection is
// being restored) or "bad" (refused, failed); `true` means "bad" as before.
export function toast(text, kind = "good") {
  const tone = kind === true ? "bad" : kind || "good";
  const n = $("toast");
  n.textContent = text;
  for (const k of ["bad", "warn"]) n.classList.toggle(k, tone === k);
  n.setAttribute("role", tone === "good" ? "status" : "alert");
  n.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { n.hidden = true; }, tone === "good" ? 3000 : 6000);
}

export function info(title, text) {
  $("info_title").textContent = title;
  $("info_text").textContent = text;
  $("info").showModal();
}

// The phase's name from the game's description (its `phases`), else the id the snapshot gives.
export function phaseLabel(phase) {
  const game = currentGame();
  const spec = game && (game.phases || []).find((p) => p.id === phase);
  return spec ? loc(spec.name) : phase || "";
}

// -- players --------------------------------------------------------------------------------------
export function findPlayer(id) {
  const players = (S.snap && S.snap.players) || [];
  return players.find((p) => p.id === id || p.name === id) || null;
}

export function playerName(p) {
  if (!p) return "";
  return p.name || p.id || "";
}

// The dice input the pending decision asks for ({type: "dice", count, dice_sets, ...}) or null.
export function diceInput(snap) {
  const p = snap && snap.pending;
  if (p && p.input && p.input.type === "dice") return p.input;
  return null;
}

// Face names of a dice set of the current game, index 0 = side 1, for drawing dice (null for pips).
// A face's glyph (engine.core.FaceSpec: "text:7", "icon:starburst+text:2"...) for dieElement: by the side
// number of a set, or by the face's name in any of the current game's sets (a camera reading names it).
// A dice set's description: the current game's, else any game's (a free roll reading a hero's dice).
export function findSet(setId) {
  const game = currentGame();
  if (game && game.dice_sets && game.dice_sets[setId]) return game.dice_sets[setId];
  for (const g of Object.values(S.games)) if (g && g.dice_sets && g.dice_sets[setId]) return g.dice_sets[setId];
  return null;
}

export function glyphOf(setId, side, name) {
  const game = currentGame();
  const sets = (game && game.dice_sets) || {};
  const one = setId ? findSet(setId) : null;
  const pool = one ? [one] : Object.values(sets);
  for (const set of pool) {
    const f = set.faces.find((x) => (side != null ? x.index === Number(side) : name != null && x.name === String(name)));
    if (f) return f.glyph || null;
  }
  return null;
}

// What a screen reader says for a die: its number, or the face's own name where the face is a symbol
// ("Die showing the face Heart", "…4 Sword" on a hero die whose faces also count as numbers). The face is
// found by its side of the set, else by its name (a camera reading names it).
export function dieLabel(setId, side, value = side, name = null) {
  const sets = setId && findSet(setId) ? [findSet(setId)] : Object.values((currentGame() || {}).dice_sets || {});
  let f = null;
  for (const set of sets) {
    f = set.faces.find((x) => (side != null ? x.index === Number(side) : name != null && x.name === String(name)));
    if (f) break;
  }
  const word = f && f.label ? loc(f.label) : "";
  if (!word || word === String(f.value)) return t("die_value", { v: value ?? "?" });
  return t("die_face", { face: f.value === f.index ? `${f.value} ${word}` : word });
}

export function setFaces(setId) {
  const set = findSet(setId);
  if (!set) return null;
  const faces = set.faces.map((f) => (String(f.glyph || "").startsWith("pips") ? null : f.name));
  return faces.some((f) => f) ? faces : null;
}
