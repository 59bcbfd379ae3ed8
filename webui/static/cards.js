// Playing a Dice Throne card from the phone. Hands are counts (the engine cannot know which cards a player
// holds), so the phone offers the hero's cards and the generic deck, asks for what the card needs (a die, a
// value, a player, a token) and submits a `play` action (docs/actions.md).
import { dieElement } from "./dice.js";
import { S, act, fill, h, loc, t } from "./app.js";

const $ = (id) => document.getElementById(id);

// What each card asks for (by card id); cards not listed need nothing, or a target when there is a choice.
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
  return (S.snap && S.snap.players) || [];
}

function nameOf(p) {
  return p.name || p.id;
}

function cardsFor(player) {
  const hero = S.data.heroes[player.hero];
  const own = ((hero && hero.cards) || []).filter((c) => c.type !== "upgrade");
  return { own, generic: S.data.cards || [] };
}

function cardButton(card, player) {
  const when = t("when_" + (card.type || "instant"));
  return h("button", { class: "cardbtn", type: "button", data: { card: card.id },
    onclick: () => openCard(card, player) },
  h("span", { class: "cname", text: loc(card.name) }),
  h("small", { text: `${t("cost_cp", { n: card.cost ?? 0 })} · ${when.startsWith("when_") ? card.type : when}` }));
}

export function renderCards(snap) {
  const box = $("cards");
  const show = S.session.paired && snap.game === "dicethrone" && (snap.players || []).length && snap.phase !== "over";
  box.hidden = !show;
  if (!show) return;
  const details = box.querySelector("details");
  if (!details.open) return; // drawn when opened (the list is long)
  drawCards();
}

function drawCards() {
  const list = players();
  const sel = $("cardplayer");
  const wanted = sel.value || (S.snap.pending && S.snap.pending.player) || S.snap.active;
  fill(sel, ...list.map((p) => h("option", { value: p.id, text: nameOf(p), selected: p.id === wanted || null })));
  const player = list.find((p) => p.id === sel.value) || list[0];
  if (!player) return;
  const { own, generic } = cardsFor(player);
  fill($("cardlist"),
    h("small", { class: "muted", text: t("cards", { n: player.hand ?? "?" }) }),
    own.length ? h("h3", { text: t("hero_cards") }) : null,
    own.length ? h("div", { class: "cardgrid" }, own.map((c) => cardButton(c, player))) : null,
    h("h3", { text: t("generic_cards") }),
    h("div", { class: "cardgrid" }, generic.map((c) => cardButton(c, player))));
}

// -- the card's form ------------------------------------------------------------------------------
function diePicker(name, multi = 0) {
  const dice = (S.snap.dice || []);
  const row = h("div", { class: "pick dice", data: { name } });
  dice.forEach((d, k) => {
    const b = h("button", { class: "diebtn pickbtn", type: "button", data: { k: String(k) }, "aria-pressed": "false",
      onclick: () => {
        const on = b.getAttribute("aria-pressed") === "true";
        if (!multi) row.querySelectorAll("button").forEach((x) => x.setAttribute("aria-pressed", "false"));
        else if (!on && row.querySelectorAll("[aria-pressed='true']").length >= multi) return;
        b.setAttribute("aria-pressed", on && multi ? "false" : "true");
      } }, dieElement(d.value, { face: d.face, label: t("die_value", { v: d.value ?? "?" }) }));
    row.append(b);
  });
  return row;
}

function valuePicker(name) {
  const row = h("div", { class: "pick values", data: { name } });
  for (let v = 1; v <= 6; v++) {
    const b = h("button", { class: "diebtn pickbtn", type: "button", data: { v: String(v) }, "aria-pressed": "false",
      onclick: () => { row.querySelectorAll("button").forEach((x) => x.setAttribute("aria-pressed", "false")); b.setAttribute("aria-pressed", "true"); } },
    dieElement(v, { label: t("die_value", { v }) }));
    row.append(b);
  }
  return row;
}

function playerSelect(name, dflt) {
  return h("select", { class: "pick", data: { name } },
    players().map((p) => h("option", { value: p.id, text: nameOf(p), selected: p.id === dflt || null })));
}

function statusSelect(name, targetSel) {
  const sel = h("select", { class: "pick", data: { name } });
  const refill = () => {
    const p = players().find((x) => x.id === targetSel.value);
    const held = ((p && p.statuses) || []).filter((x) => x.count > 0);
    fill(sel, ...held.map((x) => h("option", { value: x.id, text: loc(x.name) || x.id })));
  };
  targetSel.addEventListener("change", refill);
  refill();
  return sel;
}

function picked(form, name) {
  const node = form.querySelector(`[data-name='${name}']`);
  if (!node) return undefined;
  if (node.tagName === "SELECT") return node.value || undefined;
  const on = [...node.querySelectorAll("[aria-pressed='true']")];
  const vals = on.map((b) => Number(b.dataset.k ?? b.dataset.v));
  return vals;
}

function openCard(card, player) {
  const dlg = $("carddlg");
  const form = $("cardform");
  const args = ARGS[card.id] || (players().length > 2 && card.type !== "upgrade" ? ["target_opt"] : []);
  const me = player.id;
  const opp = players().find((p) => p.team !== player.team) || player;
  const fields = [];
  let targetSel = null;
  for (const a of args) {
    if (a === "die") fields.push(h("label", { text: t("pick_die") }), diePicker("die"));
    if (a === "die2") fields.push(h("label", { text: t("pick_second") }), diePicker("die2"));
    if (a === "value") fields.push(h("label", { text: t("pick_value") }), valuePicker("value"));
    if (a === "value2") fields.push(valuePicker("value2"));
    if (a === "dice2") fields.push(h("label", { text: t("pick_dice", { n: 2 }) }), diePicker("dice", 2));
    if (a === "keep") fields.push(h("label", { text: t("pick_keep") }), diePicker("keep", 5));
    if (a === "to_die") fields.push(h("label", { text: t("pick_to_die") }), diePicker("to"));
    if (a === "delta") {
      fields.push(h("label", { text: t("pick_delta") }), h("div", { class: "row pick", data: { name: "delta" } },
        [["+1", 1], ["−1", -1]].map(([txt, v]) => {
          const b = h("button", { type: "button", class: "pickbtn", data: { v: String(v) }, "aria-pressed": v === 1 ? "true" : "false",
            onclick: () => { b.parentNode.querySelectorAll("button").forEach((x) => x.setAttribute("aria-pressed", "false")); b.setAttribute("aria-pressed", "true"); } }, txt);
          return b;
        })));
    }
    if (a.startsWith("target")) {
      targetSel = playerSelect("target", a === "target_self" ? me : opp.id);
      fields.push(h("label", { text: t("pick_target") }), targetSel);
    }
    if (a === "status") fields.push(h("label", { text: t("pick_status") }), statusSelect("status", targetSel));
    if (a === "to") fields.push(h("label", { text: t("pick_to") }), playerSelect("to", me));
  }
  fill(form,
    h("h2", { text: `${loc(card.name)} · ${t("cost_cp", { n: card.cost ?? 0 })}` }),
    h("p", { class: "muted", text: nameOf(player) }),
    card.text ? h("p", { class: "muted", text: loc(card.text) }) : null,
    ...fields,
    h("div", { class: "row" },
      h("button", { type: "button", class: "ghost", onclick: () => dlg.close() }, t("cancel")),
      h("button", { type: "button", class: "primary", id: "cardplay", onclick: async () => {
        const action = { type: "play", player: me, card: card.name.en || card.id };
        const one = (name) => { const v = picked(form, name); return Array.isArray(v) ? v[0] : v; };
        if (args.includes("die")) action.die = one("die");
        if (args.includes("value")) action.value = one("value");
        if (args.includes("die2")) action.changes = [{ die: one("die"), value: one("value") }, { die: one("die2"), value: one("value2") }];
        if (args.includes("delta")) action.delta = one("delta");
        if (args.includes("dice2")) action.dice = picked(form, "dice");
        if (args.includes("keep")) action.keep = picked(form, "keep");
        if (args.includes("to_die")) action.to = one("to");
        if (args.some((a) => a.startsWith("target"))) action.target = picked(form, "target");
        if (args.includes("status")) action.status = picked(form, "status");
        if (args.includes("to")) action.to = picked(form, "to");
        if (card.id === "twice_as_wild") { delete action.die; delete action.value; }
        try { await act(action); dlg.close(); } catch { /* the toast says why */ }
      } }, t("play"))));
  dlg.showModal();
}

export function initCards() {
  const box = $("cards");
  box.querySelector("details").addEventListener("toggle", () => { if (box.querySelector("details").open) drawCards(); });
  $("cardplayer").addEventListener("change", drawCards);
}
