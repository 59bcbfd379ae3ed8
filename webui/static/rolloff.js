// Roll for who starts on the tray, for a game whose description has that rule (`start.tray`: the die's set
// and sides; Dice Throne rules §1): each player in turn throws one die into the tray; the page reads the
// live tray (snapshot.tray) and records nothing in any game. Highest starts; the players tied for highest
// roll again. A die the camera is unsure of is confirmed by a tap, and every throw can be entered by hand.
// No game is named here: players are {name}, the rule is the game's.
import { dieElement } from "./dice.js";
import { S, api, demoThrows, fill, h, t, throwDemo } from "./core.js";

let R = null; // {players, rule, rounds: [{who: [index], values: {index: value}}], used, winner, box, onStart, onBack}

export function rolloffActive() {
  return R !== null;
}

// While the roll-off is open the box shows camera throws without recording them in the current game.
function observe(seconds) {
  api("POST", "/api/tray/observe", { seconds }).catch(() => {});
}

export function stopRolloff() {
  if (R !== null) observe(0);
  R = null;
}

// box: the element to draw into; players: [{name}]; rule: the game's `start.tray` ({set, sides});
// onStart(index) creates the game; onBack() returns.
export function startRolloff(box, players, rule, onStart, onBack) {
  const tray = (S.snap && S.snap.tray) || {};
  observe(300);
  R = {
    box, players, rule: rule || { sides: 6 }, onStart, onBack, winner: null,
    rounds: [{ who: players.map((_, i) => i), values: {} }],
    // dice already lying settled on the tray are from before: the first throw must be a new one. A throw
    // is known by the tray's throw number (`tray.roll`), not by seeing the tray move: a phone that draws
    // only the newest state may never see the dice moving.
    used: tray.state === "settled" && (tray.dice || []).length ? tray.roll : null,
  };
  renderRolloff();
}

function round() {
  return R.rounds[R.rounds.length - 1];
}

function thrower() {
  if (R.winner !== null) return null;
  const r = round();
  const next = r.who.find((i) => r.values[i] == null);
  return next ?? null;
}

// `who`: the player a tap was for. A double tap on the pad sends its second tap to the pad drawn for the
// next player: a tap counts only for the player its pad was drawn for, and the second click of a double
// click (event.detail > 1) never counts.
function record(value, who = undefined, ev = undefined) {
  const i = thrower();
  if (i === null) return;
  if (who !== undefined && who !== i) return;
  if (ev && ev.detail > 1) return;
  const r = round();
  r.values[i] = value;
  R.used = ((S.snap && S.snap.tray) || {}).roll ?? null; // the next player's throw must be a new one
  if (r.who.some((k) => r.values[k] == null)) return;
  const top = Math.max(...r.who.map((k) => r.values[k]));
  const tied = r.who.filter((k) => r.values[k] === top);
  if (tied.length === 1) R.winner = tied[0];
  else R.rounds.push({ who: tied, values: {} });
}

// Take a settled, certain single die from the tray for the player whose throw it is.
function readTray(tray) {
  const dice = tray.dice || [];
  if (tray.state !== "settled" || !dice.length || tray.roll === R.used) return;
  if (thrower() === null || dice.length !== 1) return;
  const d = dice[0];
  if (d.value != null && d.certain !== false) record(d.value);
}

// The roll-off compares numbers, so its dice are drawn as plain pips whatever dice the game uses.
function dieOf(v) {
  return dieElement(v, { label: t("die_value", { v }) });
}

function scoreRow(p, i) {
  const rolled = R.rounds.filter((r) => r.values[i] != null).map((r) => r.values[i]);
  const inRound = round().who.includes(i);
  const now = thrower() === i;
  const won = R.winner === i;
  return h("li", { class: "roplayer" + (now ? " now" : "") + (won ? " won" : "") + (!inRound && !won ? " out" : ""),
    data: { index: String(i), values: rolled.join(",") } },
  h("span", { class: "roname", text: (now ? "▶ " : won ? "★ " : "") + p.name }),
  h("span", { class: "dice small" }, rolled.map((v) => dieOf(v))),
  h("b", { class: "rolast", text: rolled.length ? String(rolled[rolled.length - 1]) : "…" }));
}

// What the tray shows when no die lies settled on it: the camera is off, dice are moving, or it is empty.
function trayWord(tray) {
  const cam = S.snap && S.snap.camera;
  if (cam && cam.status === "off") return t("camera_off");
  return t(tray.state === "moving" ? "tray_moving" : "tray_empty");
}

export function renderRolloff() {
  if (!R) return;
  const tray = (S.snap && S.snap.tray) || { state: "empty", dice: [] };
  readTray(tray);
  const who = thrower();
  const player = who === null ? null : R.players[who];
  const dice = tray.dice || [];
  const kids = [h("h2", { text: t("ro_title") }), h("p", { class: "muted", text: t("ro_rules") }),
    h("ol", { class: "roscore" }, R.players.map(scoreRow))];
  const prev = R.rounds.length > 1 ? R.rounds[R.rounds.length - 2] : null;
  if (prev && R.winner === null && Object.keys(round().values).length === 0) {
    const top = Math.max(...prev.who.map((k) => prev.values[k]));
    kids.push(h("p", { class: "warn", id: "ro_tie", text: t("ro_tie", { v: top, names: round().who.map((k) => R.players[k].name).join(", ") }) }));
  }
  if (player) {
    const settled = tray.state === "settled" && dice.length > 0;
    let note = null;
    let confirm = null;
    // (the demo tray's hand picks up the die itself when "Throw a die" is tapped)
    if (settled && tray.roll === R.used) note = demoThrows(S.snap) ? null : t("ro_pick_up");
    else if (settled && dice.length > 1) note = t("ro_one_die", { n: dice.length });
    else if (settled && dice[0].value == null) note = t("ro_unread");
    else if (settled && dice[0].certain === false) {
      note = t("ro_unsure", { v: dice[0].value });
      const v = dice[0].value;
      confirm = h("button", { class: "primary", type: "button", id: "ro_yes", onclick: (ev) => { record(v, who, ev); renderRolloff(); } },
        t("ro_yes", { v }));
    }
    const shown = settled ? dice.map((d) => dieElement(d.value, { face: d.face, colour: d.colour, uncertain: d.certain === false,
      label: t("die_value", { v: d.value ?? "?" }) })) : [h("small", { class: "muted", text: trayWord(tray) })];
    kids.push(h("div", { class: "ronow", data: { index: String(who) } },
      h("p", { class: "rothrow", id: "ro_throw", text: t("ro_throw", { name: player.name }) }),
      h("div", { class: "dice rotray", id: "ro_tray", data: { state: tray.state || "empty" } }, shown),
      note ? h("p", { class: "warn", id: "ro_note", text: note }) : null,
      confirm,
      // the demo tray (no camera) throws only when asked: one die for this player
      demoThrows(S.snap) ? h("button", { class: "primary", type: "button", id: "ro_demo_throw",
        disabled: tray.state === "moving", onclick: () => throwDemo() }, t("ro_demo_throw")) : null,
      h("small", { class: "muted", text: t("ro_by_hand", { name: player.name }) }),
      h("div", { class: "pick values", id: "ro_pad" }, Array.from({ length: R.rule.sides || 6 }, (_, k) => k + 1).map((v) => h("button", {
        class: "diebtn pickbtn", type: "button", data: { v: String(v) }, "aria-label": t("die_value", { v }),
        onclick: (ev) => { record(v, who, ev); renderRolloff(); },
      }, dieOf(v))))));
  }
  const actions = [h("button", { class: "ghost", type: "button", id: "ro_back", onclick: () => { const back = R.onBack; R = null; back(); } }, t("ro_back"))];
  if (R.winner !== null) {
    const w = R.winner;
    kids.push(h("p", { class: "roresult", id: "ro_result", text: t("ro_starts", { name: R.players[w].name }) }),
      h("button", { class: "big primary", type: "button", id: "ro_go", onclick: () => R.onStart(w) }, t("start")));
    actions.push(h("button", { class: "ghost", type: "button", id: "ro_again", onclick: () => startRolloff(R.box, R.players, R.rule, R.onStart, R.onBack) }, t("ro_again")));
  }
  kids.push(h("div", { class: "row" }, actions));
  fill(R.box, ...kids);
}
