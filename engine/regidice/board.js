// Regidice's board view (docs/architecture.md, "Board views"): the enemy with its dice and defence, every
// player's pool by colour (hidden dice drawn as "?" in their colour until the Collect phase), the wounded
// pile, the values declared this round (taken ones greyed), the dice that change hands in Collect, what each
// action did, the suffer step and the dice prepared for the left neighbour; odds while declaring; a colour
// by colour entry of this phone's own roll. Every word comes from the game's description ("view.*",
// "option.*", "colour.*", "parity.*" texts and the catalogue) in en, zh-TW and ko.

let ctx = null;
let els = null;
const entry = {};  // die id -> value this phone is entering for its own roll

function T(key, vars = {}) {
  return ctx.text("view." + key, vars) ?? key;
}

function word(key, fallback) {
  return ctx.text(key) ?? fallback;
}

function catalogue(kind) {
  const game = ctx.game();
  return (game && game.catalogue && game.catalogue[kind]) || [];
}

function actionName(id) {
  const row = catalogue("actions").find((a) => a.id === id);
  return row ? ctx.loc(row.name) : id;
}

function spellName(colour) {
  const row = catalogue("spells").find((s) => s.id === colour);
  return row ? ctx.loc(row.name) : colour;
}

const colourName = (c) => word("colour." + c, c);
// A die of the log by its colour (and pips when the action names it by face): ids ("R4", the fourth red
// die) are the engine's, not the players' words.
const ID_COLOURS = { R: "red", B: "blue", Y: "yellow", K: "black" };
function dieWord(d) {
  if (d && typeof d === "object") return `${colourName(d.colour)} ${d.pips ?? ""}`.trim();
  const colour = ID_COLOURS[String(d)[0]];
  return colour ? colourName(colour) : String(d);
}
const parityName = (p) => word("parity." + p, p);

function playerById(snap, id) {
  return (snap.players || []).find((p) => p.id === id) || null;
}

function nameOf(snap, id) {
  const p = playerById(snap, id);
  return p ? ctx.playerName(p) : id || "";
}

function die(d, opts = {}) {
  const label = d.pips == null ? `${colourName(d.colour)} ?` : `${colourName(d.colour)} ${d.pips}`;
  const node = ctx.dieElement(d.pips, { colour: d.colour, label, ...opts });
  node.dataset.die = d.id || "";
  if (d.used) node.style.opacity = "0.55";
  return node;
}

function declaration(decl) {
  if (!decl) return "";
  if (decl.action === "cast") return `${actionName("cast")} · ${colourName(decl.colour)} ${parityName(decl.parity)}`;
  if (decl.value != null) return `${actionName(decl.action)} · ${decl.value}`;
  return actionName(decl.action);
}

// -- sections, made once ----------------------------------------------------------------------------
export function init(slots, c) {
  ctx = c;
  const { h } = ctx;
  els = {
    result: h("section", { class: "card", id: "rdresult", hidden: true }, h("h2", {})),
    enemy: h("section", { class: "card", id: "rdenemy" }),
    players: h("section", { class: "players", id: "rdplayers" }),
    wounded: h("section", { class: "card", id: "rdwounded" }),
    entry: h("section", { class: "card", id: "rdentry", hidden: true }),
    mine: h("section", { class: "card", id: "rdmine", hidden: true }),
    values: h("section", { class: "card", id: "rdvalues", hidden: true }),
    collect: h("section", { class: "card", id: "rdcollect", hidden: true }),
    round: h("section", { class: "card", id: "rdround", hidden: true }),
  };
  // your own dice sit above the decision (the declare list's buttons), so you choose looking at them
  ctx.fill(slots.board, els.result, els.enemy, els.mine, els.players, els.wounded);
  ctx.fill(slots.dice, els.entry, els.values, els.collect);
  ctx.fill(slots.tools, els.round);
}

export function render(slots, snap) {
  if (!snap || !snap.enemy) return;
  renderResult(snap);
  renderEnemy(snap);
  renderPlayers(snap);
  renderWounded(snap);
  renderEntry(snap);
  renderMine(snap);
  renderValues(snap);
  renderCollect(snap);
  renderRound(snap);
}

function renderResult(snap) {
  els.result.hidden = !snap.result;
  if (snap.result) els.result.querySelector("h2").textContent = T(snap.result);
  els.result.dataset.result = snap.result || "";
}

function renderEnemy(snap) {
  const { h, fill } = ctx;
  const e = snap.enemy;
  const row = catalogue("enemies").find((x) => x.number === e.number);
  fill(els.enemy,
    h("h2", {}, h("span", { text: T("enemy_of", { n: e.number }) }), row ? h("small", { class: "muted", text: " " + ctx.loc(row.name) }) : null),
    e.dice.length ? h("div", { class: "dice", id: "rdenemydice" }, e.dice.map((d) => die({ ...d, colour: "black" })))
      : h("p", { class: "muted", text: snap.result === "victory" ? T("victory") : T("suffer_skipped") }),
    h("div", { class: "chips" },
      h("span", { class: "chip", data: { stat: "defence" } }, h("span", { text: T("defence") }), h("b", { text: String(e.defence_round) })),
      h("span", { class: "chip", data: { stat: "attack" } }, h("span", { text: T("attack_value") }), h("b", { text: String(e.attack) })),
      h("span", { class: "chip", data: { stat: "to_defeat" } }, h("span", { text: T("to_defeat") }), h("b", { text: String(e.to_defeat) })),
      h("span", { class: "chip", data: { stat: "round" } }, h("span", { text: T("round") }), h("b", { text: String(snap.round) }))),
  );
  els.enemy.dataset.defence = String(e.defence_round);
}

function renderPlayers(snap) {
  const { h, fill } = ctx;
  fill(els.players, ...(snap.players || []).map((p) => {
    const active = p.id === snap.active;
    const mine = p.id === snap.viewer;
    const hidden = p.pool.some((d) => d.pips == null);
    const colours = Object.entries(p.colours || {}).map(([c, n]) => `${n} ${colourName(c)}`).join(" · ");
    const res = p.resolved;
    return h("article", { class: "player" + (active ? " active" : ""), data: { player: p.id, phase: active ? snap.phase : "" } },
      h("header", {},
        h("strong", { class: "pname", title: p.first ? T("first") : null,
          text: (active ? "▶ " : "") + ctx.playerName(p) + (mine ? ` (${T("you")})` : "") + (p.first ? " ①" : "") }),
        p.declared ? h("span", { class: "chip", data: { declared: p.declared.action } }, h("span", { text: declaration(p.declared) })) : null),
      // a player with no dice left has no colours to list: no separator before nothing
      h("p", { class: "muted" }, h("small", { text: [`${T("pool")}: ${p.count}`, colours].filter(Boolean).join(" · ") }),
        snap.phase === "roll" ? h("small", { text: " · " + (p.rolled ? T("rolled") : T("not_rolled")) }) : null),
      h("div", { class: "dice small rdpool", data: { hidden: hidden ? "1" : "" } }, p.pool.map((d) => die(d))),
      p.prepared.length ? h("p", { class: "muted" }, h("small", { text: T("prepared_for", { name: ctx.playerName(p) }) + " " }),
        h("span", { class: "dice small" }, p.prepared.map((d) => die(d)))) : null,
      res ? h("p", { class: "rdres", data: { result: res.action } }, h("small", { text: resultText(res) })) : null,
    );
  }));
}

function resultText(res) {
  const parts = [];
  if (res.action === "attack") parts.push(T("result_attack", { n: res.damage || 0 }));
  if (res.action === "block") parts.push(T("result_block", { n: res.block || 0 }));
  if (res.action === "heal") parts.push(T("result_heal", { n: res.healed || 0 }));
  if (res.action === "cast") {
    parts.push(T("result_cast", { n: (res.sets || []).length }));
    if (res.damage) parts.push(T("result_attack", { n: res.damage }));
    if (res.block) parts.push(T("result_block", { n: res.block }));
    if (res.healed) parts.push(T("result_heal", { n: res.healed }));
    if (res.death) parts.push(T("death"));
  }
  if (res.action === "companion") parts.push(T("result_nudges", { n: res.nudges || 0 }));
  return parts.join(" · ");
}

function renderWounded(snap) {
  const { h, fill } = ctx;
  fill(els.wounded,
    h("h2", {}, h("span", { text: T("wounded") }), h("small", { class: "muted", text: ` ${snap.wounded.length}` })),
    snap.wounded.length ? h("div", { class: "dice small" }, snap.wounded.map((d) => die(d))) : h("p", { class: "muted", text: T("wounded_empty") }));
}

// -- this phone's own roll, entered colour by colour ------------------------------------------------
function myRoller(snap) {
  const input = ctx.diceInput(snap);
  if (!input || snap.phase !== "roll" || !ctx.paired()) return null;
  if (snap.viewer) {
    const me = playerById(snap, snap.viewer);
    return me && !me.rolled && me.count ? me : null;
  }
  return playerById(snap, input.player);  // a phone not bound to a seat enters for the player the box waits for
}

// The page's own pad enters numbers only; a Regidice roll needs each die's colour, so this view enters it.
export function ownEntry(snap) {
  return Boolean(ctx && ctx.diceInput(snap));
}

// Dice the camera read on the tray (with their colours) fill the entry, so an unsure reading is fixed here.
function fromTray(snap, dice) {
  const read = ((snap.tray && snap.tray.dice) || []).filter((d) => d.colour && d.value);
  if (!read.length || dice.some((d) => entry[d.id])) return;
  const byColour = {};
  for (const d of read) (byColour[d.colour] = byColour[d.colour] || []).push(d.value);
  for (const d of dice) {
    const v = (byColour[d.colour] || []).shift();
    if (v) entry[d.id] = v;
  }
}

function renderEntry(snap) {
  const { h, fill } = ctx;
  const me = myRoller(snap);
  els.entry.hidden = !me;
  if (!me) return;
  const dice = me.pool;
  for (const id of Object.keys(entry)) if (!dice.some((d) => d.id === id)) delete entry[id];
  fromTray(snap, dice);
  const ready = dice.every((d) => entry[d.id]);
  fill(els.entry,
    h("h2", { text: `${T("enter_dice")} · ${ctx.playerName(me)}` }),
    h("p", { class: "muted", text: T("enter_hint") }),
    h("div", { class: "dice", id: "rdentrydice" }, dice.map((d) => {
      const b = h("button", { class: "diebtn", type: "button", data: { die: d.id, colour: d.colour },
        onclick: () => { entry[d.id] = (entry[d.id] || 0) % 6 + 1; renderEntry(ctx.S.snap); } });
      b.append(die({ ...d, pips: entry[d.id] || null }));
      return b;
    })),
    h("button", { class: "big primary", type: "button", id: "rdsend", disabled: !ready || null,
      onclick: () => {
        const roll = dice.map((d) => ({ colour: d.colour, value: entry[d.id] }));
        ctx.act({ type: "roll", player: me.id, dice: roll, source: "manual" }).then(() => {
          for (const d of dice) delete entry[d.id];
        }).catch(() => {});
      } }, T("send")));
}

// -- this phone's own hidden dice, large, while only it may see them --------------------------------
function renderMine(snap) {
  const { h, fill } = ctx;
  const me = snap.viewer ? playerById(snap, snap.viewer) : null;
  const shown = me ? me.pool.filter((d) => d.pips != null) : [];
  els.mine.hidden = !(snap.hidden && shown.length);
  if (els.mine.hidden) return;
  const byValue = [1, 2, 3, 4, 5, 6].map((v) => shown.filter((d) => d.pips === v).length);
  fill(els.mine,
    h("h2", { text: `${T("your_dice")} · ${ctx.playerName(me)}` }),
    h("div", { class: "dice", id: "rdminedice" }, shown.map((d) => die(d))),
    h("p", { class: "muted" }, h("small", { text: byValue.map((n, i) => n ? `${i + 1}×${n}` : null).filter(Boolean).join("  ") })));
}

// -- declare: values taken so far, and odds from public facts ---------------------------------------
function renderValues(snap) {
  const { h, fill } = ctx;
  els.values.hidden = snap.phase !== "declare";
  if (els.values.hidden) return;
  const owner = {};
  for (const p of snap.players) if (p.declared && p.declared.value != null) owner[p.declared.value] = p;
  const odds = snap.odds || {};
  fill(els.values,
    h("h2", { text: T("values") }),
    h("div", { class: "dice", id: "rdtaken" }, [1, 2, 3, 4, 5, 6].map((v) => {
      const p = owner[v];
      const node = h("span", { class: "rdvalue", data: { value: String(v), taken: p ? "1" : "" }, title: p ? ctx.playerName(p) : null },
        ctx.dieElement(v, { label: p ? `${v} · ${ctx.playerName(p)}` : String(v) }));
      if (p) node.style.opacity = "0.3";  // taken values greyed (CSSOM: the page's CSP forbids style attributes)
      return node;
    })),
    odds.others != null ? h("div", { class: "odds", id: "rdodds" },
      h("small", { text: T("odds_value", { others: odds.others, p: Math.round((odds.value_any || 0) * 100), e: odds.value_expected }) }),
      h("br", {}),
      h("small", { text: T("odds_cast", { list: Object.entries(odds.cast_expected || {}).filter(([, n]) => n > 0).map(([c, n]) => `${colourName(c)} ${n}`).join(", ") }) }))
      : null);
}

// -- collect, die by die ----------------------------------------------------------------------------
function renderCollect(snap) {
  const { h, fill } = ctx;
  const moves = snap.collect || [];
  els.collect.hidden = !["collect", "resolve"].includes(snap.phase);
  if (els.collect.hidden) return;
  fill(els.collect,
    h("h2", { text: T("collect") }),
    moves.length ? h("ol", { class: "rolls", id: "rdmoves" }, moves.map((m) => h("li", { data: { die: m.die, step: m.step } },
      die({ id: m.die, colour: m.colour, pips: m.pips }, { size: "small" }),
      h("span", { text: ` ${nameOf(snap, m.from)} → ${nameOf(snap, m.to)} ` }),
      h("small", { class: "muted", text: T("step_" + m.step) }))))
      : h("p", { class: "muted", text: T("nothing_moves") }));
}

// -- what happened this round: resolve, suffer, prepare -------------------------------------------
function renderRound(snap) {
  const { h, fill } = ctx;
  const lines = [];
  const s = snap.suffer;
  if (s) {
    lines.push(s.damage ? T("suffer_hit", s) : T("suffer_none", s));
    if (s.target) lines.push(`${nameOf(snap, s.target)}: ${s.lost.join(" ")}`);
  } else if (snap.enemy.defeated || (snap.events || []).some((e) => e.type === "enemy_defeated")) {
    lines.push(T("suffer_skipped"));
  }
  for (const e of snap.events || []) {
    if (e.type === "prepared" && e.dice.length) lines.push(`${nameOf(snap, e.player)} → ${nameOf(snap, e.for)}: ${e.dice.join(" ")}`);
    if (e.type === "touch_of_death") lines.push(`${nameOf(snap, e.player)}: ${spellName("black")}`);
  }
  els.round.hidden = lines.length === 0;
  fill(els.round, h("h2", { text: `${T("round")} ${snap.round}` }), h("ul", { id: "rdstory" }, lines.map((l) => h("li", { text: l }))));
}

// -- option labels and groups in the page's language -----------------------------------------------
export function optionLabel(option, snap) {
  if (!option.text) return null;
  const a = { ...(option.args || {}) };
  if (a.colour) a.colour = colourName(a.colour);
  if (a.parity) a.parity = parityName(a.parity);
  if (a.player) a.player = nameOf(snap, a.player);
  const text = ctx.text(option.text, a);
  if (text == null) return null;
  if (option.text === "option.nudge" && option.args.player) return `${nameOf(snap, option.args.player)}: ${text}`;
  return text;
}

export function optionGroup(option) {
  const key = option.text || "";
  if (key === "option.declare_cast") return T("cast_group");
  if (key === "option.nudge") return T("nudge_group");
  if (key === "option.prepare_one") return T("prepare_group");
  return null;
}

// Log lines in the page's language: a roll shows its colours only (the engine sends no pips of a hidden
// roll), a declaration what was declared.
export function logLine(action, snap) {
  if (!action) return null;
  const who = action.player ? nameOf(snap, action.player) : "";
  if (action.type === "roll") {
    const counts = {};
    for (const d of action.dice || []) counts[d.colour] = (counts[d.colour] || 0) + 1;
    const dice = Object.entries(counts).map(([c, n]) => `${n} ${colourName(c)}`).join(" · ");
    return [`${who}: ${ctx.phaseLabel("roll")}`, dice ? ` (${dice})` : ""];
  }
  if (action.type === "declare") return [`${who}: ${declaration(action)}`];
  if (action.type === "nudge") return [`${who}: +1 ${dieWord(action.die)}`];
  if (action.type === "prepare") return [`${who}: ${ctx.phaseLabel("prepare")} ${(action.dice || []).map(dieWord).join(" · ")}`];
  if (action.type === "resolve" || action.type === "suffer") return [`${who}: ${ctx.phaseLabel(action.type)}`];
  if (action.type === "advance") return [ctx.phaseLabel("resolve")];
  return null;
}
