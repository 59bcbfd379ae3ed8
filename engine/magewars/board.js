// Mage Wars' board view (docs/architecture.md, "Board views"): each mage's status board and the creatures
// and conjurations the players registered, the attack in progress with its dice worked out and the battle
// calculator, the last strike step by step, the channeling and upkeep lists, one throw of attack dice with
// the effect die entered together, an attack builder, registering and correcting objects, and the story of
// the duel. Every word comes from the game's description: texts ("view.*", "term.*", "rule.*",
// "outcome.*", "log.*", "option.*") and catalogue (mages, conditions) in en/zh-TW/ko.

let ctx = null;
let els = null;
let entry = { faces: [], from: [], effect: null, read: "" };
let entryKey = "";

const ATTACK = "magewars-attack";
// the attack die's sides 1-6 as hand entry numbers them (docs/actions.md, Mage Wars: dice and the tray)
const SIDE_FACES = ["blank", "blank", "1", "2", "1*", "2*"];
const EFFECT = "d12";
const FACE_NAMES = ["blank", "1", "2", "1*", "2*"];
const TYPES = ["physical", "flame", "acid", "lightning", "poison", "psychic", "frost", "holy", "dark", "wind",
  "hydro", "light", "arcane"];
const TRAITS = ["nonliving", "incorporeal", "resilient", "burnproof", "unmovable", "uncontainable", "plant"];

// -- the game's words -------------------------------------------------------------------------------
const V = (key, vars = {}) => ctx.text("view." + key, vars) ?? key;
const X = (key, vars = {}) => ctx.text(key, vars);

function catalogue(kind) {
  const game = ctx.game();
  return Object.fromEntries(((game && game.catalogue && game.catalogue[kind]) || []).map((r) => [r.id, r]));
}

const condName = (id) => { const c = catalogue("conditions")[id]; return c ? ctx.loc(c.name) : id; };
const objects = (snap) => Object.fromEntries((snap.objects || []).map((o) => [o.id, o]));
const playerOf = (snap, id) => (snap.players || []).find((p) => p.id === id);
const pname = (snap, id) => { const p = playerOf(snap, id); return p ? ctx.playerName(p) : id; };

function objName(snap, id) {
  const o = objects(snap)[id];
  if (!o) return id;
  if (o.kind === "mage") {
    const m = catalogue("mages")[playerOf(snap, o.id)?.mage_id];
    return `${pname(snap, o.id)} (${m ? ctx.loc(m.name) : o.name})`;
  }
  return o.name;
}

// A die drawn as its face: the description's glyph for the set ("blank", "text:2", "icon:starburst+text:1"),
// read aloud by the face's name in the page's language ("빈 면", "爆擊 1").
function face(setId, name, extra = {}) {
  const game = ctx.game();
  const set = game && game.dice_sets[setId];
  const f = set ? set.faces.find((x) => x.name === String(name)) : null;
  const label = f && f.label ? ctx.loc(f.label) : String(name);
  return ctx.dieElement(f ? f.index : name, { face: String(name), glyph: f ? f.glyph : null, label, ...extra });
}

// An attack die's face in the page's language, as words ("빈 면", "爆擊 1"; a plain 1 or 2 as it is).
function faceWord(name) {
  const set = (ctx.game() || {}).dice_sets?.[ATTACK];
  const f = set && set.faces.find((x) => x.name === name);
  return f && f.label ? ctx.loc(f.label) : name;
}

// An attack's name: the one the players gave it, else "Attack" in the page's language (an attack left
// unnamed is stored with no name, so every phone names it in its own language).
const attackName = (name) => name || V("attack");
const damageType = (t) => X("cause." + t) ?? t;

// The effect table as typed on this phone ("7+ = 화상") with each condition named by its id ("7+ = burn"),
// the words the engine reads: a player writes the conditions in the page's language (or any of ours).
function effectsForEngine(typed) {
  const ids = {};
  for (const row of Object.values(catalogue("conditions"))) {
    ids[row.id.toLowerCase()] = row.id;
    for (const name of Object.values(row.name || {})) ids[String(name).toLowerCase()] = row.id;
  }
  return typed.split(/([;,，；])/).map((part) => {
    const m = /^(\s*[^=＝]*[=＝]\s*(?:\d+\s*)?)(.*?)(\s*)$/.exec(part);
    const id = m && ids[m[2].toLowerCase()];
    return id ? `${m[1].replace("＝", "=")}${id}${m[3]}` : part;
  }).join("").replace(/[，；]/g, (c) => (c === "，" ? "," : ";"));
}

// -- made once --------------------------------------------------------------------------------------
export function init(slots, c) {
  ctx = c;
  const { h } = ctx;
  els = {
    board: h("section", { id: "mwboard", class: "players mw" }),
    attack: h("section", { id: "mwattack", class: "card", hidden: true }),
    strike: h("section", { id: "mwstrike", class: "card", hidden: true }),
    list: h("section", { id: "mwlist", class: "card", hidden: true }),
    throw: h("section", { id: "mwthrow", class: "card entry", hidden: true }),
    builder: h("section", { id: "mwbuilder", class: "card", hidden: true }),
    register: h("section", { id: "mwregister", class: "card" }),
    fix: h("section", { id: "mwfix", class: "card" }),
    story: h("section", { id: "mwstory", class: "card" }),
  };
  ctx.fill(slots.board, els.board);
  ctx.fill(slots.dice, els.attack, els.throw, els.strike, els.list);
  ctx.fill(slots.tools, els.builder, els.register, els.fix, els.story);
}

export function render(slots, snap) {
  renderBoard(snap);
  renderAttack(snap);
  renderThrow(snap);
  renderStrike(snap);
  renderList(snap);
  renderBuilder(snap);
  renderRegister(snap);
  renderFix(snap);
  renderStory(snap);
}

// -- mages and objects ------------------------------------------------------------------------------
function chips(o) {
  const { h } = ctx;
  return Object.entries(o.conditions || {}).filter(([, n]) => n > 0).map(([id, n]) => {
    const c = catalogue("conditions")[id] || {};
    return h("button", { class: "chip mwcond", type: "button", data: { condition: id },
      onclick: () => ctx.info(`${condName(id)} · ${n}`, ctx.loc(c.text) || "") },
    h("span", { text: condName(id) }), h("b", { text: String(n) }));
  });
}

function stat(label, value, field) {
  const { h } = ctx;
  return h("div", { class: "stat", data: { field } }, h("small", { text: label }), h("b", { text: String(value) }));
}

// The Aegis, Regenerate and Tough the engine applies, each source stacked by its rule (highest, or summed).
function appliedTexts(o) {
  const a = o.applied || {};
  return [a.aegis ? `${X("term.aegis") ?? "Aegis"} ${a.aegis}` : null,
    a.regenerate ? X("view.item_regenerate", { n: a.regenerate }) : null,
    a.tough ? `${X("term.tough") ?? "Tough"} −${a.tough}` : null].filter(Boolean);
}

function kindBadge(snap, o) {
  if (o.kind === "enchantment") return o.on ? `${V("enchantment")} · ${V("enchanted")} ${objName(snap, o.on)}` : V("enchantment");
  if (o.kind === "conjuration") return V("conjuration");
  return o.activated ? V("activated") : V("ready");
}

function objectRow(snap, o) {
  const { h } = ctx;
  const badges = [o.guard ? V("guard") : null, kindBadge(snap, o), ...appliedTexts(o)].filter(Boolean);
  return h("li", { class: "mwobj" + (o.destroyed ? " out" : "") + (o.acting ? " acting" : ""), data: { object: o.id } },
    h("button", { type: "button", class: "linkish", onclick: () => ctx.info(o.name, describeObject(o)) },
      h("strong", { text: o.name })),
    o.life == null ? null : h("span", { class: "mwlife", text: `${o.left}/${o.life}` }),
    o.armor_now ? h("small", { text: `${V("armor")} ${o.armor_now}` }) : null,
    h("small", { class: "muted", text: badges.join(" · ") }),
    h("span", { class: "chips" }, chips(o)));
}

function describeObject(o) {
  const bits = o.life == null ? [V("enchantment")] : [`${V("life")} ${o.left}/${o.life}`, `${V("armor")} ${o.armor_now}`];
  bits.push(...appliedTexts(o));
  if (o.mana || o.channeling) bits.push(`${V("mana")} ${o.mana} (+${o.channeling})`);
  for (const a of o.attacks || []) bits.push(`${attackName(a.name)}: ${V("dice_n", { n: a.dice })}${a.effects.length ? " · " + effectsText(a.effects) : ""}`);
  return bits.join(" · ");
}

function effectsText(rows) {
  return rows.map((r) => `${r.min}${r.max == null ? "+" : r.max === r.min ? "" : "-" + r.max} = ${r.count > 1 ? r.count + " " : ""}${condName(r.condition)}`).join(", ");
}

function renderBoard(snap) {
  const { h, fill } = ctx;
  const objs = snap.objects || [];
  fill(els.board, ...(snap.players || []).map((p) => {
    const m = p.mage;
    const active = p.id === snap.active;
    const won = snap.winner === p.id;
    const mageRow = catalogue("mages")[p.mage_id];
    return h("article", { class: "player" + (active ? " active" : "") + (m.destroyed ? " out" : "") + (won ? " won" : ""),
      data: { player: p.id, phase: active ? snap.phase : "" } },
      h("header", {},
        h("strong", { class: "pname", text: (active ? "▶ " : "") + ctx.playerName(p) }),
        h("small", { class: "muted", text: mageRow ? ctx.loc(mageRow.name) : m.name }),
        snap.initiative === p.id ? h("span", { class: "badge", text: V("initiative") }) : null,
        m.quickcast ? h("span", { class: "badge", text: V("quickcast") }) : null),
      h("div", { class: "stats" },
        stat(V("life"), `${m.left}/${m.life}`, "life"),
        stat(V("damage"), m.effective_damage, "damage"),
        stat(V("mana"), m.mana, "mana"),
        stat(V("channeling"), m.channeling, "channeling")),
      h("div", { class: "chips" }, chips(m)),
      h("ul", { class: "mwobjs" }, objs.filter((o) => o.owner === p.id && o.kind !== "mage" && !o.destroyed).map((o) => objectRow(snap, o))));
  }), snap.winner ? h("p", { class: "winner", id: "mwwinner",
    text: snap.winner === "draw" ? V("draw") : `${V("winner")}: ${pname(snap, snap.winner)}` }) : null);
}

// -- the attack in progress, the throw, the last strike ------------------------------------------------
function termText(t) {
  const name = X("term." + t.term) ?? t.term;
  return t.term === "base" ? `${t.n}` : `${t.n >= 0 ? "+" : "−"}${Math.abs(t.n)} ${name}`;
}

function renderAttack(snap) {
  const { h, fill } = ctx;
  const a = snap.attack;
  els.attack.hidden = !a;
  if (!a) return;
  const odds = a.odds;
  fill(els.attack,
    h("h2", { text: `${objName(snap, a.attacker)} → ${objName(snap, a.target)}` }),
    h("p", {}, h("strong", { text: attackName(a.spec.name) }), h("span", { class: "muted", text: ` · ${a.strike}/${a.spec.strikes}` })),
    h("p", { id: "mwdicecount" }, h("b", { text: V("dice_n", { n: a.dice }) }),
      h("span", { class: "muted", text: " = " + a.dice_terms.map(termText).join(" ") })),
    odds ? h("div", { class: "odds", id: "mwodds" },
      stat(V("expected"), odds.expected.toFixed(1), "expected"),
      stat(V("destroy"), `${Math.round(odds.destroy * 100)}%`, "destroy")) : null,
    a.spec.effects.length ? h("p", { class: "muted", text: `${V("effect")}: ${effectsText(a.spec.effects)}` }) : null);
}

function renderStrike(snap) {
  const { h, fill } = ctx;
  const r = snap.last_strike;
  els.strike.hidden = !r;
  if (!r) return;
  const head = h("h2", { text: `${objName(snap, r.attacker)} → ${objName(snap, r.target)} · ${attackName(r.attack)}` });
  if (!r.hit) {
    fill(els.strike, head, h("p", { text: r.missed === "daze" ? X("log.daze_miss", { attacker: objName(snap, r.attacker), roll: r.daze_roll }) : V("avoided") }));
    return;
  }
  const calc = r.rule === "standard"
    ? V("calc", { normal: r.normal, armor: r.armor, critical: r.critical, damage: r.damage })
    : V("calc_rule", { rule: X("rule." + r.rule) ?? r.rule, damage: r.damage });
  let effect = null;
  if (r.effect_roll != null) {
    const mods = r.effect_terms.map(termText).join(" ");
    const what = r.effect ? `${r.effect_count > 1 ? r.effect_count + " " : ""}${condName(r.effect)} (${X("outcome." + r.effect_outcome) ?? r.effect_outcome})` : V("no_effect");
    effect = h("p", { id: "mweffect" }, h("span", { class: "dice small" }, face(EFFECT, r.effect_roll)),
      h("span", { text: " " + V("effect_line", { roll: r.effect_roll, mods: mods ? " " + mods : "", adjusted: r.effect_adjusted, what }) }));
  }
  fill(els.strike, head,
    h("div", { class: "dice small" }, r.faces.map((f) => face(ATTACK, f))),
    h("p", { id: "mwcalc", text: calc }), effect);
}

function renderList(snap) {
  const { h, fill } = ctx;
  const items = snap.list || [];
  els.list.hidden = !items.length || !["channeling", "upkeep"].includes(snap.phase);
  if (els.list.hidden) return;
  fill(els.list, h("h2", { text: ctx.phaseLabel(snap.phase) }),
    h("ol", { class: "mwlist" }, items.map((it) => h("li", { class: it.done ? "done" : "" },
      h("strong", { text: objName(snap, it.object) }),
      h("span", { text: ` · ${X("view.item_" + it.kind, { n: it.amount }) ?? it.kind + " " + it.amount}` }),
      it.result != null ? h("small", { class: "muted", text: " ✓" }) : null))));
}

// One throw holding attack dice and the effect die: the page's pad enters one set, so this view enters both.
function renderThrow(snap) {
  const { h, fill } = ctx;
  const input = ctx.diceInput(snap);
  const sets = (input && input.sets) || {};
  const mixed = Boolean(sets[ATTACK] && sets[EFFECT]);
  els.throw.hidden = !mixed || !ctx.paired();
  if (els.throw.hidden) return;
  // What the camera read of this throw fills the entry in, for the players to check and send; it stays
  // when the dice are picked up (an empty tray), and a new pending roll starts afresh. Only a reading that
  // waits for its check: once any roll is recorded the dice still lying there are used, and filled in
  // again they would be the next attack's roll too (the box clears the wait on every roll).
  const waiting = Boolean(snap.tray && snap.tray.needs_confirmation);
  const read = ((waiting && snap.tray.dice) || []).map((d, i) => ({ ...d, i })).filter((d) => d.face != null || d.value != null);
  const readKey = read.map((d) => `${d.set || ""}:${d.face}:${d.value}`).join(",");
  if (String(snap.seq) !== entryKey) { entryKey = String(snap.seq); entry = { faces: [], from: [], effect: null, read: "" }; }
  if (read.length && readKey !== entry.read) {
    // each attack face remembers the tray die it was read from, so the box learns that die's face
    entry = { faces: [], from: [], effect: null, read: readKey, roll: snap.tray.roll };
    for (const d of read) {
      if (d.set === EFFECT) entry.effect = d.value;
      else if (FACE_NAMES.includes(d.face) && entry.faces.length < sets[ATTACK]) { entry.faces.push(d.face); entry.from.push(d.i); }
    }
  }
  const n = sets[ATTACK];
  const ready = entry.faces.length === n && entry.effect != null;
  fill(els.throw,
    h("h2", { text: `${V("dice_n", { n })} + ${V("effect")}` }),
    entry.read ? h("p", { class: "warn", id: "mwread", text: V("check_reading") }) : null,
    h("div", { class: "dice", id: "mwentry" }, entry.faces.map((f, i) => {
      const b = h("button", { class: "diebtn", type: "button", onclick: () => { entry.faces.splice(i, 1); entry.from.splice(i, 1); renderThrow(snap); } });
      b.append(face(ATTACK, f));
      return b;
    })),
    h("div", { class: "pad", id: "mwpad" }, FACE_NAMES.map((f) => {
      const b = h("button", { class: "diebtn padbtn", type: "button", data: { face: f }, disabled: entry.faces.length >= n,
        onclick: () => { entry.faces.push(f); entry.from.push(null); renderThrow(snap); } });
      b.append(face(ATTACK, f));
      return b;
    })),
    h("div", { class: "pad", id: "mwd12" }, Array.from({ length: 12 }, (_, i) => i + 1).map((v) =>
      h("button", { class: "chip" + (entry.effect === v ? " on" : ""), type: "button", data: { d12: String(v) },
        onclick: () => { entry.effect = v; renderThrow(snap); } }, String(v)))),
    h("button", { class: "primary big", id: "mwthrowsend", type: "button", disabled: !ready,
      onclick: () => ctx.act({ type: "roll", dice: entry.faces, effect: entry.effect, source: "manual",
        ...(entry.roll != null && ((ctx.S.snap || {}).tray || {}).roll === entry.roll ? { tray: { roll: entry.roll, dice: entry.from } } : {}),
      }).catch(() => {}) },
    V("send")));
}

export function ownEntry(snap) {
  const input = ctx.diceInput(snap);
  return Boolean(input && input.sets && input.sets[ATTACK] && input.sets[EFFECT]);
}

export function entryFaces(snap) {
  const input = ctx.diceInput(snap);
  if (input && input.sets && input.sets[ATTACK]) return ["blank", "blank", "1", "2", "1*", "2*"];
  return null;
}

// -- tools: attack builder, registering, corrections, the story -----------------------------------------
function field(label, input) {
  return ctx.h("label", { class: "mwfield" }, ctx.h("span", { text: label }), input);
}

function renderBuilder(snap) {
  const { h, fill } = ctx;
  const acting = snap.acting && objects(snap)[snap.acting];
  const p = snap.pending;
  els.builder.hidden = !acting || !p || p.kind !== "act" || acting.attacked || acting.incapacitated || !ctx.paired();
  if (els.builder.hidden) return;
  if (els.builder.dataset.for === acting.id && els.builder.childNodes.length) return;  // keep what is typed
  els.builder.dataset.for = acting.id;
  const targets = (snap.objects || []).filter((o) => !o.destroyed && o.owner !== acting.owner);
  const target = h("select", { id: "mwtarget" }, targets.map((o) => h("option", { value: o.id, text: objName(snap, o.id) })));
  const dice = h("input", { id: "mwdice", type: "number", min: "1", max: "30", value: "3", inputmode: "numeric" });
  const range = h("select", { id: "mwrange" }, ["melee", "ranged"].map((r) => h("option", { value: r, text: V(r) })));
  const type = h("select", { id: "mwtype" }, h("option", { value: "", text: "—" }), TYPES.map((t) => h("option", { value: t, text: damageType(t) })));
  const piercing = h("input", { id: "mwpiercing", type: "number", min: "0", max: "20", value: "0", inputmode: "numeric" });
  const effects = h("input", { id: "mweffects", type: "text", placeholder: `7+ = ${condName("burn")}`, maxlength: "120" });
  const flags = ["critical", "ethereal", "unavoidable", "spell"].map((f) => h("label", { class: "chip" },
    h("input", { type: "checkbox", data: { flag: f } }), h("span", { text: X("view.flag_" + f) ?? f })));
  const name = h("input", { id: "mwname", type: "text", maxlength: "40", placeholder: V("attack_name") });
  const save = h("input", { id: "mwsave", type: "checkbox" });
  fill(els.builder,
    h("h2", { text: V("attack_builder") }),
    field(V("target"), target), field(V("dice_label"), dice), field(V("range"), range), field(V("type"), type),
    field(V("piercing"), piercing), field(V("effect"), effects), h("div", { class: "chips" }, flags),
    field(V("attack_name"), name), h("label", { class: "chip" }, save, h("span", { text: V("save_attack") })),
    h("button", { class: "primary big", id: "mwattackbtn", type: "button", onclick: async () => {
      const spec = { dice: Number(dice.value), range: range.value, piercing: Number(piercing.value) || 0 };
      if (name.value.trim()) spec.name = name.value.trim();
      if (type.value) spec.type = type.value;
      if (effects.value.trim()) spec.effects = effectsForEngine(effects.value.trim());
      for (const box of flags) { const cb = box.querySelector("input"); if (cb.checked) spec[cb.dataset.flag] = true; }
      try {
        if (save.checked) await ctx.act({ type: "save_attack", object: acting.id, attack: spec });
        await ctx.act({ type: "attack", target: target.value, attack: spec });
        els.builder.dataset.for = "";
      } catch { /* refusals toast by themselves */ }
    } }, V("attack")));
}

let lastRegisterSnap = null;

function renderRegister(snap) {
  const { h, fill } = ctx;
  els.register.hidden = !ctx.paired() || !!snap.winner;
  if (els.register.hidden) return;
  lastRegisterSnap = snap;
  if (els.register.childNodes.length) { refreshHosts(snap); return; }
  const owner = h("select", { id: "mwowner" }, (snap.players || []).map((p) => h("option", { value: p.id, text: ctx.playerName(p) })));
  const kind = h("select", { id: "mwkind", onchange: () => refreshHosts(lastRegisterSnap) },
    ["creature", "conjuration", "enchantment"].map((k) => h("option", { value: k, text: V(k) })));
  const on = h("select", { id: "mwregon" });
  const name = h("input", { id: "mwregname", type: "text", maxlength: "40" });
  const life = h("input", { id: "mwreglife", type: "number", min: "1", max: "99", value: "6", inputmode: "numeric" });
  const armor = h("input", { id: "mwregarmor", type: "number", min: "0", max: "20", value: "0", inputmode: "numeric" });
  const number = (id) => h("input", { id, type: "number", min: "-10", max: "10", value: "0", inputmode: "numeric" });
  const stacked = { aegis: number("mwregaegis"), regenerate: number("mwregregen"), tough: number("mwregtough") };
  const traits = TRAITS.map((tr) => h("label", { class: "chip" }, h("input", { type: "checkbox", data: { trait: tr } }),
    h("span", { text: X("view.trait_" + tr) ?? tr })));
  fill(els.register, h("details", {}, h("summary", { text: V("register") }),
    field(V("owner"), owner), field(V("kind"), kind), field(V("name"), name), field(V("enchanted"), on),
    field(V("life"), life), field(V("armor"), armor),
    field(X("term.aegis") ?? "Aegis", stacked.aegis), field(V("regenerate"), stacked.regenerate),
    field(X("term.tough") ?? "Tough", stacked.tough),
    h("div", { class: "chips" }, traits),
    h("button", { class: "big", id: "mwregbtn", type: "button", onclick: () => {
      const t = {};
      for (const box of traits) { const cb = box.querySelector("input"); if (cb.checked) t[cb.dataset.trait] = true; }
      // each number as read off this card; the engine stacks it with the others (Aegis highest, Tough added)
      const values = Object.fromEntries(Object.entries(stacked).map(([k, el]) => [k, Number(el.value) || 0]).filter(([, v]) => v));
      const object = kind.value === "enchantment"
        ? { name: name.value.trim(), owner: owner.value, kind: kind.value, on: on.value || null, grants: values }
        : { name: name.value.trim(), owner: owner.value, kind: kind.value, life: Number(life.value), armor: Number(armor.value),
          traits: { ...t, ...(values.aegis ? { aegis: values.aegis } : {}), ...(values.tough ? { tough: values.tough } : {}) },
          regenerate: values.regenerate || 0 };
      ctx.act({ type: "register", object })
        .then(() => { name.value = ""; for (const el of Object.values(stacked)) el.value = "0"; }).catch(() => {});
    } }, V("register"))));
  refreshHosts(snap);
}

// The objects an enchantment may go on, kept current while the form stays open; the fields that do not
// apply to the chosen kind are hidden (an enchantment has no life or armor, the others are on nothing).
function refreshHosts(snap) {
  const { h, fill } = ctx;
  const on = els.register.querySelector("#mwregon");
  const kind = els.register.querySelector("#mwkind");
  if (!on || !kind) return;
  const chosen = on.value;
  const hosts = (snap.objects || []).filter((o) => !o.destroyed && o.kind !== "enchantment");
  fill(on, ...hosts.map((o) => h("option", { value: o.id, text: objName(snap, o.id), selected: o.id === chosen || null })));
  const enchantment = kind.value === "enchantment";
  on.closest("label").hidden = !enchantment;
  for (const id of ["mwreglife", "mwregarmor"]) els.register.querySelector("#" + id).closest("label").hidden = enchantment;
  els.register.querySelector(".chips").hidden = enchantment;
}

function renderFix(snap) {
  const { h, fill } = ctx;
  els.fix.hidden = !ctx.paired() || !!snap.winner;
  if (els.fix.hidden) return;
  const open = els.fix.querySelector("details")?.open;
  const live = (snap.objects || []).filter((o) => !o.destroyed);
  const conds = Object.keys(catalogue("conditions"));
  fill(els.fix, h("details", { open: open || null }, h("summary", { text: V("corrections") }),
    h("ul", { class: "mwfix" }, live.map((o) => {
      const cond = h("select", { data: { object: o.id } }, conds.map((c) => h("option", { value: c, text: condName(c) })));
      const btn = (label, action) => h("button", { class: "chip", type: "button", onclick: () => ctx.act(action).catch(() => {}) }, label);
      return h("li", { data: { object: o.id } }, h("strong", { text: objName(snap, o.id) }),
        btn(`${V("damage")} +1`, { type: "damage", object: o.id, amount: 1 }),
        btn(`${V("damage")} +5`, { type: "damage", object: o.id, amount: 5 }),
        o.damage > 0 ? btn(`${V("heal")} 1`, { type: "heal", object: o.id, amount: 1 }) : null,
        btn(`${V("mana")} −1`, { type: "mana", object: o.id, change: -1 }),
        btn(`${V("mana")} +1`, { type: "mana", object: o.id, change: 1 }),
        cond,
        h("button", { class: "chip", type: "button", onclick: () => ctx.act({ type: "condition", object: o.id, condition: cond.value, change: 1 }).catch(() => {}) }, "+"),
        h("button", { class: "chip", type: "button", onclick: () => ctx.act({ type: "condition", object: o.id, condition: cond.value, change: -1 }).catch(() => {}) }, "−"));
    }))));
}

function storyArgs(snap, args) {
  const out = { ...args };
  const known = objects(snap);
  for (const k of ["name", "attacker", "target"]) if (known[args[k]]) out[k] = objName(snap, args[k]);
  if (args.player) out.player = args.player === "draw" ? V("draw") : pname(snap, args.player);
  if (args.condition) out.condition = condName(args.condition);
  if (args.phase) out.phase = ctx.phaseLabel(args.phase);
  if (args.outcome) out.outcome = X("outcome." + args.outcome) ?? args.outcome;
  if (args.result) out.result = V(args.result);
  if (args.cause) out.cause = X("cause." + args.cause) ?? args.cause;
  if (args.kind) out.kind = X("cause." + args.kind) ?? X("view." + args.kind) ?? args.kind;
  if (args.field) out.field = V(args.field);
  if ("attack" in args) out.attack = attackName(args.attack);
  if (args.faces) out.faces = String(args.faces).split(" ").map(faceWord).join(", ");
  return out;
}

// The table's action log, one line per accepted action, in the page's language.
// The attack die's faces with what each does, for the page's "How to play" card (a starred face's digit is
// hard to read on the star).
export function rulesExtra() {
  const { h } = ctx;
  const meaning = [["blank", V("legend_blank")], ["1", V("legend_normal", { n: 1 })], ["2", V("legend_normal", { n: 2 })],
    ["1*", V("legend_critical", { n: 1 })], ["2*", V("legend_critical", { n: 2 })]];
  return h("div", { class: "mwlegend", id: "mwlegend" }, h("h3", { text: V("legend_title") }),
    h("ul", {}, meaning.map(([f, text]) => h("li", { data: { face: f } }, face(ATTACK, f), h("span", { text })))));
}

// Attack dice entered on the page's pad are sent by face ("2*"), so the log reads as the dice did.
export function entryDice(values, snap) {
  const input = ctx.diceInput(snap);
  if (!input || (input.dice_sets || []).join() !== ATTACK) return null;
  return values.map((v) => (typeof v === "number" && SIDE_FACES[v - 1] ? SIDE_FACES[v - 1] : v));
}

export function logLine(a, snap) {
  const { h } = ctx;
  const what = X("act." + a.type);
  if (what == null) return null;
  const bits = [what];
  const obj = a.object && objects(snap)[a.object] ? objName(snap, a.object) : null;
  if (obj) bits.push(obj);
  if (a.type === "attack") bits.push(`${attackName(a.saved || (a.attack && a.attack.name))} → ${objName(snap, a.target)}`);
  if (a.type === "roll" && Array.isArray(a.dice)) {
    // names are attack faces, a die marked d12 is the effect die; bare numbers are shown as typed (a side of
    // the attack die or an effect roll, depending on what the game asked for)
    const drawn = a.dice.map((d) => (d && typeof d === "object" ? (d.set === EFFECT ? face(EFFECT, d.value) : face(ATTACK, d.face))
      : typeof d === "string" ? face(ATTACK, d) : h("b", { text: ` ${d}` })));
    if (a.effect != null) drawn.push(face(EFFECT, a.effect));
    return [what + " ", h("span", { class: "dice small" }, drawn)];
  }
  if (a.type === "mana" || a.type === "condition") bits.push(`${a.change > 0 ? "+" : ""}${a.change}${a.condition ? " " + condName(a.condition) : ""}`);
  if (a.type === "damage" || a.type === "heal") bits.push(String(a.amount));
  return [bits.join(" ")];
}

function renderStory(snap) {
  const { h, fill } = ctx;
  const lines = storyOrder(snap.story || []);
  els.story.hidden = !lines.length;
  fill(els.story, h("h2", { text: V("story") }),
    h("ol", { class: "mwstory" }, lines.slice(0, 20).map((l) => h("li", { data: { key: l.key, move: String(l.n) } },
      h("span", { text: storyText(snap, l) })))));
}

// The newest move first, and within a move its lines in the order they happened: a hit, then the damage it
// dealt, then what that destroyed (the snapshot's `story` is newest line first).
function storyOrder(story) {
  const moves = [];
  for (const l of story) {
    if (!moves.length || moves[moves.length - 1][0].n !== l.n) moves.push([]);
    moves[moves.length - 1].push(l);
  }
  return moves.flatMap((lines) => lines.slice().reverse());
}

// A story line in the page's language; a hit that did no damage says why (blanks, armor, a trait's rule).
function storyText(snap, l) {
  const args = storyArgs(snap, l.args);
  if (l.key === "log.strike" && l.args.damage === 0) {
    const a = l.args;
    const why = a.rule && a.rule !== "standard" ? X("rule." + a.rule) ?? a.rule
      : a.normal + a.critical === 0 ? V("why_blank") : V("why_armor", { armor: a.armor, normal: a.normal });
    return X("log.strike_zero", { ...args, why }) ?? l.key;
  }
  return X(l.key, args) ?? l.key;
}

// -- pending options in the page's language ----------------------------------------------------------
export function optionLabel(o, snap) {
  const a = o.action || {};
  switch (a.type) {
    case "next": return X(snap.phase === "channeling" ? "option.confirm" : "option.next");
    case "upkeep": return X("option.resolve_upkeep");
    case "pay": return X(a.pay ? "option.pay" : "option.let_go");
    case "quickcast": return X(a.use ? "option.quickcast" : "option.pass");
    case "pass": return X("option.pass");
    case "guard": return X("option.guard");
    case "end_activation": return X("option.end_activation");
    case "activate": return objName(snap, a.object);
    case "attack": return `${attackName(a.saved)} → ${objName(snap, a.target)}`;
    case "defend": {
      if (a.defense == null) return X("option.no_defense");
      const t = objects(snap)[snap.attack?.target];
      const d = t && t.defenses[a.defense];
      return d ? `${V("defense")} ${d.min}+` : null;
    }
    case "counterstrike": {
      if (a.attack == null) return X("option.no_counter");
      return attackName(o.label);  // the saved attack's name as the players typed it
    }
    default: return null;
  }
}
