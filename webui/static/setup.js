// The setup sheet, built from the chosen game's description (engine.core.GameDescription): its modes and
// player counts, its setup form (a choice per seat such as a hero, numbers such as starting health), and
// who starts, as the game describes it (`start`: chosen, left to the game or the box, or rolled for on the
// tray: rolloff.js). The game's view may add
// to a seat (its `seat(mode, index)` hook: a team...). No game is named here.
import { iconElement } from "./dice.js";
import { $, S, api, fill, gameText, h, loc, render, t } from "./core.js";
import { startRolloff, stopRolloff } from "./rolloff.js";

let game = null;      // the chosen game's description
let seatHook = null;  // the chosen game's view's seat(mode, i, ctx), if it has one
// What the sheet hands a view's seat hook: the chosen game's texts (it may not be the game on the table).
const sheetCtx = { text: (key, vars) => gameText(key, vars, game), loc, t };

function fields(kind) {
  return ((game && game.setup) || []).filter((f) => f.kind === kind);
}

function chosenMode() {
  const picked = document.querySelector("#s_modes input:checked");
  const modes = (game && game.modes) || [];
  return modes.find((m) => picked && m.id === picked.value) || modes[0] || null;
}

function seatCount(mode) {
  if (!mode) return 0;
  const [min, max] = mode.players || [0, 0];
  const sel = $("s_count");
  const n = sel && !sel.hidden ? Number(sel.value) : min;
  return Math.min(max, Math.max(min, n || min));
}

// The symbols on an option's dice (a hero's faces), when the option carries them.
function optionPreview(option) {
  const faces = option.faces || [];
  const seen = [];
  for (const f of faces) if (!seen.includes(f)) seen.push(f);
  return h("span", { class: "symbols" }, seen.map((s) => {
    const label = (option.symbols && loc(option.symbols[s])) || s;
    return h("span", { class: "sym" }, iconElement(s, label), h("small", { text: label }));
  }));
}

// The choice seat `i` starts with: what it had, when this game offers it (the sheet keeps a seat's rows when
// the game changes, and Dice Throne's heroes are not King of Tokyo's monsters), else the i-th option or the
// next one no earlier seat has. So the defaults always start: every monster once where the game says so
// (`unique`), and different heroes and mages where the game would allow the same one twice.
function seatDefault(f, kept, taken, i) {
  const ids = (f.options || []).map((o) => o.id);
  if (kept && ids.includes(kept) && !(f.unique && taken.includes(kept))) return kept;
  const order = [...ids.slice(i % Math.max(1, ids.length)), ...ids.slice(0, i % Math.max(1, ids.length))];
  return order.find((id) => !taken.includes(id)) ?? order[0];
}

// A player typing a name while the sheet redraws its seats (a game picked a moment ago loads its board) keeps
// typing into the same seat: the redraw keeps the text, and this gives back the caret and the selection.
function keptFocus(box) {
  const el = document.activeElement;
  if (!(el instanceof HTMLInputElement) || !box.contains(el)) return () => {};
  const [name, start, end] = [el.name, el.selectionStart, el.selectionEnd];
  return () => {
    const again = box.querySelector(`input[name='${name}']`);
    if (!again) return;
    again.focus();
    again.setSelectionRange(start, end);
  };
}

function drawPlayers() {
  const mode = chosenMode();
  const count = seatCount(mode);
  const box = $("s_players");
  const old = [...box.querySelectorAll(".splayer")].map((row) => ({
    name: row.querySelector("input").value,
    choices: Object.fromEntries([...row.querySelectorAll("select")].map((s) => [s.name, s.value])),
  }));
  const rows = [];
  const taken = {};  // field key -> the options earlier seats start with
  for (let i = 0; i < count; i++) {
    const prev = old[i] || { choices: {} };
    const extra = seatHook ? seatHook(mode && mode.id, i, sheetCtx) : null;
    const selects = fields("seat_choice").map((f) => {
      const options = f.options || [];
      taken[f.key] = taken[f.key] || [];
      const chosen = seatDefault(f, prev.choices[f.key], taken[f.key], i);
      taken[f.key].push(chosen);
      const sel = h("select", { name: f.key, class: "herosel", "aria-label": loc(f.name) },
        options.map((o) => h("option", { value: o.id, selected: o.id === chosen || null, text: loc(o.name) || o.id })));
      const preview = h("div", { class: "preview" });
      const update = () => {
        const o = options.find((x) => x.id === sel.value);
        fill(preview, o && o.faces ? optionPreview(o) : null);
      };
      sel.addEventListener("change", update);
      update();
      return [sel, preview];
    });
    rows.push(h("fieldset", { class: "splayer", data: { i: String(i) } },
      h("legend", { text: t("player_n", { n: i + 1 }) }),
      extra && extra.label ? h("small", { class: "team", text: extra.label }) : null,
      h("input", { name: `name${i}`, value: prev.name || t("player_n", { n: i + 1 }), maxlength: 24, "aria-label": t("name") }),
      selects.flat()));
  }
  const typing = keptFocus(box);
  fill(box, ...rows);
  typing();
  const start = $("s_start");
  const names = () => {
    const keep = start.value;
    // the game says how it picks who starts (its description's `start`); the sheet only offers that
    const how = game.start || {};
    fill(start, h("option", { value: "roll", text: loc(how.otherwise) || t("roll_box") }),
      how.tray ? h("option", { value: "tray", text: t("roll_tray") }) : null,
      ...(how.choose ? rows : []).map((row, i) => h("option", { value: String(i), text: row.querySelector("input").value || t("player_n", { n: i + 1 }) })));
    if (keep) start.value = keep;
    sayStart();
  };
  start.onchange = sayStart;
  rows.forEach((row) => row.querySelector("input").addEventListener("input", names));
  names();
  $("s_startlabel").hidden = count === 0;
  drawExtra(mode);
}

// The chosen way to start, whole, under its select when it is the game's rule (a sentence such as "Roll for it
// in the game: most claws starts"): a select shows one line, cut at a phone's width in every language. A
// player's name is short and not repeated.
function sayStart() {
  const chosen = $("s_start").selectedOptions[0];
  const rule = Boolean(chosen) && (chosen.value === "roll" || chosen.value === "tray");
  $("s_starthint").textContent = rule ? chosen.textContent : "";
  $("s_starthint").hidden = !rule;
}

// Numbers and choices of the whole game (starting health...), with the mode's default filled in.
function defaultOf(f, mode) {
  if (f.default_by_mode && mode && f.default_by_mode[mode.id] != null) return f.default_by_mode[mode.id];
  return f.default;
}

function drawExtra(mode) {
  fill($("s_extra"), ...((game && game.setup) || []).filter((f) => f.kind === "int" || (f.kind === "choice" && f.key !== "mode"))
    .filter((f) => !f.modes || (mode && f.modes.includes(mode.id)))
    .map((f) => {
      const dflt = defaultOf(f, mode);
      const input = f.kind === "int"
        ? h("input", { id: `s_${f.key}`, name: f.key, type: "number", min: f.min, max: f.max, inputmode: "numeric", value: dflt ?? "" })
        : h("select", { id: `s_${f.key}`, name: f.key }, (f.options || []).map((o) => h("option", { value: o.id, selected: o.id === dflt || null, text: loc(o.name) })));
      input.dataset.default = dflt == null ? "" : String(dflt);
      return h("label", { class: "sfield", data: { key: f.key } }, loc(f.name) + " ", input);
    }));
}

function drawCount(mode) {
  const label = $("s_countlabel");
  const [min, max] = (mode && mode.players) || [0, 0];
  label.hidden = !(max > min);
  if (label.hidden) return;
  const sel = $("s_count");
  const keep = Number(sel.value) || min;
  fill(sel, ...Array.from({ length: max - min + 1 }, (_, k) => min + k).map((n) => h("option", { value: String(n), text: String(n), selected: n === keep || null })));
}

function drawModes() {
  const modes = (game && game.modes) || [];
  const box = $("s_modes");
  box.hidden = modes.length < 2;
  fill(box, h("legend", { text: t("mode") }), ...modes.map((m, i) => h("label", { class: "segbtn" },
    h("input", { type: "radio", name: "mode", value: m.id, checked: i === 0 || null, onchange: () => { drawCount(chosenMode()); drawPlayers(); } }),
    h("span", { text: loc(m.name) }))));
  drawCount(chosenMode());
  drawPlayers();
}

async function chooseGame(name, again = false) {
  if (!again && game && game.name === name) return; // the same game: keep what was chosen
  game = S.games[name] || null;
  seatHook = null;
  if (game) {
    try {
      const view = await import(game.board.js);  // the game's board (engine/<game>/board.js, served by the box)
      seatHook = typeof view.seat === "function" ? view.seat : null;
    } catch { seatHook = null; }
  }
  drawModes();
  $("setup").dataset.drawn = name;  // the sheet now shows this game's seats (tests and scripts wait for it)
}

function collect() {
  const mode = chosenMode();
  const choices = fields("seat_choice");
  const players = [...document.querySelectorAll("#s_players .splayer")].map((row, i) => {
    const p = { id: `p${i + 1}`, name: row.querySelector("input").value.trim() || t("player_n", { n: i + 1 }) };
    for (const f of choices) {
      const sel = row.querySelector(`select[name='${f.key}']`);
      if (sel) p[f.choice || f.key] = sel.value;
    }
    const extra = seatHook ? seatHook(mode && mode.id, i, sheetCtx) : null;
    if (extra && extra.team != null) p.team = extra.team;
    return p;
  });
  const setup = {};
  if (mode && (game.modes || []).length > 1) setup.mode = mode.id;
  for (const node of document.querySelectorAll("#s_extra [name]")) {
    if (node.value === node.dataset.default || node.value === "") continue;
    setup[node.name] = node.type === "number" ? Number(node.value) : node.value;
  }
  if (players.length) {
    setup.players = players;
    const start = $("s_start").value;
    if (start !== "roll" && start !== "tray") setup.start = players[Number(start)].id;
  }
  return { game: game.name, setup };
}

// The game preselected: the one on the table when it has players, else the first game that has.
function preferred() {
  const takesPlayers = (g) => (g.modes || []).some((m) => (m.players || [0, 0])[1] > 0);
  const current = S.snap && S.games[S.snap.game];
  if (current && takesPlayers(current)) return current.name;
  const first = Object.values(S.games).find(takesPlayers);
  return first ? first.name : current && current.name;
}

export async function openSetup() {
  if (!Object.keys(S.games).length) {
    const d = await api("GET", "/api/games");
    for (const g of d.games || []) S.games[g.name] = g;
  }
  const sel = $("s_game");
  const want = preferred();
  fill(sel, ...Object.values(S.games).map((g) => h("option", { value: g.name, selected: g.name === want || null, text: loc(g.title) || g.name })));
  sel.onchange = () => chooseGame(sel.value);
  $("s_count").onchange = drawPlayers;
  await chooseGame(sel.value, true);
  const dlg = $("setup");
  const showFields = (rolling) => {
    $("s_fields").hidden = rolling;
    $("s_rolloff").hidden = !rolling;
  };
  const create = async (body) => {
    showError(null);
    try {
      // a refusal is said inside the sheet: a toast would be drawn under the modal dialog, out of sight
      const snap = await api("POST", "/api/games", body, { quiet: true });
      S.snap = snap;
      S.entry = [];
      S.fix = null;
      dlg.close();
      render();
    } catch (err) {
      stopRolloff();
      showFields(false);
      showError((err && err.message) || t("error"));
    }
  };
  $("s_go").onclick = async (ev) => {
    ev.preventDefault();
    const body = collect();
    const players = body.setup.players || [];
    if ($("s_start").value !== "tray" || players.length < 2) return create(body);
    // Roll for it on the tray: each player throws one die; the winner starts (no game action is recorded).
    showFields(true);
    startRolloff($("s_rolloff"), players.map((p) => ({ name: p.name })), game.start.tray,
      (winner) => create({ ...body, setup: { ...body.setup, start: players[winner].id } }),
      () => showFields(false));
  };
  dlg.onclose = () => { stopRolloff(); showFields(false); };
  $("setupform").oninput = () => showError(null);  // changed: the refusal was about the old choices
  showFields(false);
  showError(null);
  dlg.showModal();
}

// Why the box refused the setup (in the phone's language), shown in the sheet next to "Start the game";
// null hides it.
function showError(text) {
  const box = $("s_error");
  box.textContent = text || "";
  box.hidden = !text;
  if (text) box.scrollIntoView({ block: "nearest" });
}
