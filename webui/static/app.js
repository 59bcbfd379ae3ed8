// dicesight phone page: follows the table over server-sent events and sends a paired phone's actions.
// No dependencies; every string comes translated from the server (the "boot" JSON in the page).
import { dieElement, iconElement } from "./dice.js";
import { initCards, renderCards } from "./cards.js";
import { openSetup } from "./setup.js";
import { renderRolloff } from "./rolloff.js";

const boot = JSON.parse(document.getElementById("boot").textContent);
export const S = {
  strings: boot.strings, session: boot.session, lang: boot.lang,
  data: { heroes: {}, statuses: {}, games: [], cards: [] },
  snap: null, online: false, everOnline: false, entry: [], pairing: null, es: null, lastSeq: null,
};
const $ = (id) => document.getElementById(id);

export function t(key, vars = {}) {
  const s = S.strings[key] ?? key;
  return s.replace(/%\((\w+)\)s/g, (_, k) => String(vars[k] ?? ""));
}

// A name from hero data: a string, or {"en": ..., "zh-TW": ..., "ko": ...}.
export function loc(v) {
  if (v == null) return "";
  if (typeof v === "string" || typeof v === "number") return String(v);
  return v[S.lang] ?? v.en ?? Object.values(v)[0] ?? "";
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

// -- talking to the box ---------------------------------------------------------------------------
export async function api(method, path, body, retried = false) {
  const opts = { method, credentials: "same-origin", headers: { "X-Dicesight-CSRF": S.session.csrf || "page" } };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, opts);
  } catch (err) {
    toast(t("offline"));
    throw err;
  }
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (res.ok) return data;
  if (res.status === 403 && !retried && data && String(data.code).startsWith("csrf")) {
    await refreshSession();
    return api(method, path, body, true);
  }
  if (res.status === 401) { S.session.paired = false; S.session.csrf = null; render(); }
  toast((data && data.message) || `${res.status}`, true);
  const e = new Error((data && data.message) || res.statusText);
  e.data = data;
  throw e;
}

async function refreshSession() {
  try {
    const r = await fetch("/api/session", { credentials: "same-origin" });
    S.session = await r.json();
  } catch { /* offline: keep what we have */ }
}

export async function act(action) {
  const snap = await api("POST", "/api/actions", action);
  if (snap) apply(snap);
  return snap;
}

let toastTimer = null;
export function toast(text, bad = false) {
  const n = $("toast");
  n.textContent = text;
  n.classList.toggle("bad", bad);
  n.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { n.hidden = true; }, bad ? 6000 : 3000);
}

function apply(snap) {
  if (S.snap && snap.seq < S.snap.seq && snap.game_id === S.snap.game_id) return; // stale answer
  S.snap = snap;
  render();
}

function connect() {
  const es = new EventSource("/api/events");
  S.es = es;
  es.addEventListener("open", () => { S.online = true; S.everOnline = true; renderBanner(); });
  es.addEventListener("snapshot", (ev) => {
    S.online = true;
    S.snap = JSON.parse(ev.data);
    render();
  });
  es.addEventListener("error", () => {
    S.online = false;
    renderBanner();
    if (es.readyState === EventSource.CLOSED) setTimeout(connect, 2000);
  });
}

// -- pairing --------------------------------------------------------------------------------------
async function pair() {
  if (S.pairing) return;
  const req = await api("POST", "/api/pair", {});
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
      toast(t("pair_ok"));
      render();
      return;
    }
    if ((r && (r.status === "expired" || r.code)) || Date.now() > until + 3000) {
      S.pairing = null;
      $("pairmsg").textContent = t("pair_expired");
      render();
      return;
    }
    $("pairmsg").textContent = t("pair_wait", { s: Math.max(0, Math.ceil((until - Date.now()) / 1000)) });
    setTimeout(tick, 700);
  };
  $("pairmsg").textContent = t("pair_wait", { s: Math.ceil(req.expires_in) });
  render();
  setTimeout(tick, 400);
}

// -- rendering ------------------------------------------------------------------------------------
export const PHASES = ["upkeep", "income", "main1", "offensive", "targeting", "defensive", "main2", "discard"];

function renderBanner() {
  const b = $("banner");
  const cam = S.snap && S.snap.camera;
  let text = "";
  let kind = "";
  if (!S.online && S.everOnline) { text = t("offline"); kind = "bad"; }
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
}

function renderPair() {
  const paired = S.session.paired;
  $("pairbox").hidden = paired;
  $("pairedline").hidden = !paired;
  document.body.classList.toggle("paired", paired);
  const btn = $("pair");
  btn.disabled = Boolean(S.pairing);
  if (!S.pairing && !paired && $("pairmsg").dataset.init !== "1") $("pairmsg").dataset.init = "1";
}

function playerName(p) {
  if (!p) return "";
  return p.name || loc(p.hero_name) || p.id || "";
}

function findPlayer(id) {
  const players = (S.snap && S.snap.players) || [];
  return players.find((p) => p.id === id || p.name === id) || null;
}

function phaseLabel(phase) {
  const label = t("ph_" + phase);
  return label.startsWith("ph_") ? phase : label;
}

function heroOf(p) {
  return (p && S.data.heroes[p.hero]) || null;
}

function abilityName(heroId, id) {
  const hero = S.data.heroes[heroId];
  const a = hero && (hero.abilities || []).find((x) => x.id === id);
  return a ? loc(a.name) : id;
}

function statusName(id) {
  const st = S.data.statuses[id];
  return st ? loc(st.name) : id;
}

// An option's label in the page's language, built from its action; the engine's English label otherwise.
function optionLabel(o) {
  const a = o.action || {};
  const who = findPlayer(a.player);
  const hero = who ? who.hero : null;
  const lvl = /level (\d)/.exec(o.label || "");
  switch (a.type) {
    case "roll": {
      const m = /Roll (\d+) d/.exec(o.label || "");
      const att = /attempt (\d+) of (\d+)/.exec(o.label || "");
      if (m && att) return t("opt_roll_attempt", { n: m[1], a: att[1], max: att[2] });
      return S.lang === "en" ? o.label : t("opt_roll");
    }
    case "keep": return S.lang === "en" ? o.label : o.label.replace(/^(Keep|Release) die (\d+)/, (_, k, n) => t(k === "Keep" ? "opt_keep" : "opt_release", { n }));
    case "ability":
      if (a.ability == null) return t("opt_no_ability");
      return abilityName(hero || (findPlayer(S.snap.active) || {}).hero, a.ability) + (lvl ? ` (${t("level", { n: lvl[1] })})` : "");
    case "defense":
      if (a.defense == null) return t("opt_no_defense");
      return t("opt_defend", { name: abilityName(hero, a.defense) }) + (lvl ? ` (${t("level", { n: lvl[1] })})` : "");
    case "advance": return t("opt_end_phase", { phase: phaseLabel(S.snap.phase) });
    case "target": return t("opt_target", { name: playerName(findPlayer(a.target)) });
    case "spend": return t("opt_spend", { name: playerName(who), status: statusName(a.status) }) + (a.use ? ` (${t("use_" + a.use)})` : "");
    case "knockdown": return a.pay ? t("opt_knockdown_pay") : t("opt_knockdown_skip");
    case "sell": return t("opt_sell");
    case "play": {
      const m = /^Play (.+?)(?: (II|III))? \((\d+) CP\)$/.exec(o.label || "");
      if (!m || S.lang === "en") return loc(o.label);
      const h_ = S.data.heroes[hero];
      const ab = h_ && (h_.abilities || []).find((x) => x.name && x.name.en === m[1]);
      const card = ((h_ && h_.cards) || []).concat(S.data.cards || []).find((c) => c.name && c.name.en === m[1]);
      const name = ab ? loc(ab.name) : card ? loc(card.name) : m[1];
      return t("opt_play", { card: m[2] ? `${name} ${m[2]}` : name, n: m[3] });
    }
    case "pass": return t("opt_let_activate");
    case "resolve": return S.lang === "en" ? o.label : t("opt_resolve");
    case "pass_keg": return a.target ? t("opt_pass_keg", { name: playerName(findPlayer(a.target)) }) : t("opt_keep_keg");
    default: return loc(o.label);
  }
}

function renderPhase(snap) {
  const bar = $("phasebar");
  const show = (snap.players || []).length > 0 && snap.phase;
  bar.hidden = !show;
  if (!show) return;
  const active = findPlayer(snap.active);
  const order = snap.phases || PHASES.filter((p) => p !== "offense");
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

function statusChip(st) {
  const info_ = S.data.statuses[st.id] || {};
  const name = loc(st.name) || loc(info_.name) || st.id;
  const limit = st.limit ?? info_.limit;
  return h("button", {
    class: "chip " + (st.kind || info_.kind || ""), type: "button", data: { status: st.id || name },
    "aria-label": `${name} ${st.count}${limit ? "/" + limit : ""}`,
    onclick: () => info(`${name} · ${st.count}${limit ? "/" + limit : ""}`, [
      t("kind_" + (st.kind || info_.kind || "")).replace(/^kind_.*/, ""), limit ? t("limit", { n: limit }) : "", info_.text || ""].filter(Boolean).join(" · ")),
  }, h("span", { text: name }), h("b", { text: limit ? `${st.count}/${limit}` : String(st.count ?? "") }));
}

function renderPlayers(snap) {
  const box = $("players");
  const players = snap.players || [];
  box.hidden = players.length === 0;
  if (!players.length) { fill(box); return; }
  box.dataset.count = String(players.length);
  const winners = snap.winners || [];
  fill(box, ...players.map((p) => {
    const active = p.id === snap.active;
    const statuses = (p.statuses || []).filter((x) => (x.count ?? 1) > 0);
    const hero = heroOf(p);
    const heroName = loc(p.hero_name) || (hero && loc(hero.name)) || p.hero;
    return h("article", { class: "player" + (active ? " active" : "") + (p.out ? " out" : "") + (winners.includes(p.id) ? " won" : ""),
      data: { player: p.id, phase: active ? snap.phase : "" } },
      h("header", {},
        h("strong", { class: "pname", text: (active ? "▶ " : "") + playerName(p) }),
        p.hero ? h("small", { class: "hero", text: heroName }) : null,
        snap.mode === "2v2" ? h("small", { class: "team", text: t("team_shared", { n: p.team }) }) : null),
      h("div", { class: "stats" },
        h("div", { class: "stat hp" }, h("small", { text: t("health") }),
          h("b", { class: "health", text: String(p.health ?? "—") })),
        h("div", { class: "stat cp" }, h("small", { text: t("cp") }),
          h("b", { class: "cpval", text: String(p.cp ?? "—") }, p.cp_max ? h("small", { text: `/${p.cp_max}` }) : null))),
      h("div", { class: "chips" }, statuses.length ? statuses.map(statusChip) : h("small", { class: "muted", text: t("no_statuses") })),
      p.hand != null ? h("small", { class: "muted hand", text: t("cards", { n: p.hand }) }) : null,
    );
  }));
}

// Whose dice the game's dice are and what for ("Bo's defensive dice"), from the snapshot's dice_role and
// dice_set (the rolling hero's dice): {text, hero} or null.
const ROLE_ROLLER = { offense: "attacker", ability: "attacker", targeting: "attacker", defense: "target" };
function diceOwner(snap) {
  const role = snap.dice_role;
  const dice = Array.isArray(snap.dice) ? snap.dice : [];
  const rp = snap.roll_phase || {};
  const setHero = typeof snap.dice_set === "string" && snap.dice_set.startsWith("dicethrone:") ? snap.dice_set.slice(11) : null;
  const heroName = (id) => { const hero = S.data.heroes[id]; return hero ? loc(hero.name) : ""; };
  if (role === "opposed") {
    const owners = [...new Set(dice.map((d) => d.owner).filter(Boolean))].map((id) => playerName(findPlayer(id)) || id);
    return owners.length ? { text: t("role_opposed", { names: owners.join(" & ") }), hero: "" } : null;
  }
  let who = null;
  if (ROLE_ROLLER[role]) who = findPlayer(rp[ROLE_ROLLER[role]] || (role === "defense" ? null : snap.active));
  else if (role === "keg" || role === "blind") who = findPlayer(snap.active);
  else if (role === "status") who = findPlayer((dice[0] && dice[0].owner) || (snap.pending && snap.pending.player));
  if (!who && setHero) {
    const holders = (snap.players || []).filter((p) => p.hero === setHero);
    if (holders.length === 1) who = holders[0];
  }
  if (!who) return null;
  const key = role && S.strings["role_" + role] ? "role_" + role : "role_dice";
  return { text: t(key, { name: playerName(who) }), hero: heroName(setHero || who.hero) };
}

// The game's own dice (Dice Throne: the five dice of this roll, with the kept ones marked).
function renderGameDice(snap) {
  const box = $("gamedice");
  const dice = Array.isArray(snap.dice) ? snap.dice : null;
  const rolling = ["offensive", "targeting", "defensive"].includes(snap.phase) ||
    Boolean(snap.pending && snap.pending.input && snap.pending.input.type === "dice");
  $("gamedicecard").hidden = !dice || !dice.length || !rolling;
  $("gamedicecard").dataset.offense = String(Boolean(snap.pending && snap.pending.kind === "offense"));
  const whose = diceOwner(snap);
  $("dicetitle").textContent = whose ? whose.text : t("dice");
  $("gamedicecard").dataset.role = snap.dice_role || "";
  fill($("dicehero"), whose && whose.hero ? whose.hero : null);
  if (!dice || !dice.length) { fill(box); return; }
  const p = snap.pending;
  const canKeep = S.session.paired && p && p.kind === "offense" && snap.attempts && snap.attempts.used > 0 &&
    (p.options || []).some((o) => o.action && o.action.type === "keep");
  const kept = dice.map((d, i) => (d.kept ? i : -1)).filter((i) => i >= 0);
  $("gamedicehint").textContent = canKeep ? t("hold_hint") : "";
  const att = snap.attempts;
  $("attempts").textContent = att && att.max && p && p.kind === "offense" ? t("rolls_left", { n: Math.max(0, att.max - att.used) }) : "";
  fill(box, ...dice.map((d, i) => {
    const die = dieElement(d.value, { face: d.face, kept: d.kept, label: t("die_value", { v: d.value ?? "?" }) });
    if (!canKeep) return die;
    const next = d.kept ? kept.filter((k) => k !== i) : [...kept, i].sort();
    return h("button", { class: "diebtn keep" + (d.kept ? " on" : ""), type: "button", "aria-pressed": d.kept ? "true" : "false",
      onclick: () => act({ type: "keep", player: p.player, dice: next }).catch(() => {}) }, die);
  }));
}

function trayDice(snap) {
  return (snap.tray && snap.tray.dice) || [];
}

function renderTray(snap) {
  const tray = snap.tray || { state: "empty", dice: [] };
  const dice = trayDice(snap);
  const faces = snap.dice_faces || null;
  // No dice: the card says the tray is empty; only dice being thrown (a hand, a die rolling) get a label.
  const state = tray.state || "empty";
  $("traystate").textContent = dice.length || state === "moving" ? t("tray_" + state) : "";
  $("traycard").dataset.state = tray.state || "empty";
  $("traycard").hidden = Boolean(snap.camera && snap.camera.status === "off" && !dice.length);
  fill($("tray"), ...dice.map((d) => dieElement(d.value, {
    face: d.face || (faces && d.value ? faces[d.value - 1] : null), colour: d.colour,
    uncertain: d.certain === false, label: t("die_value", { v: d.value ?? "?" }),
  })));
  if (!dice.length) $("tray").append(h("p", { class: "muted empty", text: t("tray_empty") }));
  // the box words its tray messages in English; the unsure-reading one has the page's own wording
  const trayMsg = S.lang !== "en" && tray.needs_confirmation ? t("uncertain") : tray.message || "";
  $("traymsg").textContent = trayMsg;
  $("traymsg").className = tray.needs_confirmation ? "warn" : "muted";
  const unsure = tray.needs_confirmation || dice.some((d) => d.certain === false);
  const conf = $("confirm");
  const need = (diceInput(snap) || {}).count;
  const wrongCount = Boolean(need) && dice.length !== need;
  conf.hidden = !(unsure && S.session.paired && dice.length);
  if (!conf.hidden) {
    fill(conf, 
      trayMsg ? null : h("p", { class: "warn", text: t("uncertain") }),
      h("button", { class: "primary", id: "confirmbtn", disabled: dice.some((d) => d.value == null) || wrongCount,
        onclick: () => submitDice(dice.map((d) => d.value)).catch(() => {}) }, t("confirm_reading")),
      h("button", { class: "ghost", onclick: () => { S.entry = dice.map((d) => d.value).filter((v) => v != null); renderEntry(S.snap); $("entry").scrollIntoView({ behavior: "smooth" }); } }, t("fix_reading")),
    );
  }
  const ab = $("abilities");
  const list = snap.abilities || null;
  const show = Array.isArray(list) && (list.length > 0 || (snap.pending && snap.pending.kind === "offense" && snap.attempts && snap.attempts.used > 0));
  ab.hidden = !show;
  if (show) {
    const opts = (snap.pending && snap.pending.options) || [];
    const attacker = findPlayer(snap.active);
    fill(ab, h("h3", { text: t("abilities") }),
      list.length ? h("ul", {}, list.map((a) => {
        const o = opts.find((x) => x.action && x.action.type === "ability" && x.action.ability === a.id);
        const name = loc(a.name) || abilityName(attacker && attacker.hero, a.id);
        return h("li", { class: a.ultimate ? "ult" : "" },
          o && S.session.paired ? h("button", { class: "abil", type: "button", data: { ability: a.id }, onclick: () => act(o.action).catch(() => {}) }, name)
            : h("span", { text: name }),
          a.level ? h("small", { text: t("level", { n: a.level }) }) : null);
      })) : h("p", { class: "muted", text: t("no_abilities") }));
  }
}

// While the attacker rolls: each ability's chance with the attempts left (the engine's exact odds).
function renderOdds(snap) {
  const box = $("odds");
  const odds = Array.isArray(snap.odds) ? snap.odds : [];
  const met = new Set((snap.abilities || []).map((a) => a.id));
  const rows = odds.filter((o) => !met.has(o.id) && o.chance > 0).sort((a, b) => b.chance - a.chance).slice(0, 8);
  box.hidden = !rows.length;
  if (!rows.length) return;
  const attacker = findPlayer(snap.active);
  const left = snap.attempts ? Math.max(0, snap.attempts.max - snap.attempts.used) : 0;
  fill(box, h("h3", { text: t("odds", { n: left }) }), h("ul", {}, rows.map((o) => {
    const pct = Math.round(o.chance * 100);
    const bar = h("span", { class: "bar" }, h("span", { class: "fill" }));
    bar.firstChild.style.width = `${Math.max(2, pct)}%`;
    return h("li", { data: { ability: o.id } }, h("span", { class: "oname", text: abilityName(attacker && attacker.hero, o.id) }),
      bar, h("b", { text: `${pct < 1 && o.chance > 0 ? "<1" : pct}%` }));
  })));
}

export function diceInput(snap) {
  const p = snap.pending;
  if (!p) return null;
  if (p.input && p.input.type === "dice") return p.input;
  return null;
}

async function submitDice(values) {
  const input = diceInput(S.snap) || {};
  const base = input.action ? { ...input.action } : { type: "roll" };
  await act({ ...base, dice: values, source: "manual" });
  S.entry = [];
  renderEntry(S.snap);
}

let openUpgrades = false;
const isUpgrade = (o) => o.action && o.action.type === "play";

function optionButton(o, i) {
  return h("button", {
    class: "big option" + (o.default ? " primary" : ""), type: "button", disabled: !S.session.paired,
    data: { option: String(i), type: (o.action && o.action.type) || "" },
    onclick: () => answer(o),
  }, h("span", { text: optionLabel(o) }), o.hint ? h("small", { text: loc(o.hint) }) : null);
}

function renderPending(snap) {
  const box = $("pending");
  const p = snap.pending;
  const shownElsewhere = (o) => o.action && (o.action.type === "keep" || (o.action.type === "ability" && o.action.ability != null));
  const opts = ((p && p.options) || []).filter((o) => !shownElsewhere(o));
  box.hidden = !p || (!opts.length && !p.prompt);
  if (box.hidden) return;
  const upgrades = opts.filter(isUpgrade);
  const who = p.player ? findPlayer(p.player) : null;
  box.dataset.kind = p.kind || "";
  const prompt = S.lang === "en" || !S.strings["pk_" + p.kind] ? loc(p.prompt) : t("pk_" + p.kind, { name: playerName(who) });
  fill(box,
    h("h2", { text: prompt || t("decide") }),
    who ? h("p", { class: "whose", data: { phase: snap.phase } }, h("span", { class: "dot" }), h("span", { text: t("waiting_for", { name: playerName(who) }) })) : null,
    h("div", { class: "options" }, opts.filter((o) => !isUpgrade(o)).map(optionButton)),
    upgrades.length ? h("details", { class: "upgrades", open: openUpgrades || null, ontoggle: (ev) => { openUpgrades = ev.target.open; } },
      h("summary", { text: `${t("when_upgrade")} (${upgrades.length})` }),
      h("div", { class: "options" }, upgrades.map(optionButton))) : null,
    !S.session.paired ? h("p", { class: "muted", text: t("you_can_act") }) : null,
  );
}

// Answer an option; spending a token that rolls a die asks for the real die first (tray, by hand, or the box).
function answer(o) {
  const a = o.action || {};
  const st = a.type === "spend" ? S.data.statuses[a.status] : null;
  if (!st || !st.roll || a.value != null) return act(a).catch(() => {});
  const dlg = $("carddlg");
  const pad = h("div", { class: "pick values" });
  for (let v = 1; v <= 6; v++) {
    pad.append(h("button", { class: "diebtn pickbtn", type: "button", data: { v: String(v) },
      onclick: () => { dlg.close(); act({ ...a, value: v }).catch(() => {}); } }, dieElement(v, { label: t("die_value", { v }) })));
  }
  fill($("cardform"),
    h("h2", { text: optionLabel(o) }),
    h("p", { class: "muted", text: t("spend_roll", { n: st.roll }) }),
    st.roll === 1 ? pad : null,
    h("button", { class: "big primary", type: "button", id: "spendtray", onclick: () => { dlg.close(); act({ ...a, await_roll: true }).catch(() => {}); } }, t("spend_tray")),
    h("button", { class: "big", type: "button", id: "spendbox", onclick: () => { dlg.close(); act(a).catch(() => {}); } }, t("spend_box")),
    h("div", { class: "row" }, h("button", { class: "ghost", type: "button", onclick: () => dlg.close() }, t("cancel"))));
  dlg.showModal();
  return Promise.resolve();
}

function renderEntry(snap) {
  const input = diceInput(snap);
  const box = $("entry");
  box.hidden = !input || !S.session.paired;
  if (box.hidden) return;
  const faces = input.faces || [1, 2, 3, 4, 5, 6];
  const decider = findPlayer((snap.pending && snap.pending.player) || snap.active);
  const hero = heroOf(decider);
  const symbols = input.symbols || (hero && snap.game === "dicethrone" ? hero.faces : null);
  const max = input.count || input.count_max || 40;
  const dieOpts = (v) => ({ face: symbols ? symbols[v - 1] : null, label: t("die_value", { v }) });
  fill($("entrydice"), ...S.entry.map((v, i) => {
    const b = h("button", { class: "diebtn", type: "button", "aria-label": t("die_value", { v }), onclick: () => { S.entry.splice(i, 1); renderEntry(S.snap); } });
    b.append(dieElement(v, dieOpts(v)));
    return b;
  }));
  fill($("entrypad"), ...faces.map((v) => {
    const b = h("button", { class: "diebtn padbtn", type: "button", data: { add: String(v) }, "aria-label": t("die_value", { v }),
      disabled: S.entry.length >= max, onclick: () => { if (S.entry.length < max) { S.entry.push(v); renderEntry(S.snap); } } });
    b.append(dieElement(v, dieOpts(v)));
    return b;
  }));
  const need = input.count || 0;
  $("entrysubmit").disabled = S.entry.length === 0 || (need > 0 && S.entry.length !== need);
}

function fmtAction(a) {
  if (!a) return "";
  const bits = [a.type];
  if (Array.isArray(a.dice)) bits.push(a.dice.map((d) => (typeof d === "object" ? d.value : d)).join(" "));
  for (const k of ["ability", "option", "status", "target", "player", "field", "delta", "amount"]) {
    if (a[k] != null) bits.push(`${k}: ${typeof a[k] === "object" ? JSON.stringify(a[k]) : a[k]}`);
  }
  return bits.join(" · ");
}

// A roll photo's thumbnail (a link to the whole photo). A camera under the glass sees the faces lying on
// it, from below, so the caption says so: players are not meant to read the top faces there.
function rollPhoto(name, snap) {
  const src = `/api/images/${encodeURIComponent(name)}`;
  const below = snap.mount === "under";
  return h("a", { class: "photo", href: src, target: "_blank", title: below ? t("photo_below") : null },
    h("img", { src, alt: below ? `${t("photo")} (${t("photo_below")})` : t("photo"), loading: "lazy", width: 64, height: 48 }),
    below ? h("small", { class: "photocap", text: t("photo_below") }) : null);
}

function renderRolls(snap) {
  const rolls = snap.rolls || [];
  $("rollscard").hidden = !Array.isArray(snap.rolls);
  const list = $("rolls");
  if (!rolls.length) { fill(list, h("li", { class: "muted", text: t("no_rolls") })); return; }
  fill(list, ...rolls.slice(0, 12).map((r) => h("li", { data: { n: String(r.n) } },
    h("span", { class: "rn", text: `#${r.n}` }),
    h("span", { class: "dice small" }, r.dice.map((d) => dieElement(d.value, { face: d.face, colour: d.colour, label: t("die_value", { v: d.value }) }))),
    h("span", { class: "rt" }, h("small", { text: t("total") }), h("b", { text: String(r.total) })),
    h("small", { class: "src", text: r.source === "camera" ? t("by_camera") : t("by_hand") }),
    r.image ? rollPhoto(r.image, snap) : null,
  )));
}

function logLine(a) {
  if (!a) return [""];
  const who = findPlayer(a.player);
  const name = who ? playerName(who) + ": " : "";
  if (a.type === "roll") {
    // camera rolls carry each die's face (a hero symbol): drawn as read; dice entered by hand are numbers
    const dice = Array.isArray(a.dice) ? a.dice.map((d) => (typeof d === "object" ? d : { value: d })) : null;
    return [name + t("opt_roll"), dice ? h("span", { class: "dice small" }, dice.map((d) => dieElement(d.value, {
      face: d.face, label: t("die_value", { v: d.value }) }))) : null];
  }
  if (a.type === "undo") return [t("undo")];
  if (a.type === "redo") return [t("redo")];
  if (a.type === "adjust") {
    const bits = [];
    for (const k of ["health", "cp"]) if (a[k]) bits.push(`${t(k)} ${a[k] > 0 ? "+" : ""}${a[k]}`);
    for (const [sid, n] of Object.entries(a.status || {})) bits.push(`${statusName(sid)} ${n > 0 ? "+" : ""}${n}`);
    return [name + t("corrections") + " · " + bits.join(", ")];
  }
  if (a.type === "advance") return [name + t("next")];
  if (a.type === "resolve") return [t("opt_resolve")];
  if (a.type === "choose") return [name + t("decide") + ` #${(a.option ?? 0) + 1}`];
  if (a.type === "keep") return [name + t("hold_hint") + ` (${(a.dice || []).map((k) => k + 1).join(", ")})`];
  const label = optionLabel({ action: a, label: "" });
  return [label && label !== a.type ? (a.type === "spend" ? label : name + label) : name + a.type];
}

function renderLog(snap) {
  const card = $("logcard");
  const log = snap.log || [];
  card.hidden = !(snap.players && snap.players.length) || !log.length;
  if (card.hidden) return;
  fill($("log"), ...log.slice().reverse().slice(0, 30).map((e) => h("li", { data: { seq: String(e.seq), type: (e.action && e.action.type) || "" } },
    h("small", { class: "muted", text: `${e.seq}` }), ...logLine(e.action),
    e.action && e.action.image ? rollPhoto(e.action.image, snap) : null)));
}

function renderControls(snap) {
  const paired = S.session.paired;
  $("undo").disabled = !(paired && snap.can_undo);
  $("redo").disabled = !(paired && snap.can_redo);
  $("redo").hidden = !snap.can_redo;
  $("newgame").disabled = !paired;
}

function renderPanel(snap) {
  const panel = snap.panel || { leds: {}, buttons: {} };
  const leds = panel.leds || {};
  const row = $("panel");
  const items = Object.entries(leds).map(([name, v]) => {
    let lit = false;
    let pattern = "";
    if (v && typeof v === "object") { lit = Boolean(v.on); pattern = v.pattern || v.state || ""; }
    else if (typeof v === "string") { lit = v !== "off" && v !== ""; pattern = v; }
    else lit = Boolean(v);
    const led = h("span", { class: "led", data: { led: name, lit: lit ? "1" : "0", pattern } });
    const label = t("led_" + name);
    return h("span", { class: "ledbox" }, led,
      h("small", { text: (label.startsWith("led_") ? name : label) + (pattern && pattern !== "off" && pattern !== "ready" && typeof v === "object" ? ` · ${t("pat_" + pattern).replace(/^pat_/, "")}` : "") }));
  });
  const pressed = panel.buttons || {};
  const btns = ["next", "undo", "pair"].map((b) => h("button", {
    class: "panelbtn" + (pressed[b] ? " down" : ""), type: "button", id: "panel-" + b, data: { button: b },
    disabled: b === "pair" ? !S.session.virtual_pair : !S.session.paired,
    onclick: () => api("POST", `/api/panel/${b}`, b === "undo" ? { hold_s: 1.0 } : {}).then((s) => s && apply(s)).catch(() => {}),
  }, t("btn_" + b)));
  fill(row, ...items, ...btns);
}

function renderWinner(snap) {
  const box = $("winner");
  const over = snap.phase === "over" || (snap.winners && snap.winners.length) || snap.draw;
  box.hidden = !over;
  if (!over) { S.wasOver = false; return; }
  let text = t("game_over");
  if (snap.draw) text = t("draw");
  else if (snap.winners && snap.winners.length) {
    text = t("winner", { name: snap.winners.map((w) => playerName(findPlayer(w)) || w).join(" & ") });
  }
  fill(box, h("strong", { id: "winnertext", text }),
    S.session.paired ? h("button", { class: "big", type: "button", id: "winnernew", onclick: () => openSetup().catch(() => {}) }, t("new_game")) : null);
  if (!S.wasOver) window.scrollTo(0, 0);
  S.wasOver = true;
}

function renderCorrections(snap) {
  const box = $("corrections");
  const players = snap.players || [];
  box.hidden = !(S.session.paired && players.length && snap.game === "dicethrone");
  if (box.hidden) return;
  const open = box.querySelector("details").open;
  const rows = players.map((p) => {
    const hero = heroOf(p);
    const held = Object.fromEntries((p.statuses || []).map((x) => [x.id, x.count]));
    const ids = [...new Set([...(hero ? hero.statuses : []), ...Object.keys(held)])];
    const line = (label, key, value, make) => h("div", { class: "adjrow", data: { player: p.id, field: key } },
      h("span", { text: label }),
      h("button", { class: "adj", type: "button", "aria-label": `${label} −1`, data: { delta: "-1" }, onclick: () => act(make(-1)).catch(() => {}) }, "−"),
      h("b", { text: String(value) }),
      h("button", { class: "adj", type: "button", "aria-label": `${label} +1`, data: { delta: "1" }, onclick: () => act(make(1)).catch(() => {}) }, "+"));
    return h("div", { class: "adjplayer", data: { player: p.id } }, h("h3", { text: playerName(p) }),
      line(t("health"), "health", p.health, (d) => ({ type: "adjust", player: p.id, health: d })),
      line(t("cp"), "cp", p.cp, (d) => ({ type: "adjust", player: p.id, cp: d })),
      ids.map((id) => line(statusName(id), id, held[id] || 0, (d) => ({ type: "adjust", player: p.id, status: { [id]: d } }))));
  });
  fill($("adjust"), ...rows);
  box.querySelector("details").open = open;
}

export function render() {
  renderBanner();
  renderPair();
  const snap = S.snap;
  if (!snap) return;
  // the free-roll game's default title is the engine's English: the page has it in every language
  const title = snap.game === "freeroll" && (!snap.title || snap.title === "Free roll") ? t("freeroll") : loc(snap.title);
  $("title").textContent = title || t(snap.game);
  document.title = `${$("title").textContent} · dicesight`;
  document.body.dataset.game = snap.game || "";
  document.body.dataset.phase = snap.phase || "";
  $("seq").textContent = t("seq", { n: snap.seq });
  renderPhase(snap);
  renderWinner(snap);
  renderPlayers(snap);
  renderGameDice(snap);
  renderTray(snap);
  renderOdds(snap);
  renderPending(snap);
  renderEntry(snap);
  renderCards(snap);
  renderCorrections(snap);
  renderRolls(snap);
  renderLog(snap);
  renderControls(snap);
  renderPanel(snap);
  renderRolloff();
}

export function info(title, text) {
  $("info_title").textContent = title;
  $("info_text").textContent = text;
  $("info").showModal();
}

// -- wiring ---------------------------------------------------------------------------------------
$("pair").addEventListener("click", () => pair().catch(() => {}));
initCards();
$("undo").addEventListener("click", () => act({ type: "undo" }).catch(() => {}));
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
$("entryclear").addEventListener("click", () => { S.entry = []; renderEntry(S.snap); });
$("entrysubmit").addEventListener("click", () => submitDice(S.entry.slice()).catch(() => {}));
document.querySelectorAll(".langs a").forEach((a) => a.addEventListener("click", (ev) => {
  ev.preventDefault();
  document.cookie = `dicesight_lang=${a.dataset.lang}; path=/; max-age=34560000; samesite=lax`;
  location.reload();
}));

fetch("/api/games", { credentials: "same-origin" }).then((r) => r.json()).then((d) => {
  S.data.games = d.games || [];
  for (const hero of d.heroes || []) S.data.heroes[hero.id] = hero;
  for (const st of d.statuses || []) S.data.statuses[st.id] = st;
  S.data.cards = d.cards || [];
  render();
}).catch(() => {});
fetch("/api/state", { credentials: "same-origin" }).then((r) => r.json()).then((snap) => {
  if (!S.snap) { S.snap = snap; render(); }
}).catch(() => {});
render();
connect();
window.dicesight = S; // for debugging from a laptop's console
