// Pig's board (the test suite's tiny game): each player's score and the turn's points.
let box = null;

export function init(slots, ctx) {
  box = ctx.h("section", { id: "players", class: "players" });
  ctx.fill(slots.board, box);
}

export function render(slots, snap, ctx) {
  const { h, fill } = ctx;
  fill(box, ...(snap.players || []).map((p) => h("article", { class: "player" + (p.id === snap.active ? " active" : ""), data: { player: p.id } },
    h("strong", { class: "pname", text: ctx.playerName(p) }), h("b", { class: "score", text: String(p.score) }))),
  h("p", { id: "pigturn", text: String(snap.turn ?? 0) }));
}
