// The venue board (dicesight venue): every table of the venue, live over server-sent events from the venue's
// server (webui/venue.py), which hears the boxes on the MQTT broker. Everything a box sent is written as text,
// never as HTML: any client of the broker could have sent it.
import { S, t, loc, h, fill, $ } from "./core.js";
import { dieElement } from "./dice.js";

const V = { tables: new Map(), broker: null, skew: 0, online: false, queued: false, photos: new Map() };
const JUST_NOW_S = 5;  // a table that dropped this recently says "just now", not "for 0 s"

// Seconds since a moment the venue's server stamped (its clock, not the screen's).
function ago(epoch) {
  if (epoch == null) return null;
  return Math.max(0, Math.round((Date.now() + V.skew) / 1000 - epoch));
}

function duration(s) {
  return s < 120 ? t("seconds", { n: s }) : t("minutes", { n: Math.round(s / 60) });
}

function scoreCell(score, player) {
  const value = player.scores ? player.scores[score.key] : null;
  const max = player.max ? player.max[score.key] : null;
  const text = value == null ? "–" : String(value) + (max != null ? `/${max}` : "");
  return h("span", { data: { score: score.key }, class: score.life && value === 0 ? "zero" : null },
    h("small", { class: "muted", text: loc(score.name) || score.key }), " ", h("b", { text }));
}

function playerRow(board, p) {
  const turn = board.turn === p.id && !board.over;
  const won = (board.winners || []).includes(p.id);
  return h("li", { class: [turn ? "turn" : "", won ? "won" : ""].join(" ").trim() || null, data: { player: p.id } },
    h("span", { class: "who" }, turn ? h("span", { class: "turnmark", text: "▶ " }) : null, won ? "★ " : null, p.name),
    h("span", { class: "scores" }, (board.scores || []).map((s) => scoreCell(s, p))));
}

// A face that is a number ("1" on a King of Tokyo die) is drawn as that number, not as an unknown symbol.
function numberFace(face) {
  return /^\d+$/.test(String(face ?? "")) ? Number(face) : null;
}

// The box's shared thumbnail of this very roll (the venue sends `photo` only while its seq is the roll's; the
// page checks again). One element per box and photo, reused by every render, so it never flickers.
function rollPhoto(row, roll) {
  const photo = row.photo;
  if (!photo || photo.seq !== roll.seq) return null;
  const kept = V.photos.get(row.box);
  if (kept && kept.tag === photo.tag) return kept.img;
  const img = h("img", {
    class: "rollphoto", alt: t("roll_photo"), width: photo.width, height: photo.height,
    src: `/tables/${encodeURIComponent(row.box)}/photo.jpg?v=${encodeURIComponent(photo.tag)}`,
  });
  V.photos.set(row.box, { tag: photo.tag, img });
  return img;
}

function rollRow(row) {
  const board = row.board;
  const roll = board.last_roll;
  if (!roll || !roll.dice || !roll.dice.length) return null;
  const who = (board.players || []).find((p) => p.id === roll.player);
  const dice = roll.dice.map((d) => d.value == null && d.face == null
    ? dieElement(null, { colour: d.colour, label: t("hidden_die") })
    : dieElement(d.value ?? numberFace(d.face), { face: d.face, colour: d.colour }));
  return h("div", { class: "roll", data: { seq: roll.seq } },
    h("small", { class: "muted", text: who ? t("rolled_by", { name: who.name }) : t("last_roll") }),
    h("span", { class: "dice small" }, dice),
    rollPhoto(row, roll));
}

function gameLines(row) {
  const board = row.board;
  if (!board || !board.game) return [h("p", { class: "muted", text: t("no_game") })];
  const names = (board.players || []).filter((p) => (board.winners || []).includes(p.id)).map((p) => p.name);
  const turn = (board.players || []).find((p) => p.id === board.turn);
  return [
    h("div", { class: "game" }, h("b", { text: loc(board.title) || board.game }),
      board.phase ? h("small", { class: "muted", text: loc(board.phase.name) || board.phase.id }) : null,
      turn && !board.over ? h("small", { text: t("to_play", { name: turn.name }) }) : null),
    names.length ? h("p", { class: "won-banner", text: t("winners", { names: names.join(", ") }) })
      : board.over ? h("p", { class: "won-banner", text: t("game_over") }) : null,
    board.players && board.players.length ? h("ul", { class: "players" }, board.players.map((p) => playerRow(board, p))) : null,
    rollRow(row),
  ];
}

function statusBadge(row) {
  const status = row.status || "unknown";
  let text = t(`table_${status}`);
  const gone = status === "offline" ? ago(row.since) : null;
  if (gone != null) text = gone < JUST_NOW_S ? t("offline_now") : t("offline_since", { s: duration(gone) });
  return h("span", { class: `status ${status}`, text });
}

function tableCard(row) {
  return h("article", { class: `card table ${row.status || "unknown"}`, data: { box: row.box, status: row.status } },
    h("header", {}, h("h2", { text: row.name || row.box }), statusBadge(row)),
    gameLines(row));
}

function render() {
  V.queued = false;
  const rows = [...V.tables.values()].sort((a, b) =>
    (a.name || a.box).toLowerCase().localeCompare((b.name || b.box).toLowerCase()) || a.box.localeCompare(b.box));
  fill($("tables"), rows.map(tableCard));
  $("empty").hidden = rows.length > 0 || !V.online;
  const online = rows.filter((r) => r.status === "online").length;
  $("count").textContent = rows.length ? t("tables_n", { online, n: rows.length }) : "";
  const live = $("live");
  live.textContent = V.online ? t("live") : t("offline");
  live.classList.toggle("on", V.online);
  const banner = $("banner");
  const brokerDown = V.online && V.broker && !V.broker.connected;
  banner.hidden = !brokerDown && V.online;
  banner.textContent = !V.online ? t("offline") : brokerDown ? t("broker_down") : "";
}

// Many tables change many times a second: draw at most once per frame.
function later() {
  if (V.queued) return;
  V.queued = true;
  requestAnimationFrame(render);
}

function stamp(data) {
  if (data && typeof data.now === "number") V.skew = data.now * 1000 - Date.now();
}

function connect() {
  const es = new EventSource("/api/events");
  es.addEventListener("open", () => { V.online = true; later(); });
  es.addEventListener("error", () => { V.online = false; later(); });
  es.addEventListener("board", (e) => {
    const data = JSON.parse(e.data);
    stamp(data);
    V.tables = new Map(data.tables.map((row) => [row.box, row]));
    V.broker = data.broker;
    V.online = true;
    later();
  });
  es.addEventListener("table", (e) => {
    const row = JSON.parse(e.data);
    stamp(row);
    V.tables.set(row.box, row);
    later();
  });
  es.addEventListener("broker", (e) => {
    V.broker = JSON.parse(e.data);
    later();
  });
}

document.documentElement.lang = S.lang;
connect();
render();
setInterval(later, 1000);  // "offline for 12 s" keeps counting
