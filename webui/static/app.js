// dicesight phone page: follows the table over server-sent events and sends a paired phone's actions.
// This module draws what every game shares (title, phase bar, the pending decision, the tray, hand entry,
// the log, undo, the box panel) and hands the board to the game's own (engine/<game>/board.js, served by
// the box at the address its description's `board` gives; the interface is in docs/architecture.md). No dependencies; every word comes
// translated from the server: the page's own in the "boot" JSON, the game's in its description.
import { dieElement } from "./dice.js";
import {
  $, S, act, api, apply, canThrowDemo, currentGame, demoThrows, diceInput, dieLabel, fill, findPlayer, findSet, gameText, glyphOf,
  h, info, loc, phaseLabel, playerName, refusalText, render, retryAfter, sameSnapshot, setFaces, setRenderer, t, throwDemo, toast,
} from "./core.js";
import { openSetup } from "./setup.js";
import { renderRolloff } from "./rolloff.js";
import { initPhones } from "./phones.js";
import { initJoin } from "./joincode.js";

// -- the game's board (engine/<game>/board.js, served with its styles by the box) ----------------------
const views = {};        // game name -> loaded board module (or a promise while loading)
let view = null;         // the current game's board module
let viewName = null;

// What a view is handed besides the snapshot: helpers bound to the page (docs/architecture.md).
const ctx = {
  S, h, fill, loc, t, act, api, apply, info, toast, dieElement, dieLabel, findPlayer, playerName, diceInput, setFaces, phaseLabel,
  text: (key, vars) => gameText(key, vars),
  game: () => currentGame(),
  paired: () => Boolean(S.session.paired),
  sheet: () => ({ dialog: $("carddlg"), form: $("cardform") }),
  askDice: (values) => submitDice(values),
  render: () => render(),
};

function slots() {
  return { board: $("board"), dice: $("viewdice"), tools: $("tools") };
}

function loadView(game) {
  const name = game.name;
  if (views[name] && !(views[name] instanceof Promise)) return views[name];
  if (!views[name]) {
    views[name] = import(game.board.js)
      .then((m) => { views[name] = m.default || m; render(); })
      .catch((err) => { console.error(`the board of ${name} did not load`, err); views[name] = { render: () => {} }; render(); });
  }
  return null;
}

function boardStyle(game) {
  // a board's own styles come and go with it: they never restyle another game's board
  const old = document.getElementById("boardstyle");
  const href = game.board.css;
  if (old && old.getAttribute("href") === href) return;
  if (old) old.remove();
  if (href) document.head.append(h("link", { id: "boardstyle", rel: "stylesheet", href }));
}

function currentView() {
  const game = currentGame();
  if (!game || !game.board) return null;
  const name = game.name;
  const mod = loadView(game);
  if (!mod) return null;
  if (viewName !== name) {
    boardStyle(game);
    const s = slots();
    for (const node of Object.values(s)) fill(node);
    viewName = name;
    view = mod;
    if (view.init) view.init(s, ctx);
  }
  return view;
}

function hook(name, ...args) {
  const v = currentView();
  return v && typeof v[name] === "function" ? v[name](...args) : undefined;
}

// -- live updates and pairing ---------------------------------------------------------------------
const DRAW_EVERY_MS = 100;  // a tenth of a second: no player sees the lag; a burst costs a phone 10 draws/s

function connect() {
  const es = new EventSource("/api/events");
  S.es = es;
  es.addEventListener("open", () => { S.online = true; S.everOnline = true; renderBanner(); });
  // Snapshots may come faster than a phone draws (a burst of actions, a slow phone, a game played from
  // the box's buttons): the page keeps the newest and draws it at most every DRAW_EVERY_MS, at the next
  // frame, so a phone never works through states already gone. A hidden tab draws nothing until it is
  // looked at again. A phone's own action is drawn at once from the box's answer (core.apply).
  let newest = null;
  let drawnAt = 0;
  const draw = () => {
    const snap = JSON.parse(newest);
    newest = null;
    drawnAt = performance.now();
    if (S.snap && snap.game_id === S.snap.game_id) {
      if (snap.seq < S.snap.seq) return;  // an answer was newer
      // the event of this phone's own action, already drawn from the box's answer: nothing to draw again
      if (snap.seq === S.snap.seq && sameSnapshot(snap, S.snap)) return;
    }
    S.snap = snap;
    render();
  };
  es.addEventListener("snapshot", (ev) => {
    S.online = true;
    if (newest === null) {
      const wait = drawnAt + DRAW_EVERY_MS - performance.now();
      if (wait > 0) setTimeout(() => requestAnimationFrame(draw), wait);
      else requestAnimationFrame(draw);
    }
    newest = ev.data;
  });
  es.addEventListener("error", () => {
    S.online = false;
    renderBanner();
    if (es.readyState === EventSource.CLOSED && S.es === es) reconnectLater();
  });
}

// A closed stream was refused, or the box could not be reached. A browser's EventSource hides the status
// and Retry-After of a refusal, so the page asks the box (HEAD /api/events: no stream is opened) and
// waits as long as a refusal says (503: the box is full; 429: this phone holds its share), longer after each
// refusal in a row (up to a minute), else 2 s. While it waits the page stays current by asking for the
// state (GET /api/state, answered from the box's cache) every few seconds, and the banner says so: a
// refused phone never shows a stale game as if it were live (issue 32 #5).
const STATE_POLL_MS = 3000;
let refusals = 0;

async function reconnectLater() {
  let wait = 2;
  S.streamRefused = null;
  try {
    const res = await fetch("/api/events", { method: "HEAD", credentials: "same-origin", cache: "no-store" });
    if (res.status === 503 || res.status === 429) {
      refusals += 1;
      wait = Math.min(60, Math.max(2, retryAfter(res) || 10) * Math.min(4, refusals));
      S.streamRefused = { here: res.status === 429, until: Date.now() + wait * 1000 };
    } else {
      refusals = 0;
    }
  } catch { /* the box cannot be reached: look again soon */ }
  renderBanner();
  if (S.streamRefused) {
    const tick = setInterval(() => {
      if (!S.streamRefused || Date.now() >= S.streamRefused.until) { clearInterval(tick); return; }
      renderBanner();
    }, 1000);
    pollState();
  }
  setTimeout(() => { S.streamRefused = null; connect(); }, wait * 1000);
}

async function pollState() {
  while (S.streamRefused) {
    try {
      const res = await fetch("/api/state", { credentials: "same-origin", cache: "no-cache" });
      if (res.ok) {
        const snap = await res.json();
        if (!S.snap || snap.game_id !== S.snap.game_id || snap.seq !== S.snap.seq || !sameSnapshot(snap, S.snap)) {
          S.snap = snap;
          render();
        }
        S.polledAt = Date.now();
      }
    } catch { /* the next try */ }
    await new Promise((done) => setTimeout(done, STATE_POLL_MS));
  }
}

// How often a waiting phone asks whether Pair was pressed: the phone says "paired" within a third of a
// second of the press; at most 16 phones wait at once, so the box answers at most ~50 small GETs a second.
const PAIR_POLL_MS = 300;

async function pair() {
  if (S.pairing || Date.now() < (S.pairBlockedUntil || 0)) return;
  let req;
  try {
    req = await api("POST", "/api/pair", {});
  } catch (e) {
    if (e.status === 429 && e.retryAfter) pairBlocked(e.retryAfter);
    throw e;
  }
  const until = Date.now() + req.expires_in * 1000;
  S.pairing = req.request;
  const tick = async () => {
    if (S.pairing !== req.request) return;
    let r = null;
    try { r = await (await fetch(`/api/pair/${encodeURIComponent(req.request)}`, { credentials: "same-origin" })).json(); }
    catch { r = null; }
    if (r && r.status === "granted") {
      S.pairing = null;
      S.session.paired = true;
      S.session.csrf = r.csrf;
      // the live stream opened before pairing carries no token: reopen it, so a phone that takes a seat in
      // a game with hidden information receives its own secrets live (device/table.py: Table.seen_by)
      if (S.es) S.es.close();
      connect();
      toast(t("pair_ok"));
      render();
      return;
    }
    if ((r && (r.status === "expired" || r.status === "conflict" || r.code)) || Date.now() > until + 3000) {
      S.pairing = null;
      // The box says why: nobody pressed Pair, two phones asked at once, storage full, asked too often.
      // Said where the player is looking (a toast), and kept beside the Pair button, brought into view.
      const why = (r && r.status !== "expired" && r.message) || t("pair_expired");
      $("pairmsg").textContent = why;
      toast(why, "bad");
      $("pairbox").scrollIntoView({ block: "nearest" });
      render();
      return;
    }
    $("pairmsg").textContent = t("pair_wait", { s: Math.max(0, Math.ceil((until - Date.now()) / 1000)) });
    setTimeout(tick, PAIR_POLL_MS);
  };
  $("pairmsg").textContent = t("pair_wait", { s: Math.ceil(req.expires_in) });
  render();
  setTimeout(tick, PAIR_POLL_MS);
}

// The box refused a pair request (asked too often): the button rests for as long as it says (Retry-After).
function pairBlocked(seconds) {
  S.pairBlockedUntil = Date.now() + seconds * 1000;
  const show = () => {
    const left = Math.ceil((S.pairBlockedUntil - Date.now()) / 1000);
    if (left <= 0) { $("pairmsg").textContent = ""; renderPair(); return; }
    $("pairmsg").textContent = t("pair_retry", { s: left });
    renderPair();
    setTimeout(show, 1000);
  };
  show();
}

// -- what every game shares -----------------------------------------------------------------------
function renderBanner() {
  const b = $("banner");
  const cam = S.snap && S.snap.camera;
  let text = "";
  let kind = "";
  const refused = S.streamRefused && Math.max(0, Math.ceil((S.streamRefused.until - Date.now()) / 1000));
  if (refused) {
    const first = t(S.streamRefused.here ? "streams_full_here" : "streams_full", { s: refused });
    text = first + (/[。！？]$/.test(first) ? "" : " ") + t("streams_polling");  // zh-TW sentences join with no space
    kind = "warn";
  }
  else if (!S.online && S.everOnline) { text = t("offline"); kind = "bad"; }
  else if (!S.online && S.snap === null) { text = ""; }
  else if (cam && cam.status === "reconnecting") { text = t("camera_reconnecting"); kind = "warn"; }
  else if (cam && cam.status === "error") { text = t("camera_error") + (cam.message ? ` (${cam.message})` : ""); kind = "bad"; }
  else if (cam && cam.status === "off") { text = t("camera_off"); kind = "info"; }
  b.hidden = !text;
  b.textContent = text;
  b.className = "banner " + kind;
  b.dataset.kind = kind || "none";
  const live = $("live");
  live.textContent = S.online ? "● " + t("live") : "○";
  live.classList.toggle("on", S.online);
  renderFaults(S.snap);
}

// Faults of the box the players must know about, in their language (the snapshot gives codes and
// numbers): saved games salvaged from a damaged store, buttons and LEDs that cannot be used. The
// recovery notice can be hidden on this phone (it stays true until the box restarts).
function faultLine(name, text) {
  return h("p", { class: "fault", data: { fault: name } }, h("span", { text }));
}

function renderFaults(snap) {
  const box = $("faults");
  const store = (snap && snap.store) || {};
  const panel = (snap && snap.panel) || {};
  const lines = [];
  const rec = store.code === "recovered" && store.recovered;
  const seenKey = rec ? `dicesight.recovered.${rec.kept_as || ""}` : "";
  if (rec && sessionStorage.getItem(seenKey) !== "1") {
    let text = t("fault_recovered", { games: rec.games || 0, actions: rec.actions || 0 });
    if (rec.lost_games) text += " " + t("fault_recovered_lost", { n: rec.lost_games });
    lines.push(h("p", { class: "fault", data: { fault: "store_recovered" } }, h("span", { text }),
      h("button", { class: "small", text: t("close"),
        onclick: () => { sessionStorage.setItem(seenKey, "1"); renderFaults(S.snap); } })));
  }
  for (const part of store.set_aside || []) {
    lines.push(h("p", { class: "fault", data: { fault: "store_set_aside" } }, h("span", {
      text: t("fault_set_aside", { game: part.game, seq: part.resumed_at, n: part.records }) })));
  }
  const storageFaults = store.faults || [];
  if (store.storage_full) lines.push(faultLine("storage_full", t("fault_storage_full")));
  else if (storageFaults.includes("roll")) lines.push(faultLine("roll_unsaved", t("fault_roll_unsaved")));
  if (!store.storage_full && storageFaults.includes("photo")) lines.push(faultLine("photos_unsaved", t("fault_photos_unsaved")));
  if (!store.storage_full && storageFaults.includes("learn")) lines.push(faultLine("learn_unsaved", t("fault_learn_unsaved")));
  if (store.not_resumed) {
    lines.push(h("p", { class: "fault", data: { fault: "store_not_resumed" } },
      h("span", { text: t("fault_not_resumed", { game: store.not_resumed.game }) })));
  }
  if (panel.gpio_error) {
    lines.push(h("p", { class: "fault", data: { fault: "gpio_error" }, title: panel.gpio_error },
      h("span", { text: t("fault_gpio") })));
  }
  fill(box, ...lines);
  box.hidden = !lines.length;
}

function renderPair() {
  const paired = S.session.paired;
  $("pairbox").hidden = paired;
  $("pairedline").hidden = !paired;
  document.body.classList.toggle("paired", paired);
  $("pair").disabled = Boolean(S.pairing) || Date.now() < (S.pairBlockedUntil || 0);
  // On a PC the box's own Pair button is the virtual panel's, at the foot of the page: while a request
  // waits, it is offered here too, under the countdown.
  $("pairpress").hidden = !(S.pairing && S.session.virtual_pair);
}

// In a game with hidden information a paired phone says which player it is (POST /api/seat): the box then
// sends it that player's secrets, and only that player's (device/table.py: Table.snapshot).
function renderSeat(snap) {
  const game = currentGame();
  const players = snap.players || [];
  const card = $("seatcard");
  card.hidden = !(S.session.paired && game && game.hidden && players.length);
  if (card.hidden) return;
  const mine = snap.viewer !== undefined ? snap.viewer : S.session.seat;
  fill($("seat"), h("option", { value: "", text: t("seat_none"), selected: !mine || null }),
    ...players.map((p) => h("option", { value: p.id, text: playerName(p), selected: p.id === mine || null })));
}

async function chooseSeat(player) {
  try {
    const r = await api("POST", "/api/seat", { player: player || null });
    S.session = { ...S.session, ...r.session };
    apply(r.snapshot);
  } catch { render(); }
}

// The phase bar: the current phase and who is active, and a dot per phase of the game's turn.
function renderPhase(snap) {
  const bar = $("phasebar");
  const show = (snap.players || []).length > 0 && snap.phase;
  bar.hidden = !show;
  if (!show) return;
  const game = currentGame();
  const active = findPlayer(snap.active);
  const order = ((game && game.phases) || []).filter((p) => p.led != null).map((p) => p.id);
  const idx = order.indexOf(snap.phase);
  fill(bar,
    h("div", { class: "phase", data: { phase: snap.phase } },
      h("span", { class: "ph-glyph", "aria-hidden": "true", text: idx >= 0 ? String(idx + 1) : "•" }),
      h("span", { class: "ph-name", id: "phase", text: phaseLabel(snap.phase) })),
    h("div", { class: "activep" }, h("small", { text: t("active") }),
      h("strong", { id: "active", text: active ? playerName(active) : (snap.active || "—") })),
    snap.turn ? h("small", { class: "turn", text: t("turn", { n: snap.turn }) }) : null,
  );
  if (order.length && idx >= 0) {
    bar.append(h("ol", { class: "phases", "aria-hidden": "true" },
      order.map((p, i) => h("li", { class: i === idx ? "on" : i < idx ? "done" : "", data: { phase: p } }))));
  }
}

// The tray's words under the dice, in the page's language: the box names each message with a code (an
// engine refusal's, or its own), so a zh-TW or ko phone never shows the box's English sentence when it
// knows the words (issue 34 #5).
const TRAY_WORDS = { unsure: "uncertain", teaching: "tray_teaching", unread: "tray_unread" };

function trayMessage(tray) {
  const message = tray.message || "";
  if (S.lang === "en" || !message) return message;
  const code = tray.code || (tray.needs_confirmation ? "unsure" : null);
  return TRAY_WORDS[code] ? t(TRAY_WORDS[code]) : refusalText(code, message);
}

function renderTray(snap) {
  const tray = snap.tray || { state: "empty", dice: [] };
  const dice = tray.dice || [];
  const faces = snap.dice_faces || setFaces(snap.dice_set);
  // No dice: the card says the tray is empty; only dice being thrown (a hand, a die rolling) get a label.
  const state = tray.state || "empty";
  $("traystate").textContent = dice.length || state === "moving" ? t("tray_" + state) : "";
  $("traycard").dataset.state = state;
  // which throw the card shows (the box counts them): a script or test can tell a new throw from the last one
  $("traycard").dataset.roll = String(tray.roll ?? "");
  $("traycard").hidden = Boolean(snap.camera && snap.camera.status === "off" && !dice.length);
  fill($("tray"), ...dice.map((d) => dieElement(d.value, {
    face: d.face || (faces && d.value ? faces[d.value - 1] : null), colour: d.colour,
    glyph: d.set || d.face ? glyphOf(d.set, null, d.face) : null,
    uncertain: d.certain === false, label: dieLabel(d.set || snap.dice_set, null, d.value, d.face),
  })));
  // dice moving: the label says so, and "the tray is empty" would contradict it
  if (!dice.length && state !== "moving") $("tray").append(h("p", { class: "muted empty", text: t("tray_empty") }));
  const trayMsg = trayMessage(tray);
  $("traymsg").textContent = trayMsg;
  $("traymsg").className = tray.needs_confirmation ? "warn" : "muted";
  // only a reading waiting for its confirmation: once any roll is recorded the dice lying there are used,
  // and confirming them again would roll them twice
  const unsure = Boolean(tray.needs_confirmation);
  const conf = $("confirm");
  const need = (diceInput(snap) || {}).count;
  const wrongCount = Boolean(need) && dice.length !== need;
  // a view that enters the throw itself (ownEntry) also confirms an unsure reading of it itself
  conf.hidden = !(unsure && S.session.paired && dice.length) || hook("ownEntry", snap, ctx) === true;
  if (!conf.hidden) {
    fill(conf,
      trayMsg ? null : h("p", { class: "warn", text: t("uncertain") }),
      // a die is sent as its value, or as its face when the face has no number (King of Tokyo's heart)
      h("button", { class: "primary", id: "confirmbtn", disabled: dice.some((d) => d.value == null && !d.face) || wrongCount,
        // die i of the roll is the tray's die i: the box learns each die's face from its own crop
        onclick: () => submitDice(dice.map((d) => d.value ?? d.face), { roll: tray.roll, dice: dice.map((_, i) => i) }).catch(() => {}) },
      t("confirm_reading")),
      h("button", { class: "ghost", id: "fixbtn", onclick: () => {
        // fixing starts from the dice as read, each still tied to its die on the tray (unread ones as gaps)
        S.entry = dice.map((d) => d.value);
        S.fix = { roll: tray.roll, from: dice.map((_, i) => i) };
        renderEntry(S.snap);
        $("entry").scrollIntoView({ behavior: "smooth" });
      } }, t("fix_reading")),
    );
  }
}

// The demo tray throws when asked: its "Throw the dice" sits with the dice it throws (and on the box panel),
// enabled only while the game waits for a roll.
function renderDemoThrow(snap) {
  const row = $("traythrow");
  row.hidden = !demoThrows(snap);
  if (row.hidden) return;
  fill(row, h("button", { class: "primary", type: "button", id: "traythrowbtn", disabled: !canThrowDemo(snap),
    onclick: () => throwDemo() }, t("btn_throw")),
  h("small", { class: "muted", id: "demohint", text: t("demo_hint") }));
}

// Dice entered by hand (or confirmed from the tray) answer the pending dice input. `link` ties each die to
// the tray's die it is ({roll, dice: [tray index or null]}), so the box learns from the dice players confirm.
// The face each number names, for a set whose numbered faces stand at their own value's place (hero dice, a d12,
// King of Tokyo's 1-3), else null: there the tray's values and the pad's places agree; on Mage Wars' attack
// dice a 1 is two faces (the 1 and the 1 in a starburst, at places 3 and 5) and place 1 is a blank.
function facesByValue(setId) {
  const set = findSet(setId);
  const faces = setFaces(setId);
  return set && faces && set.faces.every((f, i) => f.value == null || f.value === i + 1) ? faces : null;
}

async function submitDice(values, link = null) {
  const input = diceInput(S.snap) || {};
  const base = input.action ? { ...input.action } : { type: "roll" };
  // A free roll (no game's own dice action) of a set with drawn faces keeps each die's face with its number,
  // as a camera roll does: the roll stays drawn as the dice were (hero icons, not pips), whatever set the box
  // is given later; the box also learns a confirmed die by its face (device.learnt.face_index)
  const faces = input.action ? null : facesByValue(S.snap.dice_set);
  const plain = faces ? values.map((v) => (typeof v === "number" && faces[v - 1] ? { value: v, face: faces[v - 1] } : v))
    : values;
  // a view may name the dice as its game does (Mage Wars: the attack die's side 6 is "2*"), so the log
  // shows what was rolled, not the pad's numbers
  const dice = hook("entryDice", plain, S.snap, ctx) || plain;
  const sentEntry = S.entry;
  const sentFix = S.fix;
  await act({ ...base, dice, source: "manual", ...(link ? { tray: link } : {}) });
  // the box's answer may come after the player began fixing the next throw: only what was sent is cleared
  if (S.entry === sentEntry) S.entry = [];
  if (S.fix === sentFix) S.fix = null;
  renderEntry(S.snap);
}

// The entered dice to send, and their tie to the tray when they started as a fix of its reading.
function entryToSend() {
  const keep = S.entry.map((v, i) => i).filter((i) => S.entry[i] != null);
  const values = keep.map((i) => S.entry[i]);
  const link = S.fix ? { roll: S.fix.roll, dice: keep.map((i) => S.fix.from[i] ?? null) } : null;
  return [values, link];
}

// Tapping an entered die: a die of the tray being fixed becomes a gap that the next face tapped fills (so
// the box learns the right face for that die's picture); a gap, or a die typed in, is taken away.
function tapEntered(i) {
  if (S.fix && S.fix.from[i] != null && S.entry[i] != null) S.entry[i] = null;
  else {
    S.entry.splice(i, 1);
    if (S.fix) S.fix.from.splice(i, 1);
  }
  renderEntry(S.snap);
}

function addEntered(v) {
  const gap = S.entry.indexOf(null);
  if (gap >= 0) S.entry[gap] = v;
  else {
    S.entry.push(v);
    if (S.fix) S.fix.from.push(null);
  }
  renderEntry(S.snap);
}

// How many dice the phone has learnt, per dice set, and a two-tap Forget for a paired phone.
function renderLearnt(snap) {
  const sets = Object.entries(snap.learnt || {});
  $("learntcard").hidden = !sets.length;
  if (!sets.length) return;
  fill($("learnt"), ...sets.map(([id, v]) => h("li", { data: { set: id } },
    h("div", { class: "row" },
      h("strong", { text: loc(v.name) || id }),
      h("span", { class: "learntn", text: t("learnt_n", { n: v.dice }) }),
      S.session.paired ? h("button", { class: "ghost small forget", type: "button", data: { set: id },
        onclick: () => {
          if (S.forgetArmed !== id) { S.forgetArmed = id; renderLearnt(S.snap); return; }
          S.forgetArmed = null;
          api("POST", "/api/learnt/forget", { set: id }).then((s) => s && apply(s)).catch(() => {});
        } }, S.forgetArmed === id ? t("forget_sure") : t("forget")) : null),
    learntFaces(v), learntColours(v))));
}

// Every face of a learnt set (those not learnt yet dimmed, so a player teaching the set sees what to throw); none
// for a set learnt only by its colours (a game that hides its rolls teaches no face: nothing to throw for).
function learntFaces(v) {
  const colourOnly = v.colours && !Object.values(v.faces || {}).some(Boolean);
  if (colourOnly) return null;
  return h("div", { class: "dice small" }, Object.keys(v.shown && Object.keys(v.shown).length ? v.shown : v.faces || {}).map((f) => {
    const shown = (v.shown || {})[f] || {};
    const n = (v.faces || {})[f] || 0;
    return h("span", { class: "learntface" + (n ? "" : " none"), data: { face: f, n: String(n) } },
      dieElement(shown.value ?? Number(f), { face: shown.face, glyph: shown.glyph, label: `${t("die_value", { v: shown.value ?? f })} ×${n}` }),
      h("small", { text: `×${n}` }));
  }));
}

// The body colours learnt of a set told apart by colour: a die of each colour (named by the game's own word for it,
// where the game on the table has one) and how many dice of it the box learnt.
function learntColours(v) {
  const colours = Object.entries(v.colours || {});
  if (!colours.length) return null;
  return h("div", { class: "dice small learntcolours" }, colours.map(([c, n]) =>
    h("span", { class: "learntcolour", data: { colour: c, n: String(n) } },
      dieElement(null, { colour: c, label: `${gameText("colour." + c) ?? c} ×${n}` }),
      h("small", { text: `×${n}` }))));
}

const hiddenOption = (o) => hook("hideOption", o, S.snap, ctx) === true;

function optionLabel(o) {
  const own = hook("optionLabel", o, S.snap, ctx);
  return own != null ? own : loc(o.text || o.label);  // an option the engine words carries `text` (en, zh-TW, ko)
}

let openGroup = false;

function optionButton(o, i) {
  return h("button", {
    class: "big option" + (o.default ? " primary" : ""), type: "button", disabled: !S.session.paired,
    data: { option: String(i), type: (o.action && o.action.type) || "" },
    onclick: () => answer(o),
  }, h("span", { text: optionLabel(o) }), o.hint ? h("small", { text: loc(o.hint) }) : null);
}

// The seat this phone plays (a hidden-information game's seat chooser), or null: a phone with no seat acts for
// whoever the box waits for, as a shared phone at the table does.
function mySeat(snap) {
  return snap.viewer || S.session.seat || null;
}

// Whose answer an option is: the player its action names, else the decision's player (null: anyone's).
function optionOwner(o, p) {
  const a = o.action || {};
  return a.player || (o.args && o.args.player) || p.player || null;
}

// A seated phone is offered only its own choices (and those anyone may take): it never shows buttons the box
// would refuse it, nor highlights another player's answer as the obvious one.
function ownOptions(snap, opts) {
  const seat = mySeat(snap);
  if (!seat) return opts;
  return opts.filter((o) => { const owner = optionOwner(o, snap.pending); return !owner || owner === seat; });
}

// Who the others wait for when this phone has nothing to answer: the owners of the options it was not shown.
function awaited(snap, opts) {
  const ids = [...new Set(opts.map((o) => optionOwner(o, snap.pending)).filter(Boolean))];
  return ids.map((id) => playerName(findPlayer(id))).join(" / ");
}

// The pending decision: its prompt in the page's language (the game's `prompt.<kind>` text) and a button
// per option; options the view shows on its board are left out, options it groups fold away.
function renderPending(snap) {
  const box = $("pending");
  const p = snap.pending;
  const all = ((p && p.options) || []).filter((o) => !hiddenOption(o));
  const opts = p ? ownOptions(snap, all) : all;
  box.hidden = !p || (!all.length && !p.prompt);
  if (box.hidden) return;
  const who = p.player ? findPlayer(p.player) : (all.length && !opts.length ? { name: awaited(snap, all) } : null);
  box.dataset.kind = p.kind || "";
  const own = S.lang === "en" ? null : gameText(p.prompt_key || "prompt." + p.kind, { name: playerName(who) });
  const groupOf = (o) => hook("optionGroup", o, snap, ctx) || null;
  const grouped = opts.filter(groupOf);
  fill(box,
    h("h2", { text: own || loc(p.prompt) || t("decide") }),
    who ? h("p", { class: "whose", data: { phase: snap.phase } }, h("span", { class: "dot" }), h("span", { text: t("waiting_for", { name: playerName(who) }) })) : null,
    h("div", { class: "options" }, opts.filter((o) => !groupOf(o)).map(optionButton)),
    grouped.length ? h("details", { class: "upgrades", open: openGroup || null, ontoggle: (ev) => { openGroup = ev.target.open; } },
      h("summary", { text: `${groupOf(grouped[0])} (${grouped.length})` }),
      h("div", { class: "options" }, grouped.map(optionButton))) : null,
    !S.session.paired ? h("p", { class: "muted", text: t("you_can_act") }) : null,
  );
}

// Answer an option: the view may ask for more first (a real die for a spent token...), else submit it.
function answer(o) {
  if (hook("answer", o, S.snap, ctx) === true) return Promise.resolve();
  return act(o.action || {}).catch(() => {});
}

function renderEntry(snap) {
  const input = diceInput(snap);
  const box = $("entry");
  // a view that enters this throw itself (several dice sets in one throw...) says so with `ownEntry`
  box.hidden = !input || !S.session.paired || hook("ownEntry", snap, ctx) === true;
  if (box.hidden) return;
  const faces = input.faces || [1, 2, 3, 4, 5, 6];
  let setId = (input.dice_sets || [])[0] || snap.dice_set;
  // a free roll takes plain numbers, but the box may be reading (or being taught) other dice: draw those
  if (setId === "d6" && snap.dice_set && snap.dice_set !== "d6" && findSet(snap.dice_set)) setId = snap.dice_set;
  const symbols = input.symbols || hook("entryFaces", snap, ctx) || setFaces(setId);
  const max = input.count || input.count_max || 40;
  const dieOpts = (v) => ({ face: symbols ? symbols[v - 1] : null, glyph: glyphOf(setId, v), label: dieLabel(setId, v) });
  // a fix of the tray's reading is tied to that throw: once its dice are picked up, the tie is gone
  if (S.fix && ((snap.tray || {}).roll !== S.fix.roll)) S.fix = null;
  const gap = S.entry.indexOf(null) >= 0;
  fill($("entrydice"), ...S.entry.map((v, i) => {
    const b = h("button", { class: "diebtn" + (v == null ? " gap" : ""), type: "button", "aria-label": v == null ? t("die_value", { v: "?" }) : dieLabel(setId, v),
      data: { entry: String(i) }, onclick: () => tapEntered(i) });
    b.append(dieElement(v, v == null ? { uncertain: true, label: "?" } : dieOpts(v)));
    return b;
  }));
  fill($("entrypad"), ...faces.map((v) => {
    const b = h("button", { class: "diebtn padbtn", type: "button", data: { add: String(v) }, "aria-label": dieLabel(setId, v),
      disabled: S.entry.length >= max && !gap, onclick: () => { if (S.entry.length < max || gap) addEntered(v); } });
    b.append(dieElement(v, dieOpts(v)));
    return b;
  }));
  const need = input.count || 0;
  const filled = S.entry.filter((v) => v != null).length;
  $("entrysubmit").disabled = filled === 0 || gap || (need > 0 && filled !== need);
}

// A roll photo's thumbnail (a link to the whole photo). A camera under the glass sees the faces lying on
// it, from below, so the caption says so: players are not meant to read the top faces there.
// A photo the box could not give (a damaged card, a file set aside) is asked for once: later renders show
// its place without asking again, instead of a request per photo per render.
const brokenPhotos = new Set();

export function rollPhoto(name, snap) {
  const src = `/api/images/${encodeURIComponent(name)}`;
  const below = snap.mount === "under";
  if (brokenPhotos.has(name)) return h("span", { class: "photo missing muted", text: t("photo"), data: { photo: name } });
  const img = h("img", { src, alt: below ? `${t("photo")} (${t("photo_below")})` : t("photo"), loading: "lazy", width: 64, height: 48 });
  img.addEventListener("error", () => { brokenPhotos.add(name); }, { once: true });
  return h("a", { class: "photo", href: src, target: "_blank", title: below ? t("photo_below") : null }, img,
    below ? h("small", { class: "photocap", text: t("photo_below") }) : null);
}
ctx.rollPhoto = rollPhoto;

function logLine(a, snap) {
  if (!a) return [""];
  const own = hook("logLine", a, snap, ctx);
  if (own != null) return own;
  const who = findPlayer(a.player);
  const name = who ? playerName(who) + ": " : "";
  if (a.type === "undo") return [t("undo")];
  if (a.type === "redo") return [t("redo")];
  if (a.type === "roll" && Array.isArray(a.dice)) {
    // camera rolls carry each die's face (a symbol): drawn as read; dice entered by hand are numbers
    const dice = a.dice.map((d) => (typeof d === "object" ? d : { value: d }));
    return [name + t("dice"), h("span", { class: "dice small" }, dice.map((d) => dieElement(d.value, {
      face: d.face, label: dieLabel(d.set, null, d.value, d.face) })))];
  }
  // an action no option words: the game's name for it, and its bare type only when the game has none
  const label = optionLabel({ action: a, label: "" }) || gameText("action." + a.type) || gameText("act." + a.type);
  return [name + (label || a.type)];
}

// The numbered log, newest first. A game's board may fold a run of its entries into one row (`foldLog`:
// rows of {seq, action, from}, `from` the run's first seq): the match's log itself keeps every action.
function renderLog(snap) {
  const card = $("logcard");
  const log = snap.log || [];
  card.hidden = !(snap.players && snap.players.length) || !log.length;
  if (card.hidden) return;
  const rows = hook("foldLog", log, snap, ctx) || log;
  fill($("log"), ...rows.slice().reverse().slice(0, 30).map((e) => h("li", { data: { seq: String(e.seq), type: (e.action && e.action.type) || "" } },
    h("small", { class: "muted", text: e.from != null ? `${e.from}–${e.seq}` : `${e.seq}` }), ...logLine(e.action, snap),
    e.action && e.action.image ? rollPhoto(e.action.image, snap) : null)));
}

function renderControls(snap) {
  const paired = S.session.paired;
  $("undo").disabled = !(paired && snap.can_undo);
  $("redo").disabled = !(paired && snap.can_redo);
  $("redo").hidden = !snap.can_redo;
  $("newgame").disabled = !paired;
}

// A phase LED's label: the game's `led.<slot>` text, else the names of its phases on that slot, else
// "Phase N" in the page's words.
function ledLabel(slot) {
  const own = gameText(`led.${slot}`);
  if (own) return own;
  const game = currentGame();
  const names = ((game && game.phases) || []).filter((p) => p.led === slot).map((p) => loc(p.name));
  return names.length ? names.join(" / ") : `${t("led_phase")} ${slot + 1}`;
}

// The box's panel: the status LED (the page's word), the row of phase LEDs (the game's `led.<slot>` texts,
// slot = the LED's place in the row), and the three buttons.
function renderPanel(snap) {
  const panel = snap.panel || { leds: {}, buttons: {} };
  const leds = panel.leds || {};
  let slot = -1;
  const items = Object.entries(leds).map(([name, v]) => {
    let lit = false;
    let pattern = "";
    if (v && typeof v === "object") { lit = Boolean(v.on); pattern = v.pattern || v.state || ""; }
    else if (typeof v === "string") { lit = v !== "off" && v !== ""; pattern = v; }
    else lit = Boolean(v);
    const led = h("span", { class: "led", data: { led: name, lit: lit ? "1" : "0", pattern } });
    let label = name;
    if (name === "status") label = t("led_status");
    else {
      slot += 1;
      const m = /^(?:phase)?(\d+)$/.exec(name); // "phase1".."phase5" (slots 0-4), or a bare slot number
      label = ledLabel(m ? Number(m[1]) - (name.startsWith("phase") ? 1 : 0) : slot);
    }
    const patternWord = pattern && pattern !== "off" && pattern !== "ready" && typeof v === "object" ? ` · ${t("pat_" + pattern).replace(/^pat_/, "")}` : "";
    return h("span", { class: "ledbox" }, led, h("small", { text: label + patternWord }));
  });
  const pressed = panel.buttons || {};
  const btns = ["next", "undo", "pair"].map((b) => h("button", {
    class: "panelbtn" + (pressed[b] ? " down" : ""), type: "button", id: "panel-" + b, data: { button: b },
    disabled: b === "pair" ? !S.session.virtual_pair : !S.session.paired,
    onclick: () => api("POST", `/api/panel/${b}`, b === "undo" ? { hold_s: 1.0 } : {}).then((s) => s && apply(s)).catch(() => {}),
  }, t("btn_" + b)));
  // the demo tray's throw button: a box with no camera has a virtual tray, thrown from its virtual panel
  const demo = demoThrows(snap) ? h("button", { class: "panelbtn throw", type: "button", id: "panel-throw",
    data: { button: "throw" }, disabled: !canThrowDemo(snap), onclick: () => throwDemo() }, t("btn_throw")) : null;
  fill($("panel"), ...items, ...btns, demo);
}

// "How to play": a game's rules in a few lines (its texts `rules.title`, `rules.1`, ...), folded, drawn once
// per game; a view may add to it (a legend of its dice).
function renderRules() {
  const box = $("rules");
  const game = currentGame();
  const title = gameText("rules.title");
  box.hidden = !title;
  if (!title) return;
  if (box.dataset.game === game.name) return;  // renderAll draws nothing before the view is loaded
  box.dataset.game = game.name;
  const lines = [];
  for (let i = 1; gameText("rules." + i) != null; i += 1) lines.push(gameText("rules." + i));
  fill(box, h("details", { id: "rulesfold" }, h("summary", { text: title }),
    h("ol", {}, lines.map((line) => h("li", { text: line }))), hook("rulesExtra", ctx) || null));
}

// Who won, as player ids: the snapshot's `winners`, else the player the game's scoreboard description names
// (`scoreboard.winners`, a path in its snapshot, as the venue board reads it: Mage Wars keeps one `winner`).
// A value that is no player (a draw, a co-op "players") names nobody here.
function winnersOf(snap) {
  if (snap.winners && snap.winners.length) return snap.winners;
  const path = (((currentGame() || {}).scoreboard) || {}).winners;
  if (typeof path !== "string") return [];
  const value = path.split(".").reduce((o, k) => (o == null ? o : o[k]), snap);
  const ids = (snap.players || []).map((p) => p.id);
  return (Array.isArray(value) ? value : [value]).filter((w) => ids.includes(w));
}

function renderWinner(snap) {
  const box = $("winner");
  const over = snap.phase === "over" || (snap.winners && snap.winners.length) || snap.draw;
  box.hidden = !over;
  if (!over) { S.wasOver = false; return; }
  let text = t("game_over");
  const lost = snap.result === "defeat";  // a cooperative game the players lost together
  box.classList.toggle("lost", lost);
  if (lost) text = gameText("view.defeat") || t("game_over");
  else if (snap.draw) text = t("draw");
  else if (winnersOf(snap).length) {
    text = t("winner", { name: winnersOf(snap).map((w) => playerName(findPlayer(w)) || w).join(" & ") });
  }
  fill(box, h("strong", { id: "winnertext", text }),
    S.session.paired ? h("button", { class: "big", type: "button", id: "winnernew", onclick: () => openSetup().catch(() => {}) }, t("new_game")) : null);
  if (!S.wasOver) window.scrollTo(0, 0);
  S.wasOver = true;
}

function renderTitle(snap) {
  const game = currentGame();
  const own = snap.title && (!game || loc(snap.title) !== (game.title || {}).en) ? loc(snap.title) : "";
  $("title").textContent = own || (game ? loc(game.title) : "") || "dicesight";
  document.title = `${$("title").textContent} · dicesight`;
}

function renderAll() {
  renderBanner();
  renderPair();
  const snap = S.snap;
  if (!snap) return;
  // Nothing of the game is drawn before its words are here: its description (names, phases, prompts) and its
  // board view (option labels). Drawn earlier, a phone flashes the engine's ids and English labels
  // ("end_activation", "Keep die 1") for the tens of milliseconds they take to load (issue 34 #5).
  if (!currentGame() || !currentView()) return;
  renderTitle(snap);
  document.body.dataset.game = snap.game || "";
  document.body.dataset.phase = snap.phase || "";
  $("seq").textContent = t("seq", { n: snap.seq });
  const v = currentView();
  renderPhase(snap);
  renderWinner(snap);
  renderRules();
  renderSeat(snap);
  if (v && v.render) v.render(slots(), snap, ctx);
  renderTray(snap);
  renderDemoThrow(snap);
  renderPending(snap);
  renderEntry(snap);
  renderLog(snap);
  renderControls(snap);
  renderLearnt(snap);
  renderPanel(snap);
  renderRolloff();
}
setRenderer(renderAll);

// -- wiring ---------------------------------------------------------------------------------------
$("pair").addEventListener("click", () => pair().catch(() => {}));
$("seat").addEventListener("change", (ev) => chooseSeat(ev.target.value));
$("pairpress").addEventListener("click", () => api("POST", "/api/panel/pair", {}).then((s) => s && apply(s)).catch(() => {}));
$("undo").addEventListener("click", () => act({ type: "undo" }).catch(() => {}));
initPhones();
initJoin();
$("unpair").addEventListener("click", async () => {
  if (!window.confirm(t("unpair_all") + "?")) return;
  try {
    await api("DELETE", "/api/pair");
    S.session.paired = false;
    S.session.csrf = null;
    render();
  } catch { /* toast shown */ }
});
$("redo").addEventListener("click", () => act({ type: "redo" }).catch(() => {}));
$("newgame").addEventListener("click", () => openSetup().catch(() => {}));
$("entryclear").addEventListener("click", () => { S.entry = []; S.fix = null; renderEntry(S.snap); });
$("entrysubmit").addEventListener("click", () => submitDice(...entryToSend()).catch(() => {}));
document.querySelectorAll(".langs a").forEach((a) => a.addEventListener("click", (ev) => {
  ev.preventDefault();
  document.cookie = `dicesight_lang=${a.dataset.lang}; path=/; max-age=34560000; samesite=lax`;
  location.reload();
}));

// The games' descriptions: every word of a game. The page draws no game before they are here, so it asks
// again until the box answers.
function loadGames() {
  fetch("/api/games", { credentials: "same-origin" }).then((r) => r.json()).then((d) => {
    for (const game of d.games || []) S.games[game.name] = game;
    render();
  }).catch(() => setTimeout(loadGames, 2000));
}
loadGames();
fetch("/api/state", { credentials: "same-origin" }).then((r) => r.json()).then((snap) => {
  if (!S.snap) { S.snap = snap; render(); }
}).catch(() => {});
render();
connect();
window.dicesight = S; // for debugging from a laptop's console
