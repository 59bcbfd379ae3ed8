// The free-roll board view (docs/architecture.md, "Board views"): no players, no rules, only the last rolls
// with their totals, who read them (camera or hand) and their photos. Words: the page's own (ctx.t).

let els = null;

export function init(slots, ctx) {
  const { h } = ctx;
  els = {
    card: h("section", { class: "card", id: "rollscard" },
      h("h2", { text: ctx.t("rolls") }), h("ol", { id: "rolls", class: "rolls" })),
  };
  ctx.fill(slots.tools, els.card);
}

export function render(slots, snap, ctx) {
  const { h, fill, t, dieElement } = ctx;
  const rolls = snap.rolls || [];
  els.card.hidden = !Array.isArray(snap.rolls);
  const list = els.card.querySelector("#rolls");
  if (!rolls.length) { fill(list, h("li", { class: "muted", text: t("no_rolls") })); return; }
  fill(list, ...rolls.slice(0, 12).map((r) => h("li", { data: { n: String(r.n) } },
    h("span", { class: "rn", text: `#${r.n}` }),
    h("span", { class: "dice small" }, r.dice.map((d) => dieElement(d.value, { face: d.face, colour: d.colour, label: t("die_value", { v: d.value }) }))),
    h("span", { class: "rt" }, h("small", { text: t("total") }), h("b", { text: String(r.total) })),
    // a reading the camera was unsure of, confirmed or fixed on a phone, keeps the tray's photo (device.table)
    h("small", { class: "src", text: t(r.source === "camera" ? "by_camera" : r.image ? "by_camera_confirmed" : "by_hand") }),
    r.image ? ctx.rollPhoto(r.image, snap) : null,
  )));
}
