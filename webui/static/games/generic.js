// The board a game gets before it has its own view (docs/architecture.md, "Board views"): each player's
// name and the plain numbers of its public state (health, VP, energy...), labelled by the game's texts
// `view.<field>` when it has them. A game replaces it with webui/static/games/<view>.js.

let box = null;

export function init(slots, ctx) {
  box = ctx.h("section", { id: "players", class: "players", hidden: true });
  ctx.fill(slots.board, box);
}

export function render(slots, snap, ctx) {
  const { h, fill } = ctx;
  const players = snap.players || [];
  box.hidden = !players.length;
  box.dataset.count = String(players.length);
  fill(box, ...players.map((p) => h("article", { class: "player" + (p.id === snap.active ? " active" : ""), data: { player: p.id } },
    h("header", {}, h("strong", { class: "pname", text: (p.id === snap.active ? "▶ " : "") + ctx.playerName(p) })),
    h("div", { class: "stats" }, Object.entries(p)
      .filter(([k, v]) => typeof v === "number" && k !== "seat")
      .map(([k, v]) => h("div", { class: "stat", data: { field: k } }, h("small", { text: ctx.text("view." + k) ?? k }), h("b", { text: String(v) })))))));
}
