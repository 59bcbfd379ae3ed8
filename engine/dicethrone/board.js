// Dice Throne's board view (docs/architecture.md, "Board views"): each hero's health, CP and status tokens,
// the dice of the roll in progress with the abilities they make and their odds, option labels and log lines
// in the page's language, cards played from the phone, and corrections. Every word comes from the game's
// description: its texts ("view.*", "prompt.*") and its catalogue (heroes, cards, statuses) in en/zh-TW/ko.

let ctx = null;
let els = null;

// -- the game's words and data --------------------------------------------------------------------
function T(key, vars = {}) {
  return ctx.text("view." + key, vars) ?? key;
}

function has(key) {
  return ctx.text("view." + key) != null;
}

function catalogue(kind) {
  const game = ctx.game();
  return (game && game.catalogue && game.catalogue[kind]) || [];
}

function byId(kind) {
  return Object.fromEntries(catalogue(kind).map((row) => [row.id, row]));
}

const heroes = () => byId("heroes");
const statuses = () => byId("statuses");

function heroOf(p) {
  return (p && heroes()[p.hero]) || null;
}

// An ability's name: the hero's own, else any hero's of that id (a log line's action may not say whose it
// was, and by then another player is active), never the bare id.
function abilityName(heroId, id) {
  const hero = heroes()[heroId];
  const a = (hero && (hero.abilities || []).find((x) => x.id === id))
    || Object.values(heroes()).flatMap((h) => h.abilities || []).find((x) => x.id === id);
  return a ? ctx.loc(a.name) : id;
}

// What an ability does, from the catalogue's board texts (engine/dicethrone/texts.py): the text of one
// tier of one level ("8 damage"), or of the level itself for defenses and passives.
function abilityRow(heroId, id) {
  const hero = heroes()[heroId];
  return (hero && (hero.abilities || []).find((x) => x.id === id)) || null;
}

function levelRow(ab, level) {
  const rows = (ab && ab.board) || [];
  return rows.find((r) => r.level === level) || null;
}

function doesText(heroId, id, level, tier) {
  const lv = levelRow(abilityRow(heroId, id), level || 1);
  if (!lv) return "";
  if (lv.tiers) {
    const row = lv.tiers[tier || 0] || lv.tiers[0];
    return row ? ctx.loc(row.text) : "";
  }
  return ctx.loc(lv.text) || "";
}

// An ability's level as the hero's board shows it (tiers: requirement -> effect), lines of text.
function levelLines(lv) {
  if (!lv) return [];
  if (lv.tiers) return lv.tiers.map((row) => `${ctx.loc(row.need)} → ${ctx.loc(row.text)}`);
  return lv.text ? [ctx.loc(lv.text)] : [];
}

// The player's level of an ability (upgrades by ability or by the slot an alternative takes), or null
// when the player does not have it (an alternative not chosen).
function levelOf(p, ab) {
  const up = (p && p.upgrades) || {};
  if (ab.slot) return up[ab.id] != null ? up[ab.id] : null;
  return up[ab.id] != null ? up[ab.id] : 1;
}

// Tap a hero: the whole board at the levels that player has, each ability with what each tier does.
function showBoard(p) {
  const hero = heroOf(p);
  if (!hero) return;
  const lines = [];
  for (const ab of hero.abilities || []) {
    const level = levelOf(p, ab);
    const lv = level == null ? null : levelRow(ab, level);
    if (!lv) continue;
    const title = ctx.loc(lv.name) || ctx.loc(ab.name);
    lines.push(`${title} (${T("level", { n: level })})`, ...levelLines(lv).map((x) => "  " + x), "");
  }
  ctx.info(`${name(p)} · ${ctx.loc(hero.name)}`, lines.join("\n").trim());
}

// Tap an ability (in the list the dice make or in the odds): its level's tiers.
function showAbility(p, id, level) {
  const ab = abilityRow(p && p.hero, id);
  if (!ab) return;
  const lv = levelRow(ab, level || levelOf(p, ab) || 1);
  ctx.info(`${ctx.loc((lv && lv.name) || ab.name)} (${T("level", { n: (lv && lv.level) || 1 })})`, levelLines(lv).join("\n"));
}

function stageName(p, id) {
  return has("stage_" + id) ? T("stage_" + id) : id;
}

function statusName(id) {
  const st = statuses()[id];
  return st ? ctx.loc(st.name) : id;
}

function name(p) {
  return ctx.playerName(p) || (p ? ctx.loc(p.hero_name) : "");
}

// -- the view's own sections, made once -----------------------------------------------------------
export function init(slots, c) {
  ctx = c;
  const { h } = ctx;
  // board texts come as lines: kept as lines in the info sheet from the first tap, before the board's
  // stylesheet has loaded (CSSOM writes are allowed by the page's CSP)
  const infoText = document.getElementById("info_text");
  if (infoText) infoText.style.whiteSpace = "pre-line";
  els = {
    players: h("section", { id: "players", class: "players", hidden: true }),
    dice: h("section", { class: "card", id: "gamedicecard", hidden: true },
      h("h2", { class: "dicehead" }, h("span", { id: "dicetitle" })),
      h("p", { class: "dicesub muted" }, h("span", { id: "dicehero" }), h("span", { id: "attempts" })),
      h("div", { id: "gamedice", class: "dice" }),
      h("small", { id: "gamedicehint", class: "muted" }),
      h("div", { id: "abilities", class: "abilities", hidden: true }),
      h("div", { id: "odds", class: "odds", hidden: true })),
    cards: h("section", { id: "cards", class: "card", hidden: true },
      h("details", {}, h("summary", { class: "cardsum" }),
        h("label", { class: "cardplayerlabel" }, h("span", {}), h("select", { id: "cardplayer" })),
        h("div", { id: "cardlist" }))),
    damage: h("section", { id: "damagecard", class: "card", hidden: true }),
    recap: h("section", { id: "recap", class: "card", hidden: true }),
    corrections: h("section", { id: "corrections", class: "card", hidden: true },
      h("details", {}, h("summary", { class: "corrsum" }), h("div", { id: "adjust" }))),
  };
  ctx.fill(slots.board, els.players, els.recap);
  ctx.fill(slots.dice, els.dice, els.damage);
  ctx.fill(slots.tools, els.cards, els.corrections);
  const details = els.cards.querySelector("details");
  details.addEventListener("toggle", () => { if (details.open) drawCards(); });
  els.cards.querySelector("#cardplayer").addEventListener("change", drawCards);
}

export function render(slots, snap) {
  els.cards.querySelector(".cardsum").textContent = T("play_card");
  els.cards.querySelector(".cardplayerlabel span").textContent = T("card_player") + " ";
  els.corrections.querySelector(".corrsum").textContent = T("corrections");
  logMeta(snap);
  renderPlayers(snap);
  renderRecap(snap);
  renderGameDice(snap);
  renderDamage(snap);
  renderAbilities(snap);
  renderOdds(snap);
  renderCards(snap);
  renderCorrections(snap);
}

// -- heroes ---------------------------------------------------------------------------------------
function statusChip(st) {
  const { h, loc } = ctx;
  const info_ = statuses()[st.id] || {};
  const label = loc(st.name) || loc(info_.name) || st.id;
  const limit = st.limit ?? info_.limit;
  const kind = st.kind || info_.kind || "";
  return h("button", {
    class: "chip " + kind, type: "button", data: { status: st.id || label },
    "aria-label": `${label} ${st.count}${limit ? "/" + limit : ""}`,
    onclick: () => ctx.info(`${label} · ${st.count}${limit ? "/" + limit : ""}`, [
      has("kind_" + kind) ? T("kind_" + kind) : "", limit ? T("limit", { n: limit }) : "", loc(info_.text) || ""].filter(Boolean).join(" · ")),
  }, h("span", { text: label }), h("b", { text: limit ? `${st.count}/${limit}` : String(st.count ?? "") }));
}

function renderPlayers(snap) {
  const { h, fill, loc } = ctx;
  const box = els.players;
  const players = snap.players || [];
  box.hidden = players.length === 0;
  if (!players.length) { fill(box); return; }
  box.dataset.count = String(players.length);
  const winners = snap.winners || [];
  // 2 vs 2: a team shares one health, shown once (on its first member; the others point to it)
  const teamFirst = new Set((snap.teams || []).map((tm) => (tm.members || [])[0]));
  const shared = snap.mode === "2v2";
  const change = lastChange(snap);
  fill(box, ...players.map((p) => {
    const active = p.id === snap.active;
    const held = (p.statuses || []).filter((x) => (x.count ?? 1) > 0);
    const hero = heroOf(p);
    const heroName = loc(p.hero_name) || (hero && loc(hero.name)) || p.hero;
    return h("article", { class: "player" + (active ? " active" : "") + (p.out ? " out" : "") + (winners.includes(p.id) ? " won" : ""),
      data: { player: p.id, phase: active ? snap.phase : "" } },
      h("header", {},
        h("strong", { class: "pname", text: (active ? "▶ " : "") + name(p) }),
        p.hero ? h("button", { class: "hero linkish", type: "button", data: { board: p.id }, onclick: () => showBoard(p) }, heroName) : null,
        snap.mode === "2v2" ? h("small", { class: "team", text: T("team_shared", { n: p.team }) }) : null),
      h("div", { class: "stats" },
        shared && !teamFirst.has(p.id)
          ? h("div", { class: "stat hp sharedhp" }, h("small", { text: T("team_health") }), h("small", { text: "↑" }))
          : h("div", { class: "stat hp" }, h("small", { text: shared ? T("team_health") : T("health") }),
            h("b", { class: "health", text: String(p.health ?? "—") }), deltaChip(change, p)),
        h("div", { class: "stat cp" }, h("small", { text: T("cp") }),
          h("b", { class: "cpval", text: String(p.cp ?? "—") }, p.cp_max ? h("small", { text: `/${p.cp_max}` }) : null))),
      h("div", { class: "chips" }, held.length ? held.map(statusChip) : h("small", { class: "muted", text: T("no_statuses") }),
        ...(p.companions || []).map((c) => h("span", { class: "chip companion" + (c.active ? "" : " down"), data: { companion: c.id } },
          h("span", { text: ctx.loc(c.name) }), h("b", { text: `${c.health}/${c.health_max}` }))),
        ...Object.entries(p.stages || {}).filter(([, n]) => n > 0).map(([id, n]) => h("span", { class: "chip stage", data: { stage: id } },
          h("span", { text: stageName(p, id) }), h("b", { text: String(n) })))),
      p.hand != null ? h("small", { class: "muted hand", text: T("cards", { n: p.hand }) }) : null,
    );
  }));
}

// -- the dice of the roll in progress -------------------------------------------------------------
// Whose dice the game's dice are and what for ("Bo's defensive dice"), from the snapshot's dice_role and
// dice_set (the rolling hero's dice): {text, hero} or null.
const ROLE_ROLLER = { offense: "attacker", ability: "attacker", targeting: "attacker", defense: "target" };
function diceOwner(snap) {
  const role = snap.dice_role;
  const dice = Array.isArray(snap.dice) ? snap.dice : [];
  const rp = snap.roll_phase || {};
  const setHero = typeof snap.dice_set === "string" && snap.dice_set.includes(":") ? snap.dice_set.split(":")[1] : null;
  const heroName = (id) => { const hero = heroes()[id]; return hero ? ctx.loc(hero.name) : ""; };
  if (role === "opposed") {
    const owners = [...new Set(dice.map((d) => d.owner).filter(Boolean))].map((id) => name(ctx.findPlayer(id)) || id);
    return owners.length ? { text: T("role_opposed", { names: owners.join(" & ") }), hero: "" } : null;
  }
  let who = null;
  if (ROLE_ROLLER[role]) who = ctx.findPlayer(rp[ROLE_ROLLER[role]] || (role === "defense" ? null : snap.active));
  else if (role === "keg" || role === "blind") who = ctx.findPlayer(snap.active);
  else if (role === "status") who = ctx.findPlayer((dice[0] && dice[0].owner) || (snap.pending && snap.pending.player));
  if (!who && setHero) {
    const holders = (snap.players || []).filter((p) => p.hero === setHero);
    if (holders.length === 1) who = holders[0];
  }
  if (!who) return null;
  const key = role && has("role_" + role) ? "role_" + role : "role_dice";
  return { text: T(key, { name: name(who) }), hero: heroName(setHero || who.hero) };
}

function renderGameDice(snap) {
  const { h, fill, t, act, dieElement } = ctx;
  const card = els.dice;
  const box = card.querySelector("#gamedice");
  const dice = Array.isArray(snap.dice) ? snap.dice : null;
  const rolling = ["offensive", "targeting", "defensive"].includes(snap.phase) || Boolean(ctx.diceInput(snap));
  card.hidden = !dice || !dice.length || !rolling;
  card.dataset.offense = String(Boolean(snap.pending && snap.pending.kind === "offense"));
  const whose = diceOwner(snap);
  card.querySelector("#dicetitle").textContent = whose ? whose.text : t("dice");
  card.dataset.role = snap.dice_role || "";
  fill(card.querySelector("#dicehero"), whose && whose.hero ? whose.hero : null);
  if (!dice || !dice.length) { fill(box); return; }
  const p = snap.pending;
  const canKeep = ctx.paired() && p && p.kind === "offense" && snap.attempts && snap.attempts.used > 0 &&
    (p.options || []).some((o) => o.action && o.action.type === "keep");
  const kept = dice.map((d, i) => (d.kept ? i : -1)).filter((i) => i >= 0);
  card.querySelector("#gamedicehint").textContent = canKeep ? T("hold_hint") : "";
  const att = snap.attempts;
  card.querySelector("#attempts").textContent = att && att.max && p && p.kind === "offense" ? T("rolls_left", { n: Math.max(0, att.max - att.used) }) : "";
  fill(box, ...dice.map((d, i) => {
    const die = dieElement(d.value, { face: d.face, kept: d.kept, label: ctx.dieLabel(snap.dice_set, d.value) });
    if (!canKeep) return die;
    const next = d.kept ? kept.filter((k) => k !== i) : [...kept, i].sort();
    return h("button", { class: "diebtn keep" + (d.kept ? " on" : ""), type: "button", "aria-pressed": d.kept ? "true" : "false",
      onclick: () => act({ type: "keep", player: p.player, dice: next }).catch(() => {}) }, die);
  }));
}

// The abilities the dice on the table make; while rolling, a tap chooses one.
function renderAbilities(snap) {
  const { h, fill, loc, act } = ctx;
  const ab = els.dice.querySelector("#abilities");
  const list = snap.abilities || null;
  const show = Array.isArray(list) && (list.length > 0 || (snap.pending && snap.pending.kind === "offense" && snap.attempts && snap.attempts.used > 0));
  ab.hidden = !show;
  if (!show) return;
  const opts = (snap.pending && snap.pending.options) || [];
  const attacker = ctx.findPlayer(snap.active);
  fill(ab, h("h3", { text: T("abilities") }),
    list.length ? h("ul", {}, list.map((a) => {
      const o = opts.find((x) => x.action && x.action.type === "ability" && x.action.ability === a.id);
      const label = loc(a.name) || abilityName(attacker && attacker.hero, a.id);
      // what it does, from the board ("Smack: 8 damage.")
      const does = doesText(attacker && attacker.hero, a.id, a.level, a.tier);
      const body = [h("b", { class: "aname", text: label }), does ? h("small", { class: "does", text: does }) : null];
      return h("li", { class: a.ultimate ? "ult" : "" },
        o && ctx.paired() ? h("button", { class: "abil", type: "button", data: { ability: a.id }, onclick: () => act(o.action).catch(() => {}) }, ...body)
          : h("span", { class: "abil" }, ...body),
        h("button", { class: "lvl linkish", type: "button", data: { about: a.id }, "aria-label": label,
          onclick: () => showAbility(attacker, a.id, a.level) }, a.level ? T("level", { n: a.level }) : "?"));
    })) : h("p", { class: "muted", text: T("no_abilities") }));
}

// While the attacker rolls: each ability's chance with the attempts left (the engine's exact odds).
function renderOdds(snap) {
  const { h, fill, act } = ctx;
  const box = els.dice.querySelector("#odds");
  const odds = Array.isArray(snap.odds) ? snap.odds : [];
  const met = new Set((snap.abilities || []).map((a) => a.id));
  const rows = odds.filter((o) => !met.has(o.id) && o.chance > 0).sort((a, b) => b.chance - a.chance).slice(0, 8);
  box.hidden = !rows.length;
  if (!rows.length) return;
  const attacker = ctx.findPlayer(snap.active);
  const left = snap.attempts ? Math.max(0, snap.attempts.max - snap.attempts.used) : 0;
  const p = snap.pending;
  const canKeep = ctx.paired() && p && p.kind === "offense" && (p.options || []).some((x) => x.action && x.action.type === "keep");
  const dice = Array.isArray(snap.dice) ? snap.dice : [];
  fill(box, h("h3", { text: T("odds", { n: left }) }), h("ul", {}, rows.map((o) => {
    const pct = Math.round(o.chance * 100);
    const bar = h("span", { class: "bar" }, h("span", { class: "fill" }));
    bar.firstChild.style.width = `${Math.max(2, pct)}%`;
    // keep advice: the dice to keep for that chance (the engine's best keep), one tap keeps them
    const keep = Array.isArray(o.keep) ? o.keep : null;
    const same = keep && dice.length && dice.every((d, i) => Boolean(d.kept) === keep.includes(i));
    const advice = keep ? (keep.length ? T("keep_advice", { dice: keep.map((i) => (dice[i] ? dice[i].value : i + 1)).join(" ") }) : T("keep_none")) : "";
    return h("li", { data: { ability: o.id } },
      h("button", { class: "oname linkish", type: "button", onclick: () => showAbility(attacker, o.id, o.level) }, abilityName(attacker && attacker.hero, o.id)),
      bar, h("b", { text: `${pct < 1 && o.chance > 0 ? "<1" : pct}%` }),
      keep ? (canKeep && !same
        ? h("button", { class: "advice", type: "button", data: { keep: keep.join(",") }, onclick: () => act({ type: "keep", player: p.player, dice: keep }).catch(() => {}) }, advice)
        : h("small", { class: "advice muted", text: advice })) : null);
  })));
}

// -- the pending decision: labels, what the board shows itself, grouping, answers ------------------
// An option's label in the page's language, built from its action; the engine's English label otherwise.
export function optionLabel(o, snap) {
  const a = o.action || {};
  const { loc } = ctx;
  const lang = ctx.S.lang;
  const who = ctx.findPlayer(a.player);
  const hero = who ? who.hero : null;
  const lvl = /level (\d)/.exec(o.label || "");
  const level = lvl ? ` (${T("level", { n: lvl[1] })})` : "";
  switch (a.type) {
    case "roll": {
      const m = /Roll (\d+) d/.exec(o.label || "");
      const att = /attempt (\d+) of (\d+)/.exec(o.label || "");
      if (m && att) return T("opt_roll_attempt", { n: m[1], a: att[1], max: att[2] });
      return lang === "en" && o.label ? o.label : T("opt_roll");
    }
    case "keep": return lang === "en" ? o.label : String(o.label || "").replace(/^(Keep|Release) die (\d+)/, (_, k, n) => T(k === "Keep" ? "opt_keep" : "opt_release", { n }));
    case "ability":
      if (a.ability == null) return T("opt_no_ability");
      return abilityName(hero || (ctx.findPlayer(snap.active) || {}).hero, a.ability) + level;
    case "defense":
      if (a.companion) {  // pass the attack to a companion (the Huntress's Nyra) instead of defending
        const c = ((who && who.companions) || []).find((x) => x.id === a.companion);
        return T("opt_pass_companion", { name: c ? loc(c.name) : a.companion });
      }
      if (a.defense == null) return T("opt_no_defense");
      return T("opt_defend", { name: abilityName(hero, a.defense) }) + level;
    case "advance": return T("opt_end_phase", { phase: ctx.phaseLabel(snap.phase) });
    case "target": return T("opt_target", { name: name(ctx.findPlayer(a.target)) });
    case "spend": return T("opt_spend", { name: name(who), status: statusName(a.status) }) + (a.use ? ` (${T("use_" + a.use)})` : "");
    case "knockdown": return a.pay ? T("opt_knockdown_pay") : T("opt_knockdown_skip");
    case "sell": return T("opt_sell");
    case "play": {
      const m = /^Play (.+?)(?: (II|III))? \((\d+) CP\)$/.exec(o.label || "");
      if (!m || lang === "en") return loc(o.label);
      const h_ = heroes()[hero];
      const ab = h_ && (h_.abilities || []).find((x) => x.name && x.name.en === m[1]);
      const card = ((h_ && h_.cards) || []).concat(catalogue("cards")).find((c) => c.name && c.name.en === m[1]);
      const label = ab ? loc(ab.name) : card ? loc(card.name) : m[1];
      return T("opt_play", { card: m[2] ? `${label} ${m[2]}` : label, n: m[3] });
    }
    case "pass": return T("opt_let_activate");
    case "resolve": return lang === "en" && o.label ? o.label : T("opt_resolve");
    case "pass_keg": return a.target ? T("opt_pass_keg", { name: name(ctx.findPlayer(a.target)) }) : T("opt_keep_keg");
    default: return null;
  }
}

// Keeping dice and choosing an ability are done on the board (the dice and the ability list).
export function hideOption(o) {
  return Boolean(o.action && (o.action.type === "keep" || (o.action.type === "ability" && o.action.ability != null)));
}

// Upgrade cards fold away under one heading.
export function optionGroup(o) {
  return o.action && o.action.type === "play" ? T("when_upgrade") : null;
}

// Spending a token that rolls a die asks for the real die first (tray, by hand, or the box).
export function answer(o) {
  const { h, fill, act, dieElement, t } = ctx;
  const a = o.action || {};
  const st = a.type === "spend" ? statuses()[a.status] : null;
  if (!st || !st.roll || a.value != null) return false;
  const { dialog, form } = ctx.sheet();
  const pad = h("div", { class: "pick values" });
  for (let v = 1; v <= 6; v++) {
    pad.append(h("button", { class: "diebtn pickbtn", type: "button", data: { v: String(v) },
      onclick: () => { dialog.close(); act({ ...a, value: v }).catch(() => {}); } }, dieElement(v, { label: t("die_value", { v }) })));
  }
  fill(form,
    h("h2", { text: optionLabel(o, ctx.S.snap) || ctx.loc(o.label) }),
    h("p", { class: "muted", text: T("spend_roll", { n: st.roll }) }),
    st.roll === 1 ? pad : null,
    h("button", { class: "big primary", type: "button", id: "spendtray", onclick: () => { dialog.close(); act({ ...a, await_roll: true }).catch(() => {}); } }, T("spend_tray")),
    h("button", { class: "big", type: "button", id: "spendbox", onclick: () => { dialog.close(); act(a).catch(() => {}); } }, T("spend_box")),
    h("div", { class: "row" }, h("button", { class: "ghost", type: "button", onclick: () => dialog.close() }, t("cancel"))));
  dialog.showModal();
  return true;
}

// Dice entered by hand show the deciding hero's symbols.
export function entryFaces(snap) {
  const decider = ctx.findPlayer((snap.pending && snap.pending.player) || snap.active);
  const hero = heroOf(decider);
  return hero ? hero.faces : null;
}

// -- the log --------------------------------------------------------------------------------------
// Dice entered by hand are numbers: drawn with the roller's hero symbols.
function rolledFace(who, v) {
  const hero = heroOf(who);
  return hero && hero.faces ? hero.faces[v - 1] : undefined;
}

// A rolled hero die read aloud with its number and symbol ("4 Heart"), from the roller's dice set.
function heroDieLabel(who, v) {
  return ctx.dieLabel(who && who.hero ? `dicethrone:${who.hero}` : null, v);
}

function actionLine(a, snap, events) {
  const { h, t, dieElement } = ctx;
  // a roll from the tray or the box names nobody: the story knows whose dice they were
  const rolledBy = a.type === "roll" && !a.player ? (events.find((e) => e.type === "rolled" && e.player) || {}).player : null;
  const who = ctx.findPlayer(a.player || rolledBy);
  const pname = who ? name(who) + (ctx.S.lang === "zh-TW" ? "：" : ": ") : "";  // one punctuation style per language
  if (a.type === "roll") {
    const dice = Array.isArray(a.dice) ? a.dice.map((d) => (typeof d === "object" ? d : { value: d })) : null;
    // "Ana rolled 2 2 4 5 6" (then the dice as drawn); a roll from the tray or the box says who rolled
    if (dice && dice.every((d) => d.value != null)) {
      const values = dice.map((d) => d.value).join(" ");
      return [who ? T("log_rolled", { name: name(who), dice: values }) : `${T("opt_roll")} · ${values}`, h("span", { class: "dice small" },
        dice.map((d) => dieElement(d.value, { face: d.face || rolledFace(who, d.value), label: heroDieLabel(who, d.value) })))];
    }
    // the box rolled (no dice given): its dice come from the story of that move
    const boxed = events.find((e) => e.type === "rolled" && (e.dice || []).length);
    if (boxed && !events.some((e) => e.type === "blind" || (e.type === "spent" && e.value != null))) {
      const roller = ctx.findPlayer(boxed.player) || who;
      const values = boxed.dice.join(" ");
      return [roller ? T("log_rolled", { name: name(roller), dice: values }) : T("log_box_rolled", { dice: values }),
        h("span", { class: "dice small" }, boxed.dice.map((v) => dieElement(v, { face: rolledFace(roller, v), label: t("die_value", { v }) })))];
    }
    if (events.some((e) => e.type === "blind" || (e.type === "spent" && e.value != null))) return [];
    return [pname + T("opt_roll")];
  }
  if (a.type === "adjust") {
    const bits = [];
    for (const k of ["health", "cp"]) if (a[k]) bits.push(`${T(k)} ${a[k] > 0 ? "+" : ""}${a[k]}`);
    for (const [sid, n] of Object.entries(a.status || {})) bits.push(`${statusName(sid)} ${n > 0 ? "+" : ""}${n}`);
    return [pname + T("corrections") + " · " + bits.join(", ")];
  }
  if (a.type === "advance") return [pname + t("next")];
  if (a.type === "resolve") return [T("opt_resolve")];
  if (a.type === "choose") return [pname + t("decide") + ` #${(a.option ?? 0) + 1}`];
  if (a.type === "keep") return [pname + T("hold_hint") + ` (${(a.dice || []).map((k) => k + 1).join(", ")})`];
  if (a.type === "play") {
    const played = events.find((e) => e.type === "played");
    const card = cardName((played && played.card) || a.card);
    const line = T("log_played", { name: name(who) || "", card });
    const changed = events.filter((e) => e.type === "dice_changed").flatMap((e) => (e.after || [])
      .map((v, k) => [k, (e.before || [])[k], v]).filter(([, b, v]) => b !== v));
    return [changed.length ? `${line} ${changed.map(([k, b, v]) => T("log_die_changed", { n: k + 1, from: b, to: v })).join(", ")}` : line];
  }
  if (a.type === "spend" && events.some((e) => e.type === "spent")) return [];
  const label = optionLabel({ action: a, label: "" }, snap);
  return [label && label !== a.type ? (a.type === "spend" ? label : pname + label) : pname + a.type];
}

// What a move caused, in sentences (engine/dicethrone/story.py): the box's die for Blind or a spent token,
// and the damage of a Roll Phase that ended ("Ben took 8 (Smack), prevented 4 (Missed Me)").
function storyLines(events) {
  const out = [];
  for (const e of events) {
    const who = ctx.findPlayer(e.player);
    if (e.type === "blind") {
      out.push(T("log_blind", { name: name(who), v: e.value, result: T(e.missed ? "log_blind_miss" : "log_blind_hit") }));
    } else if (e.type === "spent") {
      const status = statusName(e.status);
      let line = e.value != null ? T("log_spent_roll", { name: name(who), status, v: e.value }) : T("log_spent", { name: name(who), status });
      if (e.avoided) line += ` · ${T("log_avoided")}`;
      out.push(line);
    } else if (e.type === "targeting") {
      // 2 vs 2: which opponent the targeting die picked (1-2 left, 3-4 right, 5 they choose, 6 the attacker)
      const picked = events.find((x) => x.type === "target");
      const attacker = ctx.findPlayer(e.attacker || (picked && picked.attacker));
      if (picked) out.push(T("log_targeting_picked", { v: e.value, name: name(ctx.findPlayer(picked.defender)) }));
      else if (e.value === 5) out.push(T("log_targeting_opponents", { v: e.value }));
      else out.push(T("log_targeting_attacker", { v: e.value, name: name(attacker) }));
    } else if (e.type === "roll_phase_end") {
      out.push(...damageLines(e));
    } else if (e.type === "health") {
      // outside a Roll Phase's end: Burn or Poison at Upkeep, a Powder Keg, a card's damage
      const names = (e.players || []).map((pid) => name(ctx.findPlayer(pid))).join(" & ");
      out.push(T("log_health", { name: names, from: e.before, to: e.after }));
    } else if (e.type === "defeated") {
      out.push(T("log_defeated", { name: name(who) }));
    } else if (e.type === "manual" && e.text) {  // what the engine cannot do: the players do it by hand
      out.push(T("log_by_hand", { text: typeof e.text === "string" ? e.text : ctx.loc(e.text) }));
    }
  }
  return out;
}

function damageLines(e) {
  const attacker = ctx.findPlayer(e.attacker);
  const lines = [];
  const atk = e.attack;
  const taken = { ...(e.damage || {}) };
  const ability = e.ability ? abilityName(attacker && attacker.hero, e.ability) : "";
  if (atk && atk.to) {
    const target = ctx.findPlayer(atk.to);
    let line = ability ? T("log_took", { name: name(target), n: atk.taken, source: ability }) : T("log_took_plain", { name: name(target), n: atk.taken });
    if (atk.avoided) line += ` · ${T("log_avoided")}`;
    else if (atk.prevented > 0) {
      line += ", " + (e.defense ? T("log_prevented", { n: atk.prevented, source: abilityName(target && target.hero, e.defense) })
        : T("log_prevented_plain", { n: atk.prevented }));
    }
    lines.push(line);
    taken[atk.to] = (taken[atk.to] || 0) - atk.taken;
  }
  // the rest of the Roll Phase's damage (a defense that hits back, collateral...), by its source
  for (const pk of e.packets || []) {
    if (atk && pk.to === atk.to && pk.source === e.ability) continue;
    if (!pk.taken || !(taken[pk.to] > 0)) continue;
    const target = ctx.findPlayer(pk.to);
    lines.push(pk.source ? T("log_took", { name: name(target), n: pk.taken, source: sourceName(pk.source) }) : T("log_took_plain", { name: name(target), n: pk.taken }));
    taken[pk.to] -= pk.taken;
  }
  for (const [pid, n] of Object.entries(taken)) {
    if (n > 0) lines.push(T("log_took_plain", { name: name(ctx.findPlayer(pid)), n }));
  }
  for (const [pid, n] of Object.entries(e.heal || {})) if (n > 0) lines.push(T("log_healed", { name: name(ctx.findPlayer(pid)), n }));
  if (!lines.length && e.ability) lines.push(`${ability}: ${T("log_no_damage")}`);
  return lines;
}

// An id the story names (an ability of any hero, a token, a card) in the page's language.
function sourceName(id) {
  for (const hero of Object.values(heroes())) {
    const ab = (hero.abilities || []).find((x) => x.id === id);
    if (ab) return ctx.loc(ab.name);
  }
  if (statuses()[id]) return statusName(id);
  return id;
}

function cardName(en) {
  const all = catalogue("cards").concat(...catalogue("heroes").map((x) => x.cards || []));
  const card = all.find((c) => c.name && (c.name.en === en || c.id === en));
  return card ? ctx.loc(card.name) : en || "";
}

export function logLine(a, snap) {
  const m = meta.get(a) || {};
  if (a.type === "undo" || a.type === "redo") {
    // "Undone: Ana played Tip It!": the words of the action it took back (or gave back)
    const what = m.of ? textOf(actionLine(m.of, snap, [])) : "";
    if (!what) return null;
    return [T(a.type === "undo" ? "log_undone" : "log_redone", { what })];
  }
  const events = m.undone ? [] : m.events || [];
  const line = actionLine(a, snap, events);
  const told = storyLines(events);
  const { h } = ctx;
  const out = [...line];
  if (told.length) out.push(h("span", { class: "story" + (line.length ? "" : " first") }, told.map((x) => h("span", { class: "storyline", text: x }))));
  // the die the box rolled for Blind or a spent token, drawn as a die
  const boxDice = events.filter((e) => (e.type === "blind" || e.type === "spent") && e.value != null);
  if (boxDice.length) {
    out.push(h("span", { class: "dice small boxdie" }, boxDice.map((e) => ctx.dieElement(e.value, { label: ctx.t("die_value", { v: e.value }) }))));
  }
  if (m.undone) return [h("span", { class: "undone" }, ...out)];
  return out;
}

function textOf(parts) {
  return (parts || []).filter((x) => typeof x === "string").join(" ").trim();
}

// Which log entries are still in effect (an undo takes back the entry on top of the pile, a redo puts it
// back) and each one's move: the snapshot's `moves` counts the actions in effect, so the last one in
// effect is move `moves`. logLine gets the action alone, so this is keyed by the log's action objects.
let meta = new Map();
function logMeta(snap) {
  meta = new Map();
  const stack = [];
  const undone = [];
  let depth = 0;
  const recs = [];
  for (const e of snap.log || []) {
    const a = e.action || {};
    if (a.type === "undo") {
      depth -= 1;
      const top = stack.pop();
      if (top) { top.undone = true; undone.push(top); }
      meta.set(a, { of: top ? top.action : null });
    } else if (a.type === "redo") {
      depth += 1;
      const back = undone.pop();
      if (back) { back.undone = false; stack.push(back); }
      meta.set(a, { of: back ? back.action : null });
    } else {
      depth += 1;
      undone.length = 0;
      const rec = { action: a, depth, undone: false };
      stack.push(rec);
      recs.push(rec);
    }
  }
  const offset = (snap.moves || 0) - depth;
  const byMove = new Map((snap.story || []).map((x) => [x.move, x.events || []]));
  for (const r of recs) meta.set(r.action, { undone: r.undone, move: r.depth + offset, events: r.undone ? [] : byMove.get(r.depth + offset) || [] });
}

// -- setup ------------------------------------------------------------------------------------------
// In 2 vs 2 the first two seats are team A, the last two team B. Called by the setup sheet, maybe before
// this view drew anything, so it takes the sheet's own helpers (`c.text`: the chosen game's texts).
export function seat(mode, i, c) {
  if (mode !== "2v2") return null;
  const team = i < 2 ? "A" : "B";
  return { team, label: c.text("view.team", { n: team }) ?? team };
}

// -- corrections ------------------------------------------------------------------------------------
function renderCorrections(snap) {
  const { h, fill, act } = ctx;
  const box = els.corrections;
  const players = snap.players || [];
  box.hidden = !(ctx.paired() && players.length);
  if (box.hidden) return;
  const details = box.querySelector("details");
  const open = details.open;
  const rows = players.map((p) => {
    const hero = heroOf(p);
    const held = Object.fromEntries((p.statuses || []).map((x) => [x.id, x.count]));
    const ids = [...new Set([...(hero ? hero.statuses : []), ...Object.keys(held)])];
    const line = (label, key, value, make) => h("div", { class: "adjrow", data: { player: p.id, field: key } },
      h("span", { text: label }),
      h("button", { class: "adj", type: "button", "aria-label": `${label} −1`, data: { delta: "-1" }, onclick: () => act(make(-1)).catch(() => {}) }, "−"),
      h("b", { text: String(value) }),
      h("button", { class: "adj", type: "button", "aria-label": `${label} +1`, data: { delta: "1" }, onclick: () => act(make(1)).catch(() => {}) }, "+"));
    const health = line(T("health"), "health", p.health, (d) => ({ type: "adjust", player: p.id, health: d }));
    // health moves in bigger steps too: -5 / +5, or type the health the table shows
    const step = (d) => h("button", { class: "adj", type: "button", "aria-label": `${T("health")} ${d > 0 ? "+" : "−"}5`, data: { delta: String(d) },
      onclick: () => act({ type: "adjust", player: p.id, health: d }).catch(() => {}) }, d > 0 ? "+5" : "−5");
    health.insertBefore(step(-5), health.children[1]);
    health.append(step(5));
    const typed = h("input", { class: "typedhp", type: "number", inputmode: "numeric", min: "0", "aria-label": T("health_set"),
      placeholder: String(p.health ?? ""), data: { player: p.id } });
    const setTo = () => {
      const v = parseInt(typed.value, 10);
      if (Number.isFinite(v) && v !== p.health) act({ type: "adjust", player: p.id, health: v - p.health }).catch(() => {});
      typed.value = "";
    };
    typed.addEventListener("change", setTo);
    return h("div", { class: "adjplayer", data: { player: p.id } }, h("h3", { text: name(p) }),
      health,
      h("label", { class: "adjrow typed", data: { player: p.id, field: "health_set" } }, h("span", { text: T("health_set") }), typed),
      line(T("cp"), "cp", p.cp, (d) => ({ type: "adjust", player: p.id, cp: d })),
      ids.map((id) => line(statusName(id), id, held[id] || 0, (d) => ({ type: "adjust", player: p.id, status: { [id]: d } }))));
  });
  fill(box.querySelector("#adjust"), ...rows);
  details.open = open;
}

// -- cards played from the phone ------------------------------------------------------------------
// Hands are counts (the engine cannot know which cards a player holds), so the phone offers the hero's
// cards and the generic deck, asks for what the card needs (a die, a value, a player, a token) and submits
// a `play` action (docs/actions.md). What each card asks for, by card id; cards not listed need nothing,
// or a target when there is a choice.
const ARGS = {
  six_it: ["die"],
  so_wild: ["die", "value"],
  twice_as_wild: ["die", "value", "die2", "value2"],
  tip_it: ["die", "delta"],
  try_try_again: ["dice2"],
  helping_hand: ["die"],
  samesies: ["die", "to_die"],
  better_d: ["keep"],
  not_this_time: ["target_self"],
  get_that_outta_here: ["target_any", "status"],
  buh_bye: ["target_any", "status"],
  what_status_effects: ["target_any"],
  transference: ["target_any", "status", "to"],
};

function players() {
  return (ctx.S.snap && ctx.S.snap.players) || [];
}

function renderCards(snap) {
  const box = els.cards;
  const show = ctx.paired() && (snap.players || []).length && snap.phase !== "over";
  box.hidden = !show;
  if (!show) return;
  if (!box.querySelector("details").open) return; // drawn when opened (the list is long)
  drawCards();
}

function cardButton(card, player) {
  const { h, loc } = ctx;
  const kind = card.type || "instant";
  return h("button", { class: "cardbtn", type: "button", data: { card: card.id }, onclick: () => openCard(card, player) },
    h("span", { class: "cname", text: loc(card.name) }),
    h("small", { text: `${T("cost_cp", { n: card.cost ?? 0 })} · ${has("when_" + kind) ? T("when_" + kind) : kind}` }),
    card.text ? h("small", { class: "ctext", text: loc(card.text) }) : null);
}

function drawCards() {
  const { h, fill } = ctx;
  const list = players();
  const sel = els.cards.querySelector("#cardplayer");
  const snap = ctx.S.snap;
  const wanted = sel.value || (snap.pending && snap.pending.player) || snap.active;
  fill(sel, ...list.map((p) => h("option", { value: p.id, text: name(p), selected: p.id === wanted || null })));
  sel.value = list.some((p) => p.id === wanted) ? wanted : (list[0] ? list[0].id : "");
  const player = list.find((p) => p.id === sel.value) || list[0];
  if (!player) return;
  const hero = heroOf(player);
  const own = ((hero && hero.cards) || []).filter((c) => c.type !== "upgrade");
  const generic = catalogue("cards");
  fill(els.cards.querySelector("#cardlist"),
    h("small", { class: "muted", text: T("cards", { n: player.hand ?? "?" }) }),
    own.length ? h("h3", { text: T("hero_cards") }) : null,
    own.length ? h("div", { class: "cardgrid" }, own.map((c) => cardButton(c, player))) : null,
    h("h3", { text: T("generic_cards") }),
    h("div", { class: "cardgrid" }, generic.map((c) => cardButton(c, player))));
}

function diePicker(key, multi = 0) {
  const { h, t, dieElement } = ctx;
  const row = h("div", { class: "pick dice", data: { name: key } });
  (ctx.S.snap.dice || []).forEach((d, k) => {
    const b = h("button", { class: "diebtn pickbtn", type: "button", data: { k: String(k) }, "aria-pressed": "false",
      onclick: () => {
        const on = b.getAttribute("aria-pressed") === "true";
        if (!multi) row.querySelectorAll("button").forEach((x) => x.setAttribute("aria-pressed", "false"));
        else if (!on && row.querySelectorAll("[aria-pressed='true']").length >= multi) return;
        b.setAttribute("aria-pressed", on && multi ? "false" : "true");
      } }, dieElement(d.value, { face: d.face, label: ctx.dieLabel(ctx.S.snap.dice_set, d.value) }));
    row.append(b);
  });
  return row;
}

function valuePicker(key) {
  const { h, t, dieElement } = ctx;
  const row = h("div", { class: "pick values", data: { name: key } });
  for (let v = 1; v <= 6; v++) {
    const b = h("button", { class: "diebtn pickbtn", type: "button", data: { v: String(v) }, "aria-pressed": "false",
      onclick: () => { row.querySelectorAll("button").forEach((x) => x.setAttribute("aria-pressed", "false")); b.setAttribute("aria-pressed", "true"); } },
    dieElement(v, { label: t("die_value", { v }) }));
    row.append(b);
  }
  return row;
}

function playerSelect(key, dflt) {
  const { h } = ctx;
  return h("select", { class: "pick", data: { name: key } },
    players().map((p) => h("option", { value: p.id, text: name(p), selected: p.id === dflt || null })));
}

function statusSelect(key, targetSel) {
  const { h, fill, loc } = ctx;
  const sel = h("select", { class: "pick", data: { name: key } });
  const refill = () => {
    const p = players().find((x) => x.id === targetSel.value);
    const held = ((p && p.statuses) || []).filter((x) => x.count > 0);
    fill(sel, ...held.map((x) => h("option", { value: x.id, text: loc(x.name) || statusName(x.id) })));
  };
  targetSel.addEventListener("change", refill);
  refill();
  return sel;
}

function picked(form, key) {
  const node = form.querySelector(`[data-name='${key}']`);
  if (!node) return undefined;
  if (node.tagName === "SELECT") return node.value || undefined;
  return [...node.querySelectorAll("[aria-pressed='true']")].map((b) => Number(b.dataset.k ?? b.dataset.v));
}

function openCard(card, player) {
  const { h, fill, loc, t, act } = ctx;
  const { dialog, form } = ctx.sheet();
  const args = ARGS[card.id] || (players().length > 2 && card.type !== "upgrade" ? ["target_opt"] : []);
  const me = player.id;
  const opp = players().find((p) => p.team !== player.team) || player;
  const fields = [];
  let targetSel = null;
  for (const a of args) {
    if (a === "die") fields.push(h("label", { text: T("pick_die") }), diePicker("die"));
    if (a === "die2") fields.push(h("label", { text: T("pick_second") }), diePicker("die2"));
    if (a === "value") fields.push(h("label", { text: T("pick_value") }), valuePicker("value"));
    if (a === "value2") fields.push(valuePicker("value2"));
    if (a === "dice2") fields.push(h("label", { text: T("pick_dice", { n: 2 }) }), diePicker("dice", 2));
    if (a === "keep") fields.push(h("label", { text: T("pick_keep") }), diePicker("keep", 5));
    if (a === "to_die") fields.push(h("label", { text: T("pick_to_die") }), diePicker("to"));
    if (a === "delta") {
      fields.push(h("label", { text: T("pick_delta") }), h("div", { class: "row pick", data: { name: "delta" } },
        [["+1", 1], ["−1", -1]].map(([txt, v]) => {
          const b = h("button", { type: "button", class: "pickbtn", data: { v: String(v) }, "aria-pressed": v === 1 ? "true" : "false",
            onclick: () => { b.parentNode.querySelectorAll("button").forEach((x) => x.setAttribute("aria-pressed", "false")); b.setAttribute("aria-pressed", "true"); } }, txt);
          return b;
        })));
    }
    if (a.startsWith("target")) {
      targetSel = playerSelect("target", a === "target_self" ? me : opp.id);
      fields.push(h("label", { text: T("pick_target") }), targetSel);
    }
    if (a === "status") fields.push(h("label", { text: T("pick_status") }), statusSelect("status", targetSel));
    if (a === "to") fields.push(h("label", { text: T("pick_to") }), playerSelect("to", me));
  }
  fill(form,
    h("p", { class: "warn sheeterr", id: "carderr", role: "alert", hidden: true }),
    h("h2", { text: `${loc(card.name)} · ${T("cost_cp", { n: card.cost ?? 0 })}` }),
    h("p", { class: "muted", text: name(player) }),
    card.text ? h("p", { class: "muted", text: loc(card.text) }) : null,
    ...fields,
    h("div", { class: "row" },
      h("button", { type: "button", class: "ghost", onclick: () => dialog.close() }, t("cancel")),
      h("button", { type: "button", class: "primary", id: "cardplay", onclick: async () => {
        const action = { type: "play", player: me, card: card.name.en || card.id };
        const one = (key) => { const v = picked(form, key); return Array.isArray(v) ? v[0] : v; };
        if (args.includes("die")) action.die = one("die");
        if (args.includes("value")) action.value = one("value");
        if (args.includes("die2")) action.changes = [{ die: one("die"), value: one("value") }, { die: one("die2"), value: one("value2") }];
        if (args.includes("delta")) action.delta = one("delta");
        if (args.includes("dice2")) action.dice = picked(form, "dice");
        if (args.includes("keep")) action.keep = picked(form, "keep");
        if (args.includes("to_die")) action.to = one("to");
        if (args.some((x) => x.startsWith("target"))) action.target = picked(form, "target");
        if (args.includes("status")) action.status = picked(form, "status");
        if (args.includes("to")) action.to = picked(form, "to");
        if (card.id === "twice_as_wild") { delete action.die; delete action.value; }
        // what is missing is said inside the sheet (a toast would sit under its dimmed backdrop)
        const missing = missingPick(args, action);
        if (missing) { sheetError(form, T("pick_first", { what: missing })); return; }
        try { await act(action); dialog.close(); } catch (err) { sheetError(form, (err && err.message) || ""); }
      } }, T("play"))));
  dialog.showModal();
}

// -- a card's picks, checked before it is sent ------------------------------------------------------
// The first thing the card still needs, in the page's words, or null.
function missingPick(args, action) {
  if (args.includes("die") && action.die == null && !action.changes) return T("pick_die");
  if (args.includes("die2") && (!action.changes || action.changes.some((c) => c.die == null || c.value == null))) return T("pick_second");
  if (args.includes("value") && action.value == null && !action.changes) return T("pick_value");
  if (args.includes("dice2") && (action.dice || []).length === 0) return T("pick_dice", { n: 2 });
  if (args.includes("to_die") && action.to == null) return T("pick_to_die");
  if (args.includes("status") && !action.status) return T("pick_status");
  return null;
}

function sheetError(form, text) {
  const box = form.querySelector("#carderr");
  if (!box) return;
  box.textContent = text;
  box.hidden = !text;
  box.scrollIntoView({ block: "nearest" });
}

// -- damage you can follow ------------------------------------------------------------------------
// Before the damage is applied (the Roll Phase's attack, its other damage and heals), per player:
// incoming, prevented (the defense, tokens, halves), what will be taken, and heals.
function renderDamage(snap) {
  const { h, fill } = ctx;
  const box = els.damage;
  const rp = snap.roll_phase;
  const rows = new Map();
  const row = (pid) => {
    if (!rows.has(pid)) rows.set(pid, { incoming: 0, prevented: 0, taken: 0, heal: 0, avoided: false });
    return rows.get(pid);
  };
  if (rp && rp.attack && rp.target) {
    const a = rp.attack;
    const mods = (a.mods || []).filter((m) => m.kind === "modifier").reduce((n, m) => n + m.amount, 0);
    const incoming = Math.max(0, a.base + (a.type === "pure" || a.type === "collateral" ? 0 : mods));
    const r = row(rp.target);
    r.incoming += incoming;
    r.taken += a.taken;
    r.prevented += Math.max(0, incoming - a.taken);
    r.avoided = r.avoided || a.avoided;
  }
  for (const d of (rp && rp.other_damage) || []) {
    const r = row(d.to);
    r.incoming += d.amount;
    r.taken += d.amount;
  }
  for (const x of (rp && rp.heals) || []) row(x.to).heal += x.amount;
  box.hidden = !rows.size;
  if (!rows.size) { fill(box); return; }
  const target = ctx.findPlayer(rp.target);
  const defense = rp.defense && rp.defense.id ? abilityName(target && target.hero, rp.defense.id) : "";
  const cell = (cls, label, v) => h("div", { class: "dmg " + cls }, h("small", { text: label }), h("b", { text: String(v) }));
  fill(box, h("h3", { text: T("dmg_title") }),
    h("div", { class: "dmgrows" }, [...rows.entries()].map(([pid, r]) => h("div", { class: "dmgrow", data: { player: pid } },
      h("strong", { text: name(ctx.findPlayer(pid)) }),
      cell("in", T("dmg_incoming"), r.incoming),
      cell("prev", r.avoided ? T("dmg_avoided") : T("dmg_prevented"), r.avoided ? "✓" : r.prevented),
      cell("take", T("dmg_taken"), r.avoided ? 0 : r.taken),
      cell("heal", T("dmg_heal"), r.heal)))),
    defense ? h("small", { class: "muted", text: `${T("dmg_defense")}: ${defense}` }) : null,
    h("small", { class: "muted", text: T("dmg_note") }));
}

// After it: the change on each player's card, while the Roll Phase that caused it is the latest news.
function lastChange(snap) {
  const story = snap.story || [];
  for (let k = story.length - 1; k >= 0; k--) {
    const end = (story[k].events || []).find((e) => e.type === "roll_phase_end");
    if (!end) continue;
    if (story[k].move < (snap.moves || 0) - 2 && snap.phase !== "over") return null;
    const out = {};
    for (const [pid, n] of Object.entries(end.damage || {})) out[pid] = (out[pid] || 0) - n;
    for (const [pid, n] of Object.entries(end.heal || {})) out[pid] = (out[pid] || 0) + n;
    return out;
  }
  return null;
}

function deltaChip(change, p) {
  if (!change) return null;
  // 2 vs 2: the team's health moves for any member; shown on the card that shows the team's health
  const ids = ctx.S.snap && ctx.S.snap.mode === "2v2"
    ? ((ctx.S.snap.teams || []).find((tm) => (tm.members || []).includes(p.id)) || { members: [p.id] }).members : [p.id];
  const n = ids.reduce((sum, id) => sum + (change[id] || 0), 0);
  if (!n && !ids.some((id) => id in change)) return null;
  return ctx.h("small", { class: "delta " + (n < 0 ? "down" : n > 0 ? "up" : ""), data: { delta: String(n) }, text: n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0" });
}

// -- the end: a recap and "play again" --------------------------------------------------------------
function renderRecap(snap) {
  const { h, fill, dieElement, t } = ctx;
  const box = els.recap;
  const over = snap.phase === "over";
  box.hidden = !over;
  if (!over) { fill(box); return; }
  const stats = snap.stats || {};
  const winners = snap.winners || [];
  const players = [...(snap.players || [])].sort((a, b) => Number(winners.includes(b.id)) - Number(winners.includes(a.id)));
  fill(box, h("h2", { text: T("recap_title") }),
    ...players.map((p) => {
      const s = stats[p.id] || { dealt: 0, taken: 0, healed: 0, abilities: {}, dice: 0, faces: [0, 0, 0, 0, 0, 0] };
      const used = Object.entries(s.abilities || {}).sort((a, b) => b[1] - a[1])
        .map(([id, n]) => `${abilityName(p.hero, id)} ×${n}`).join(", ");
      const hero = heroOf(p);
      return h("div", { class: "recaprow" + (winners.includes(p.id) ? " won" : ""), data: { player: p.id } },
        h("h3", { text: `${winners.includes(p.id) ? "★ " : ""}${name(p)} · ${hero ? ctx.loc(hero.name) : p.hero}` }),
        h("div", { class: "recapnums" },
          h("div", {}, h("small", { text: T("recap_dealt") }), h("b", { class: "dealt", text: String(s.dealt) })),
          h("div", {}, h("small", { text: T("recap_taken") }), h("b", { class: "taken", text: String(s.taken) })),
          h("div", {}, h("small", { text: T("recap_healed") }), h("b", { class: "healed", text: String(s.healed) }))),
        h("p", {}, h("small", { text: T("recap_abilities") + (ctx.S.lang === "zh-TW" ? "：" : ": ") }), h("span", { class: "used", text: used || T("recap_none") })),
        h("p", { class: "recapdice" }, h("small", { text: T("recap_dice", { n: s.dice }) }),
          h("span", { class: "dice small" }, (s.faces || []).map((n, k) => h("span", { class: "facecount" },
            dieElement(k + 1, { face: hero && hero.faces ? hero.faces[k] : undefined, label: t("die_value", { v: k + 1 }) }), h("b", { text: `×${n}` }))))));
    }),
    ctx.paired() ? h("button", { class: "big primary", type: "button", id: "playagain", onclick: () => playAgain(snap) }, T("play_again")) : null);
}

// The same players, heroes, mode and starting health, on a new game (the loser of this one starts).
function playAgain(snap) {
  const players = (snap.players || []).map((p) => ({ id: p.id, name: p.name, hero: p.hero }));
  const winners = snap.winners || [];
  const loser = players.find((p) => !winners.includes(p.id));
  const setup = { mode: snap.mode, players, health: (snap.players[0] || {}).health_start };
  if (loser) setup.start = loser.id;
  // the box answers with the new game's snapshot, shown at once (the live stream brings it too, and `apply`
  // keeps one of the two); a refusal is toasted by `api`
  return ctx.api("POST", "/api/games", { game: "dicethrone", setup }).then((s) => s && ctx.apply(s)).catch(() => {});
}
