// The setup sheet: game, mode, players and heroes (with their dice symbols), who starts (chosen, rolled by
// the box, or rolled for on the tray: rolloff.js).
import { iconElement } from "./dice.js";
import { S, api, fill, h, loc, t, render } from "./app.js";
import { startRolloff, stopRolloff } from "./rolloff.js";

const $ = (id) => document.getElementById(id);
const PLAYERS = { "1v1": 2, "2v2": 4, koth: 3 };
let catalogue = null;

function heroFaces(hero) {
  return hero.faces || hero.dice || [];
}

function heroOption(hero, selected) {
  return h("option", { value: hero.id, selected: selected || null, text: loc(hero.name) || hero.id });
}

function heroPreview(hero) {
  const faces = heroFaces(hero);
  const seen = [];
  for (const f of faces) {
    const name = typeof f === "object" ? f.symbol || f.name || f.id : f;
    if (!seen.includes(name)) seen.push(name);
  }
  return h("span", { class: "symbols" }, seen.map((s) => {
    const label = (hero.symbols && loc(hero.symbols[s])) || s;
    return h("span", { class: "sym" }, iconElement(s, label), h("small", { text: label }));
  }));
}

function drawPlayers() {
  const game = $("s_game").value;
  const info = catalogue.games.find((g) => g.name === game) || { modes: [] };
  const mode = (document.querySelector("#s_modes input:checked") || {}).value || info.modes[0] || null;
  const box = $("s_players");
  const heroes = catalogue.heroes || [];
  const count = mode ? PLAYERS[mode] || 2 : 0;
  const old = [...box.querySelectorAll(".splayer")].map((row) => ({
    name: row.querySelector("input").value, hero: row.querySelector("select") && row.querySelector("select").value,
  }));
  const rows = [];
  for (let i = 0; i < count; i++) {
    const prev = old[i] || {};
    const heroSel = heroes.length ? h("select", { name: `hero${i}`, class: "herosel", "aria-label": t("hero") },
      heroes.map((hero, k) => heroOption(hero, prev.hero ? prev.hero === hero.id : k === i % heroes.length))) : null;
    const preview = h("div", { class: "preview" });
    const update = () => {
      const hero = heroes.find((x) => x.id === (heroSel && heroSel.value));
      fill(preview, hero ? heroPreview(hero) : "");
    };
    if (heroSel) heroSel.addEventListener("change", update);
    const team = mode === "2v2" ? h("small", { class: "team", text: t("team", { n: i < 2 ? "A" : "B" }) }) : null;
    rows.push(h("fieldset", { class: "splayer", data: { i: String(i) } },
      h("legend", { text: t("player_n", { n: i + 1 }) }), team,
      h("input", { name: `name${i}`, value: prev.name || t("player_n", { n: i + 1 }), maxlength: 24, "aria-label": t("name") }),
      heroSel, preview));
    update();
  }
  fill(box, ...rows);
  const start = $("s_start");
  const names = () => {
    const keep = start.value;
    fill(start, h("option", { value: "roll", text: t("roll_box") }), h("option", { value: "tray", text: t("roll_tray") }),
      ...rows.map((row, i) => h("option", { value: String(i), text: row.querySelector("input").value || t("player_n", { n: i + 1 }) })));
    if (keep) start.value = keep;
  };
  rows.forEach((row) => row.querySelector("input").addEventListener("input", names));
  names();
  $("s_startlabel").hidden = count === 0;
  $("s_healthlabel").hidden = game !== "dicethrone";
  $("s_health").value = mode === "koth" ? 35 : 50;
}

function drawModes() {
  const game = $("s_game").value;
  const info = catalogue.games.find((g) => g.name === game) || { modes: [] };
  const box = $("s_modes");
  box.hidden = !info.modes.length;
  fill(box, h("legend", { text: t("mode") }), ...info.modes.map((m, i) => h("label", { class: "segbtn" },
    h("input", { type: "radio", name: "mode", value: m, checked: i === 0 || null, onchange: drawPlayers }),
    h("span", { text: t("mode_" + m) }))));
  drawPlayers();
}

function collect() {
  const game = $("s_game").value;
  const mode = (document.querySelector("#s_modes input:checked") || {}).value || null;
  const players = [...document.querySelectorAll("#s_players .splayer")].map((row, i) => {
    const p = { id: `p${i + 1}`, name: row.querySelector("input").value.trim() || t("player_n", { n: i + 1 }) };
    if (game !== "dicethrone") delete p.hero;
    const sel = row.querySelector("select");
    if (sel) p.hero = sel.value;
    if (mode === "2v2") p.team = i < 2 ? "A" : "B";
    return p;
  });
  const setup = {};
  if (mode) setup.mode = mode;
  const health = Number($("s_health").value);
  if (game === "dicethrone" && health > 0 && health !== (mode === "koth" ? 35 : 50)) setup.health = health;
  if (players.length) {
    setup.players = players;
    const start = $("s_start").value;
    if (start !== "roll" && start !== "tray") setup.start = players[Number(start)].id;
  }
  return { game, setup };
}

export async function openSetup() {
  catalogue = await api("GET", "/api/games");
  const sel = $("s_game");
  const current = S.snap && S.snap.game;
  const preferred = catalogue.games.some((g) => g.name === "dicethrone") ? "dicethrone" : current;
  fill(sel, ...catalogue.games.map((g) => h("option", { value: g.name, selected: g.name === preferred || null, text: t(g.name) })));
  sel.onchange = drawModes;
  drawModes();
  const dlg = $("setup");
  const create = async (body) => {
    try {
      const snap = await api("POST", "/api/games", body);
      S.snap = snap;
      S.entry = [];
      dlg.close();
      render();
    } catch { /* toast shown */ }
  };
  const showFields = (rolling) => {
    $("s_fields").hidden = rolling;
    $("s_rolloff").hidden = !rolling;
  };
  $("s_go").onclick = async (ev) => {
    ev.preventDefault();
    const body = collect();
    const players = body.setup.players || [];
    if ($("s_start").value !== "tray" || players.length < 2) return create(body);
    // Roll for it on the tray: each player throws one die; the winner starts (no game action is recorded).
    const roll = players.map((p) => ({ name: p.name }));
    showFields(true);
    startRolloff($("s_rolloff"), roll,
      (winner) => create({ ...body, setup: { ...body.setup, start: players[winner].id } }),
      () => showFields(false));
  };
  dlg.onclose = () => { stopRolloff(); showFields(false); };
  showFields(false);
  dlg.showModal();
}
