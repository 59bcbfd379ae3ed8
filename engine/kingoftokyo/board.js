// The King of Tokyo board view (docs/architecture.md, "Board views"): Tokyo City and Bay with who holds them,
// a board per monster (health, VP, energy, place, keep cards, Poison/Shrink tokens), the dice of the roll in
// progress (tap a die to keep it out of the tray), the live odds with the best keep, the card market with
// costs, buy and sweep, and a log that reads like the game. Every word comes from the game's texts
// (engine/kingoftokyo/game.json) or its catalogue, in the page's language.

let els = null;
let ctxRef = null;

const FACES = ["1", "2", "3", "heart", "energy", "claw"];
// Our own drawings of the three symbols, in a 100x100 box (drawn with the die's ink colour).
const ICON = {
  heart: "M50 86 C18 62 10 46 14 32 C18 18 38 14 50 30 C62 14 82 18 86 32 C90 46 82 62 50 86 Z",
  energy: "M58 6 L20 56 H46 L38 94 L80 40 H54 Z",
  claw: "M22 90 C26 58 36 32 54 12 C46 38 42 62 42 90 Z M46 90 C50 60 60 36 78 20 C68 42 64 64 64 90 Z M68 90 C70 68 76 54 90 42 C84 58 82 72 84 90 Z",
};
const BODY = { black: ["#1c1c22", "#f4f1ea"], green: ["#2f9447", "#ffffff"] };


function dieSvg(face, colour = "black") {
  const ns = "http://www.w3.org/2000/svg";
  const [body, ink] = BODY[colour] || BODY.black;
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("aria-hidden", "true");
  const rect = document.createElementNS(ns, "rect");
  for (const [k, v] of Object.entries({ x: 4, y: 4, width: 92, height: 92, rx: 18, fill: body, stroke: "#0008", "stroke-width": 3 })) rect.setAttribute(k, v);
  svg.append(rect);
  if (ICON[face]) {
    const g = document.createElementNS(ns, "g");
    g.setAttribute("transform", "translate(17 17) scale(0.66)");
    const path = document.createElementNS(ns, "path");
    path.setAttribute("d", ICON[face]);
    path.setAttribute("fill", face === "heart" ? "#e0443e" : ink);
    g.append(path);
    svg.append(g);
  } else if (face) {
    const text = document.createElementNS(ns, "text");
    for (const [k, v] of Object.entries({ x: 50, y: 70, "text-anchor": "middle", "font-size": 56, "font-weight": 800, fill: ink, "font-family": "system-ui, sans-serif" })) text.setAttribute(k, v);
    text.textContent = face;
    svg.append(text);
  }
  return svg;
}

function faceName(face, ctx) {
  return ctx.text("face." + face) || face;
}

function dieNode(face, colour, ctx, opts = {}) {
  const n = ctx.h(opts.button ? "button" : "span", {
    class: "kot-die" + (opts.small ? " small" : "") + (opts.kept ? " kept" : ""), type: opts.button ? "button" : null,
    role: opts.button ? null : "img", "aria-label": face ? faceName(face, ctx) : "?", "aria-pressed": opts.button ? String(Boolean(opts.kept)) : null,
    data: { face: face || "", colour: colour || "black", die: opts.index != null ? String(opts.index) : null }, onclick: opts.onclick,
  });
  n.append(dieSvg(face, colour));
  return n;
}

function catalogue(ctx, kind) {
  const g = ctx.game();
  return (g && g.catalogue && g.catalogue[kind]) || [];
}

function cardRow(ctx, id) {
  return catalogue(ctx, "cards").find((c) => c.id === id) || { id, name: id, text: "" };
}

function monsterName(ctx, id) {
  const row = catalogue(ctx, "monsters").find((m) => m.id === id);
  return row ? ctx.loc(row.name) : id;
}

function who(ctx, snap, pid) {
  const p = (snap.players || []).find((x) => x.id === pid);
  return p ? ctx.playerName(p) : pid || "";
}

export function init(slots, ctx) {
  const { h } = ctx;
  ctxRef = ctx;
  els = {
    tokyo: h("section", { class: "card", id: "kot-tokyo" }),
    monsters: h("section", { class: "kot-monsters", id: "players" }),
    dice: h("section", { class: "card", id: "kot-roll", hidden: true }),
    market: h("section", { class: "card", id: "kot-market" }),
    recap: h("section", { class: "card", id: "kot-recap", hidden: true }),
    events: h("section", { class: "card", id: "kot-log" }),
  };
  ctx.fill(slots.board, els.tokyo, els.monsters);
  ctx.fill(slots.dice, els.dice);
  ctx.fill(slots.tools, els.recap, els.market, els.events);
}

function renderTokyo(snap, ctx) {
  const { h, fill, text } = ctx;
  const tokyo = snap.tokyo || {};
  const five = (snap.players || []).length >= 5;
  const place = (key, holder, open) => h("div", {
    class: "kot-place" + (holder ? " held" : "") + (open ? "" : " closed"), data: { place: key, holder: holder || "" },
  }, h("small", { text: text("place." + key) }), h("b", { text: holder ? who(ctx, snap, holder) : "—" }));
  fill(els.tokyo, h("h2", { text: text("place.tokyo") }), h("div", { class: "kot-tokyo" },
    place("city", tokyo.city, true), five ? place("bay", tokyo.bay, tokyo.bay_open) : null));
}

function renderMonsters(snap, ctx) {
  const { h, fill, text, loc } = ctx;
  const pending = snap.pending || {};
  fill(els.monsters, ...(snap.players || []).map((p) => {
    const asked = pending.kind === "yield" && pending.player === p.id;
    const cards = (p.cards || []).map((c) => {
      const row = cardRow(ctx, c.id);
      let label = loc(row.name);
      if (c.copy) label += ` → ${loc(cardRow(ctx, c.copy).name)}`;
      if (c.counters != null) label += ` (${c.counters})`;
      if (c.tokens != null) label += ` (${c.tokens})`;
      return h("button", { class: "kot-chip", type: "button", data: { card: c.id, uid: String(c.uid) },
        onclick: () => ctx.info(loc(row.name), loc(row.text)) }, label);
    });
    const tokens = [["poison", p.poison], ["shrink", p.shrink]].filter(([, n]) => n > 0)
      .map(([k, n]) => h("span", { class: "kot-token", data: { token: k } }, `${text("token." + k)} ×${n}`));
    return h("article", {
      class: "kot-monster player" + (p.active ? " active" : "") + (p.alive ? "" : " out") + (asked ? " asked" : ""),
      data: { player: p.id, location: p.location },
    },
    h("header", {}, h("strong", { class: "pname", text: (p.active ? "▶ " : "") + ctx.playerName(p) }),
      h("span", { class: "kot-loc " + p.location, text: text("place." + p.location) })),
    h("small", { class: "muted", text: monsterName(ctx, p.monster) }),
    h("div", { class: "kot-stats" },
      // the maximum beside the number ("10/10"): under the label it took a line of its own on a narrow card
      h("div", { data: { field: "health" } }, h("span", { class: "kot-value" }, h("b", { class: "health", text: `${p.health}` }),
        h("small", { class: "kot-max", text: `/${p.max_health}` })), h("small", { text: text("stat.health") })),
      h("div", { data: { field: "vp" } }, h("b", { class: "vp", text: `${p.vp}` }), h("small", { text: text("stat.vp") })),
      h("div", { data: { field: "energy" } }, h("b", { class: "energy", text: `${p.energy}` }), h("small", { text: text("stat.energy") }))),
    tokens.length || cards.length ? h("div", { class: "kot-chips" }, ...tokens, ...cards) : null,
    asked ? h("p", { class: "kot-ask", text: text(pending.jets ? "view.yield_jets" : "view.yield_ask", { name: ctx.playerName(p), damage: pending.damage }) }) : null,
    );
  }));
}

function oddsLabel(o, ctx) {
  return ctx.text("odds." + o.id, { count: o.count, hearts: o.hearts }) || o.id;
}

function renderDice(snap, ctx) {
  const { h, fill, text } = ctx;
  const dice = snap.dice || [];
  const rolling = snap.phase === "roll" && snap.pending && snap.pending.kind === "roll";
  els.dice.hidden = !dice.length || !["roll", "resolve", "buy"].includes(snap.phase);
  if (els.dice.hidden) return;
  const rolled = snap.rolls && snap.rolls.used > 0;
  const canKeep = rolling && rolled && ctx.paired();
  const toggle = (i) => {
    const kept = dice.map((d, k) => (k === i ? !d.kept : d.kept)).map((v, k) => (v ? k : -1)).filter((k) => k >= 0);
    ctx.act({ type: "keep", dice: kept }).catch(() => {});
  };
  const odds = snap.odds || [];
  fill(els.dice,
    h("h2", { text: `${text("led.0")} ${snap.rolls ? `${snap.rolls.used}/${snap.rolls.max}` : ""}` }),
    rolling && rolled ? h("p", { class: "muted", text: text("throw.note") }) : null,
    h("div", { class: "kot-dice", id: "kot-dice" }, dice.map((d, i) => dieNode(d.face, d.colour, ctx, {
      button: canKeep && d.face, kept: d.kept, index: i, onclick: canKeep && d.face ? () => toggle(i) : null }))),
    odds.length ? h("details", { open: true }, h("summary", { text: text("odds.title") }),
      h("ul", { class: "kot-odds", id: "kot-odds" }, odds.map((o) => h("li", { data: { goal: o.id } },
        h("span", { text: oddsLabel(o, ctx) }),
        o.keep ? h("span", { class: "keep" }, o.keep.length
          ? [h("small", { text: text("odds.keep") + " " }), ...o.keep.map((f) => dieNode(f, "black", ctx, { small: true }))]
          : h("small", { text: text("odds.reroll_all") })) : null,
        h("b", { text: `${Math.round(o.chance * 100)}%` }))))) : null,
  );
}

function renderMarket(snap, ctx) {
  const { h, fill, text, loc } = ctx;
  const buying = snap.phase === "buy" && snap.pending && snap.pending.kind === "buy" && ctx.paired();
  const active = (snap.players || []).find((p) => p.id === snap.active);
  const energy = active ? active.energy : 0;
  const cards = (snap.market || []).map((m, slot) => {
    if (!m) return h("div", { class: "kot-card muted", text: "—" });
    const row = cardRow(ctx, m.id);
    return h("div", { class: "kot-card", data: { slot: String(slot), card: m.id } },
      h("strong", { text: loc(row.name) }),
      h("span", { class: "cost", text: m.price !== m.cost ? `${m.price} (${m.cost})` : `${m.cost}` }),
      h("p", { text: `${text("card." + row.type)} · ${loc(row.text)}` }),
      buying ? h("button", { class: "big", type: "button", data: { buy: String(slot) }, disabled: energy < m.price || null,
        onclick: () => ctx.act({ type: "buy", slot }).catch(() => {}) }, `${text("action.buy")} (${m.price})`) : null);
  });
  fill(els.market, h("h2", { text: `${text("market")} · ${snap.deck ?? 0}` }),
    h("div", { class: "kot-market" }, cards),
    buying ? h("button", { class: "big", type: "button", id: "kot-sweep", disabled: energy < 2 || null,
      onclick: () => ctx.act({ type: "sweep" }).catch(() => {}) }, text("sweep")) : null);
}

// -- the log: the engine's events, worded by the game's `log.<type>` texts ------------------------------
function eventParams(e, snap, ctx) {
  const { loc, text } = ctx;
  const out = {};
  for (const [k, v] of Object.entries(e)) {
    if (k === "player" || k === "by") out[k] = who(ctx, snap, v);
    else if (k === "place") out[k] = text("place." + v) || v;
    else if (k === "card") out[k] = loc(cardRow(ctx, v).name);
    else if (k === "dice") out[k] = (v || []).map((f) => faceName(f, ctx)).join(" ");
    else if (k === "targets" || k === "players" || k === "winners") out[k] = (v || []).map((x) => who(ctx, snap, x)).join(", ");
    else if (k === "change") out[k] = v > 0 ? `+${v}` : `${v}`;
    else if (k === "token") out[k] = text("token." + v) || v;
    else if (k === "face") out[k] = faceName(v, ctx);
    else if (k === "die") out[k] = String(Number(v) + 1);
    else out[k] = v;
  }
  if (e.type === "lost") out.change = String(-e.change);
  return out;
}

export function eventText(e, snap, ctx = ctxRef) {
  if (e.type === "claws" && !(e.targets || []).length) return ctx.text("log.claws_none", eventParams(e, snap, ctx));
  if (e.type === "game_over") {
    const names = eventParams(e, snap, ctx).winners;
    return ctx.text(e.why === "vp" ? "win.vp" : (names ? "win.last" : "win.none"), { names });
  }
  return ctx.text("log." + e.type, eventParams(e, snap, ctx));
}

// Taps on the dice keep them one at a time: the log shows what was kept in the end, one line per run of taps.
function keptOnce(events) {
  return events.filter((e, i) => !(e.type === "kept" && events[i + 1] && events[i + 1].type === "kept"));
}

function renderEvents(snap, ctx) {
  const { h, fill, text } = ctx;
  // "resolved" repeats the last throw's dice: the log shows each throw once
  const events = keptOnce((snap.events || []).filter((e) => e.type !== "resolved" && (ctx.text("log." + e.type) != null || e.type === "game_over")));
  els.events.hidden = !events.length;
  fill(els.events, h("h2", { text: text("view.events") }),
    h("ol", { class: "kot-events", id: "kot-events", reversed: true }, events.slice().reverse().slice(0, 18).map((e) =>
      h("li", { data: { type: e.type } }, e.type === "rolled" ? [
        h("span", { text: `${who(ctx, snap, e.player)} ` }), ...(e.dice || []).map((f) => dieNode(f, "black", ctx, { small: true }))]
        : eventText(e, snap, ctx)))));
}

// The recap once the game is over: each monster's final numbers and its story in the game's counts.
function renderRecap(snap, ctx) {
  const { h, fill, text } = ctx;
  els.recap.hidden = !snap.over;
  if (!snap.over) return;
  const stats = snap.stats || {};
  const rows = (snap.players || []).slice().sort((a, b) => (snap.winners || []).includes(b.id) - (snap.winners || []).includes(a.id) || b.vp - a.vp);
  fill(els.recap, h("h2", { text: text("view.recap") }), h("div", { class: "kot-recap" }, rows.map((p) => {
    const st = stats[p.id] || {};
    return h("div", { class: "kot-recap-row" + ((snap.winners || []).includes(p.id) ? " won" : ""), data: { player: p.id } },
      h("strong", { text: `${(snap.winners || []).includes(p.id) ? "★ " : ""}${ctx.playerName(p)} · ${monsterName(ctx, p.monster)}` }),
      h("div", { class: "kot-recap-stats" },
        [["stat.vp", p.vp], ["stat.health", p.health], ["recap.damage", st.damage], ["recap.taken", st.taken],
          ["recap.healed", st.healed], ["recap.cards", st.cards], ["recap.tokyo_turns", st.tokyo_turns]]
          .map(([k, v]) => h("span", { data: { field: k } }, h("b", { text: String(v ?? 0) }), h("small", { text: " " + text(k) })))));
  })));
}

export function render(slots, snap, ctx) {
  ctxRef = ctx;
  renderRecap(snap, ctx);
  renderTokyo(snap, ctx);
  renderMonsters(snap, ctx);
  renderDice(snap, ctx);
  renderMarket(snap, ctx);
  renderEvents(snap, ctx);
}

// -- the pending decision's options in the page's language -------------------------------------------------
export function optionLabel(option, snap, ctx) {
  const a = option.action || {};
  const { text, loc } = ctx;
  switch (a.type) {
    case "roll": return Array.isArray(a.dice) ? text("action.roll") : text("action.roll_virtual");
    case "resolve": case "end": case "stay": case "yield": case "sweep": case "pass": return text("action." + a.type);
    case "keep": {  // the dice it keeps, by face (the action names them by their place on the tray)
      const faces = (Array.isArray(a.dice) ? a.dice : []).map((k) => ((snap.dice || [])[k] || {}).face).filter(Boolean);
      return text("log.kept", { dice: faces.map((f) => faceName(f, ctx)).join(" ") || "—" });
    }
    case "buy":
      if (a.slot != null && snap.market && snap.market[a.slot]) return `${text("action.buy")}: ${loc(cardRow(ctx, snap.market[a.slot].id).name)}`;
      return text("action.buy");
    case "defend": return text("action.defend_" + a.with) || a.with;
    case "cure": return text("action.cure", { poison: a.poison, shrink: a.shrink });
    case "heal_other": return `${loc(cardRow(ctx, "healing_ray").name)}: ${who(ctx, snap, a.target)}`;
    case "extra_roll": case "change_die": return loc(cardRow(ctx, a.card).name);
    case "probe": return `${loc(cardRow(ctx, "psychic_probe").name)}: ${Number(a.die) + 1}`;
    case "sell": case "mimic": {
      const uid = a.type === "sell" ? a.uid : a.target;
      for (const p of snap.players || []) for (const c of p.cards || []) if (c.uid === uid) return `${text("action." + a.type)}: ${loc(cardRow(ctx, c.id).name)}`;
      return text("action." + a.type);
    }
    default: return null;
  }
}

// Keeping dice and buying are done on the board (tap a die, the market's buttons), not as option buttons.
export function hideOption(option, snap) {
  const a = option.action || {};
  if (a.type === "roll" && Array.isArray(a.keep)) return true;
  if (snap.pending && snap.pending.kind === "buy" && (a.type === "buy" || a.type === "sweep")) return true;
  return false;
}

// Hand entry draws the King of Tokyo faces (side 1..6 = 1, 2, 3, heart, energy, claw).
export function entryFaces() {
  return ["1", "2", "3", "heart", "lightning", "claw"];
}

// -- the numbered log: a run of taps on the dice is one row -------------------------------------------------
// Each tap is its own action (one undo step), and the match's log keeps every one. The page's log shows a run
// of taps between two throws as one row: the faces kept at its end. Those faces are the tray's at the time,
// which the engine's `kept` events name (today's tray has other dice on those places after a reroll). The keeps
// not undone and the kept events are the same list in the same order, so they pair from the end.

function isKeep(e) {
  return Boolean(e && e.action && e.action.type === "keep");
}

// The seqs of the log's entries that an undo took back (and no redo brought back): they made no event.
function undoneSeqs(log) {
  const done = [];
  const back = [];  // what a redo may bring back: a new action empties it, its entries stay undone
  const gone = new Set();
  for (const e of log) {
    const type = e.action && e.action.type;
    if (type === "undo" && done.length) { back.push(done.pop()); gone.add(back[back.length - 1]); }
    else if (type === "redo" && back.length) { done.push(back.pop()); gone.delete(done[done.length - 1]); }
    else if (type !== "undo" && type !== "redo") { done.push(e.seq); back.length = 0; }
  }
  return gone;
}

// seq -> the keep's `kept` event ({player, dice: faces, at: places}), for the keeps whose event is still in
// the snapshot; pairing stops at the first keep whose places differ from its event's (the tails disagree).
function keptEvents(log, snap) {
  const gone = undoneSeqs(log);
  const keeps = log.filter((e) => isKeep(e) && !gone.has(e.seq));
  const events = (snap.events || []).filter((e) => e.type === "kept");
  const out = new Map();
  for (let i = keeps.length - 1, j = events.length - 1; i >= 0 && j >= 0; i--, j--) {
    const places = (Array.isArray(keeps[i].action.dice) ? keeps[i].action.dice : []).slice().sort((a, b) => a - b);
    if (places.join() !== (events[j].at || []).join()) break;
    out.set(keeps[i].seq, events[j]);
  }
  return out;
}

// The faces on the tray's places while the dice are being kept, for each keep's seq: taps (with their undos
// and redos) between two throws see one tray, which their events name place by place, and today's tray when
// they are the log's last entries (no throw since).
function trayFaces(log, events, snap) {
  const out = new Map();
  const between = (e) => isKeep(e) || ["undo", "redo"].includes(e.action && e.action.type);
  for (let n = 0; n < log.length;) {
    let end = n;
    while (end < log.length && between(log[end])) end++;
    const at = new Map();
    if (end === log.length) (snap.dice || []).forEach((d, k) => { if (d.face) at.set(k, d.face); });
    for (const e of log.slice(n, end)) {
      const ev = events.get(e.seq);
      if (ev) (ev.at || []).forEach((k, i) => at.set(k, ev.dice[i]));
      out.set(e.seq, at);
    }
    n = Math.max(end, n + 1);
  }
  return out;
}

// One row for a run of taps: the last tap's action, with the player and the faces it left kept.
function foldRun(run, events, faces) {
  const end = run[run.length - 1];
  const at = faces.get(end.seq) || new Map();
  const player = end.action.player || run.map((e) => events.get(e.seq)).filter(Boolean).map((ev) => ev.player).pop();
  const kept = (Array.isArray(end.action.dice) ? end.action.dice : []).slice().sort((a, b) => a - b).map((k) => at.get(k) || "?");
  return { seq: end.seq, from: run.length > 1 ? run[0].seq : null, action: { ...end.action, player, faces: kept } };
}

export function foldLog(log, snap) {
  const events = keptEvents(log, snap);
  const faces = trayFaces(log, events, snap);
  const rows = [];
  let run = [];
  for (const e of log) {
    if (isKeep(e)) { run.push(e); continue; }
    if (run.length) rows.push(foldRun(run, events, faces));
    run = [];
    rows.push(e);
  }
  if (run.length) rows.push(foldRun(run, events, faces));
  return rows;
}

export function logLine(action, snap, ctx) {
  if (!action) return null;
  const name = action.player ? `${who(ctx, snap, action.player)}: ` : "";
  if (action.type === "keep" && Array.isArray(action.faces)) {
    return [name + ctx.text("log.kept", { dice: action.faces.map((f) => (f === "?" ? f : faceName(f, ctx))).join(" ") || "—" })];
  }
  if (action.type === "roll" && Array.isArray(action.dice)) {
    const faces = action.dice.map((d) => {
      if (typeof d === "number") return FACES[d - 1];
      if (typeof d === "object" && d) return d.face || FACES[(d.value || 1) - 1];
      return String(d);
    });
    return [name + (ctx.text("action.roll") || ""), ctx.h("span", {}, faces.map((f) => dieNode(f, "black", ctx, { small: true })))];
  }
  const label = optionLabel({ action }, snap, ctx);
  return label != null ? [name + label] : null;
}
