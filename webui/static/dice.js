// Dice drawn as their real faces: pips for d6, hero symbols as small inline-SVG icons (our own drawings).
const NS = "http://www.w3.org/2000/svg";

const PIPS = {
  1: [[50, 50]],
  2: [[28, 28], [72, 72]],
  3: [[27, 27], [50, 50], [73, 73]],
  4: [[28, 28], [72, 28], [28, 72], [72, 72]],
  5: [[27, 27], [73, 27], [50, 50], [27, 73], [73, 73]],
  6: [[28, 25], [72, 25], [28, 50], [72, 50], [28, 75], [72, 75]],
};

// Body colour, ink colour for each die colour the reader names.
const COLOURS = {
  white: ["#f4f1ea", "#1b1b1f"], ivory: ["#f4f1ea", "#1b1b1f"], red: ["#c62e2e", "#ffffff"],
  yellow: ["#f2c31b", "#1b1b1f"], blue: ["#2563c9", "#ffffff"], black: ["#1c1c22", "#f4f1ea"],
  green: ["#2f9447", "#ffffff"], purple: ["#7440b5", "#ffffff"], orange: ["#ea7a1c", "#1b1b1f"],
  hero: ["#2b2f3a", "#f6d58a"],
};

// Icons in a 100x100 box, drawn with currentColor. Keys are face names, lower case, words joined by "_".
const P = (d) => `<path d="${d}"/>`;
const ICONS = {
  sword: P("M50 4 L62 18 L60 60 L40 60 L38 18 Z") + P("M22 60 H78 V71 H22 Z") + P("M43 71 H57 V86 H43 Z") + `<circle cx="50" cy="90" r="7"/>`,
  cutlass: P("M30 14 C62 22 70 44 58 66 L50 62 C58 46 52 30 30 14 Z") + P("M40 64 L62 74 L58 80 L36 70 Z") + P("M44 74 L52 78 L44 92 L37 88 Z"),
  katana: P("M78 10 L84 16 L36 70 L30 64 Z") + P("M24 62 L38 76 L34 80 L20 66 Z") + P("M30 72 L16 88 L12 84 L26 68 Z"),
  ninjato: P("M50 6 L56 14 L55 64 L45 64 L44 14 Z") + P("M36 64 H64 V70 H36 Z") + P("M46 70 H54 V92 H46 Z"),
  dagger: P("M50 14 L57 26 L55 60 L45 60 L43 26 Z") + P("M34 60 H66 V67 H34 Z") + P("M46 67 H54 V84 H46 Z"),
  spear: P("M50 6 L60 28 L53 30 L53 94 L47 94 L47 30 L40 28 Z"),
  heart: P("M50 86 C18 62 10 46 14 32 C18 18 38 14 50 30 C62 14 82 18 86 32 C90 46 82 62 50 86 Z"),
  pow: P("M50 6 L58 34 L88 22 L68 48 L94 62 L62 64 L66 94 L48 70 L28 92 L32 64 L6 58 L32 44 L14 18 L42 32 Z"),
  arrow: P("M14 86 L20 92 L72 40 L78 46 L86 14 L54 22 L60 28 Z") + P("M14 72 L28 86 L22 92 L8 78 Z"),
  foot: P("M40 92 C26 92 24 78 30 64 C36 50 34 38 40 30 C46 24 58 28 58 40 C58 56 50 66 52 80 C54 90 48 92 40 92 Z") + `<circle cx="64" cy="26" r="6"/><circle cx="56" cy="14" r="5"/><circle cx="44" cy="12" r="5"/><circle cx="70" cy="38" r="5"/>`,
  moon: P("M62 10 C36 14 20 34 22 56 C24 80 46 94 70 90 C52 84 40 68 40 50 C40 32 50 18 62 10 Z"),
  flame: P("M50 92 C28 92 18 76 22 60 C26 46 38 40 36 22 C50 30 56 42 54 54 C60 50 62 42 62 36 C76 48 82 66 76 78 C70 88 62 92 50 92 Z"),
  blaze: P("M50 94 C30 94 20 80 24 64 C28 52 40 48 40 30 C52 36 58 50 56 60 C62 54 64 46 62 36 C78 50 82 70 74 82 C68 90 60 94 50 94 Z") + P("M30 20 L36 6 L40 22 Z") + P("M62 22 L70 8 L72 26 Z"),
  fiery_soul: `<circle cx="50" cy="56" r="26" fill="none" stroke="currentColor" stroke-width="9"/>` + P("M50 6 C58 16 60 24 50 34 C40 24 42 16 50 6 Z"),
  meteor: `<circle cx="62" cy="62" r="22"/>` + P("M10 14 L48 46 L40 54 Z") + P("M24 8 L56 40 L50 46 Z") + P("M8 30 L42 58 L36 64 Z"),
  bag: P("M30 40 H70 L80 86 C80 90 76 92 72 92 H28 C24 92 20 90 20 86 Z") + P("M38 40 C38 22 62 22 62 40 H55 C55 30 45 30 45 40 Z"),
  card: P("M26 12 H74 C78 12 80 14 80 18 V82 C80 86 78 88 74 88 H26 C22 88 20 86 20 82 V18 C20 14 22 12 26 12 Z M30 22 V78 H70 V22 Z") + P("M50 32 L62 50 L50 68 L38 50 Z"),
  shadow: P("M50 8 C70 8 84 24 84 44 V90 L72 80 L62 90 L50 80 L38 90 L28 80 L16 90 V44 C16 24 30 8 50 8 Z M36 40 A6 6 0 1 0 36.1 40 Z M64 40 A6 6 0 1 0 64.1 40 Z"),
  helm: P("M18 56 C18 28 32 12 50 12 C68 12 82 28 82 56 V86 H60 V58 H40 V86 H18 Z"),
  prayer: P("M44 90 L44 40 C44 30 40 20 48 14 L50 60 Z") + P("M56 90 L56 40 C56 30 60 20 52 14 L50 60 Z") + P("M32 92 H68 V84 H32 Z"),
  fist: P("M22 40 C22 30 30 28 36 30 C38 22 46 22 50 28 C54 22 62 22 64 30 C70 26 80 30 78 42 V64 C78 80 66 90 50 90 C32 90 22 80 22 64 Z"),
  palm: P("M30 88 V50 C30 44 24 40 20 44 L14 50 L26 30 C28 26 32 26 34 30 V18 C34 12 42 12 42 18 V42 H46 V12 C46 6 54 6 54 12 V42 H58 V16 C58 10 66 10 66 16 V44 H70 V26 C70 20 78 20 78 26 V62 C78 78 70 88 56 88 Z"),
  taiji: `<circle cx="50" cy="50" r="40" fill="none" stroke="currentColor" stroke-width="6"/>` + P("M50 10 A40 40 0 0 1 50 90 A20 20 0 0 1 50 50 A20 20 0 0 0 50 10 Z") + `<circle cx="50" cy="30" r="6"/>`,
  lotus: P("M50 16 C60 30 62 50 50 72 C38 50 40 30 50 16 Z") + P("M14 44 C32 42 44 56 48 74 C30 72 18 62 14 44 Z") + P("M86 44 C68 42 56 56 52 74 C70 72 82 62 86 44 Z") + P("M16 80 H84 V86 H16 Z"),
  shuriken: P("M50 6 L58 42 L94 50 L58 58 L50 94 L42 58 L6 50 L42 42 Z M50 44 A6 6 0 1 0 50.1 44 Z"),
  mask: P("M10 36 C30 28 70 28 90 36 C90 54 78 66 50 66 C22 66 10 54 10 36 Z M26 44 C30 50 38 50 42 44 Z M58 44 C62 50 70 50 74 44 Z"),
  branch: P("M46 94 L50 50 L54 94 Z") + P("M50 60 L24 34 L28 30 L52 52 Z") + P("M50 44 L74 20 L78 24 L52 50 Z") + `<circle cx="24" cy="28" r="8"/><circle cx="78" cy="18" r="8"/><circle cx="50" cy="14" r="9"/>`,
  leaf: P("M18 84 C18 40 44 14 86 12 C86 56 62 84 18 84 Z") + `<path d="M18 84 L66 34" stroke="#0003" stroke-width="4"/>`,
  spirit: P("M50 10 C70 24 78 42 72 60 C68 74 58 86 50 92 C42 86 32 74 28 60 C22 42 30 24 50 10 Z") + `<circle cx="50" cy="52" r="10" fill="#0004"/>`,
  bullet: P("M32 92 V46 C32 26 40 12 50 6 C60 12 68 26 68 46 V92 Z") + P("M28 72 H72 V80 H28 Z"),
  dash: P("M56 12 L88 50 L56 88 L56 66 L12 66 L12 34 L56 34 Z"),
  bullseye: `<circle cx="50" cy="50" r="40" fill="none" stroke="currentColor" stroke-width="8"/><circle cx="50" cy="50" r="22" fill="none" stroke="currentColor" stroke-width="8"/><circle cx="50" cy="50" r="8"/>`,
  treasure: `<circle cx="50" cy="50" r="38"/>` + `<circle cx="50" cy="50" r="28" fill="none" stroke="#0005" stroke-width="5"/>` + P("M44 30 H56 V70 H44 Z").replace("<path", '<path fill="#0005"'),
  skull: P("M50 10 C72 10 86 26 86 46 C86 58 80 66 72 70 V84 H28 V70 C20 66 14 58 14 46 C14 26 28 10 50 10 Z M34 40 A9 9 0 1 0 34.1 40 Z M66 40 A9 9 0 1 0 66.1 40 Z M50 56 L44 66 H56 Z"),
  kabuto: P("M16 62 C16 36 32 22 50 22 C68 22 84 36 84 62 Z") + P("M10 62 H90 V72 H10 Z") + P("M30 24 L14 6 L40 20 Z") + P("M70 24 L86 6 L60 20 Z"),
  rising_sun: `<circle cx="50" cy="64" r="20"/>` + P("M47 6 H53 V36 H47 Z") + P("M14 30 L18 26 L38 46 L34 50 Z") + P("M86 30 L82 26 L62 46 L66 50 Z") + P("M6 86 H94 V92 H6 Z"),
  claw: P("M20 88 C24 56 34 30 52 12 C44 36 40 60 40 88 Z") + P("M44 88 C48 58 58 34 76 18 C66 40 62 62 62 88 Z") + P("M66 88 C68 66 74 52 88 40 C82 56 80 70 82 88 Z"),
  sabertooth: P("M10 30 C30 20 70 20 90 30 C84 44 70 50 50 50 C30 50 16 44 10 30 Z") + P("M30 48 L36 88 L42 48 Z") + P("M58 48 L64 88 L70 48 Z"),
  bond: P("M50 88 C26 70 14 56 16 40 C18 26 34 20 44 32 L50 38 L56 32 C66 20 82 26 84 40 C86 56 74 70 50 88 Z M34 48 H66 V56 H34 Z"),
  wrench: P("M30 10 C18 14 12 28 18 38 L58 84 C62 90 72 90 76 84 C80 78 80 72 74 68 L30 30 L34 22 Z"),
  nut: P("M50 8 L86 29 V71 L50 92 L14 71 V29 Z M50 34 A16 16 0 1 0 50.1 34 Z"),
  lightning: P("M58 6 L20 56 H46 L38 94 L80 40 H54 Z"),
  gaze: P("M6 50 C24 22 76 22 94 50 C76 78 24 78 6 50 Z M50 34 A16 16 0 1 0 50.1 34 Z"),
  blade: P("M48 4 L56 10 L54 68 L46 68 L44 10 Z") + P("M28 68 H72 V76 H28 Z") + P("M46 76 H54 V94 H46 Z"),
  sabre: P("M26 88 C32 56 50 28 84 8 C68 34 54 60 46 90 Z") + P("M14 76 L48 88 L46 94 L12 82 Z"),
  cross: P("M42 8 H58 V32 H84 V48 H58 V92 H42 V48 H16 V32 H42 Z"),
  pendant: `<circle cx="50" cy="16" r="9" fill="none" stroke="currentColor" stroke-width="6"/>` + P("M50 30 L74 56 L50 92 L26 56 Z"),
  wing: P("M8 82 C18 42 50 14 92 10 C84 24 76 30 64 34 C76 36 82 40 86 46 C72 52 62 54 52 54 C62 58 68 62 70 66 C54 72 34 74 8 82 Z"),
  banner: P("M18 6 H27 V94 H18 Z") + P("M27 10 H86 L72 30 L86 50 H27 Z"),
  medal: P("M30 6 H46 L54 40 H40 Z") + P("M54 6 H70 L60 40 H46 Z") + `<circle cx="50" cy="66" r="26"/>`,
  blood_drop: P("M50 8 C62 30 80 48 80 64 C80 82 66 92 50 92 C34 92 20 82 20 64 C20 48 38 30 50 8 Z"),
};
const ALIASES = { zen: "taiji", bullseye_: "bullseye", drop: "blood_drop", blood: "blood_drop", sun: "rising_sun",
  coin: "treasure", gold: "treasure", shield: "helm", target: "bullseye", energy: "lightning" };

export function faceKey(face) {
  if (!face) return "";
  const k = String(face).toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "");
  return ICONS[k] ? k : (ALIASES[k] || k);
}

export function hasIcon(face) {
  return Boolean(ICONS[faceKey(face)]);
}

function el(tag, attrs = {}) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

// A face made of marks rather than pips or a hero icon, from its dice set's glyph (engine.core.FaceSpec):
// "blank", "text:7", "icon:starburst+text:2" (numerals, Mage Wars' attack die, King of Tokyo's numbers).
// Other glyphs (pips, hero icons with a corner number) keep the drawing below.
const STARBURST = "M50 4 L59 30 L86 18 L72 43 L98 52 L71 60 L82 87 L56 74 L48 98 L40 73 L14 84 L27 59 L2 50 L28 41 L16 15 L42 28 Z";

export function hasMarks(glyph) {
  return markGlyph(glyph) !== null;
}

function markGlyph(glyph) {
  if (!glyph) return null;
  const parts = String(glyph).split("+");
  return parts.every((p) => p === "blank" || p.startsWith("text:") || p === "icon:starburst") ? parts : null;
}

// A starburst's digit is drawn in the die's colour on a solid disc at the star's heart: on the spikes alone
// most of the digit stood on the die itself and could hardly be read (issue 34).
function drawMarks(svg, parts, ink, body) {
  const burst = parts.includes("icon:starburst");
  if (burst) {
    svg.appendChild(el("path", { d: STARBURST, fill: ink, transform: "translate(12 12) scale(0.76)" }));
    svg.appendChild(el("circle", { cx: 50, cy: 50, r: 27, fill: ink }));
  }
  for (const part of parts) {
    if (!part.startsWith("text:")) continue;
    const label = part.slice(5);
    const t = el("text", { x: 50, y: burst ? 67 : 66, "text-anchor": "middle", "font-weight": 800,
      "font-size": label.length > 1 ? 40 : 48, fill: burst ? body : ink, "font-family": "system-ui, sans-serif" });
    t.textContent = label;
    svg.appendChild(t);
  }
}

// One die as an element with data-value / data-face. opts: {face, glyph, colour, label, uncertain, size, kept}
export function dieElement(value, opts = {}) {
  const wrap = document.createElement("span");
  wrap.className = "die" + (opts.uncertain ? " uncertain" : "") + (opts.kept ? " kept" : "");
  const face = opts.face && !/^\d+$/.test(String(opts.face)) ? faceKey(opts.face) : "";
  wrap.dataset.value = value == null ? "" : String(value);
  if (opts.face) wrap.dataset.face = String(opts.face);
  if (opts.colour) wrap.dataset.colour = String(opts.colour);
  wrap.setAttribute("role", "img");
  wrap.setAttribute("aria-label", opts.label || String(value ?? "?"));
  const useIcon = face && ICONS[face];
  const heroDie = useIcon || /^[a-z]$/.test(face);
  const [body, ink] = COLOURS[opts.colour] || (heroDie ? COLOURS.hero : COLOURS.white);
  const svg = el("svg", { viewBox: "0 0 100 100", "aria-hidden": "true", focusable: "false" });
  svg.appendChild(el("rect", { x: 4, y: 4, width: 92, height: 92, rx: 18, fill: body,
    stroke: opts.uncertain ? "#ffb000" : "#0006", "stroke-width": opts.uncertain ? 6 : 3,
    "stroke-dasharray": opts.uncertain ? "10 7" : "none" }));
  const marks = markGlyph(opts.glyph);
  if (marks) {
    drawMarks(svg, marks, ink, body);
  } else if (useIcon) {
    const g = el("g", { fill: ink, color: ink, transform: "translate(18 14) scale(0.64)" });
    g.innerHTML = ICONS[face];
    svg.appendChild(g);
    if (value != null) {  // a face with no number (King of Tokyo's heart, claw, energy) has no corner number
      const num = el("text", { x: 84, y: 90, "text-anchor": "end", "font-size": 20, "font-weight": 700, fill: ink,
        "font-family": "system-ui, sans-serif" });
      num.textContent = String(value);
      svg.appendChild(num);
    }
  } else if (/^[a-z]$/.test(face)) {
    // a symbol whose name the hero data does not know yet (faces "a", "b"...): its letter, and the number
    const t = el("text", { x: 46, y: 64, "text-anchor": "middle", "font-size": 48, "font-weight": 800, fill: ink,
      "font-family": "system-ui, sans-serif" });
    t.textContent = face.toUpperCase();
    svg.appendChild(t);
    const num = el("text", { x: 84, y: 90, "text-anchor": "end", "font-size": 20, "font-weight": 700, fill: ink,
      "font-family": "system-ui, sans-serif" });
    num.textContent = String(value ?? "?");
    svg.appendChild(num);
  } else if (face && !PIPS[value]) {
    const t = el("text", { x: 50, y: 62, "text-anchor": "middle", "font-size": 34, fill: ink });
    t.textContent = String(opts.face).slice(0, 3);
    svg.appendChild(t);
  } else if (PIPS[value]) {
    for (const [cx, cy] of PIPS[value]) svg.appendChild(el("circle", { cx, cy, r: value === 1 ? 11 : 9, fill: ink }));
  } else {
    const t = el("text", { x: 50, y: 66, "text-anchor": "middle", "font-size": 46, "font-weight": 700, fill: ink,
      "font-family": "system-ui, sans-serif" });
    t.textContent = value == null ? "?" : String(value);
    svg.appendChild(t);
  }
  wrap.appendChild(svg);
  if (opts.uncertain) {
    const q = document.createElement("b");
    q.className = "q";
    q.textContent = "?";
    wrap.appendChild(q);
  }
  return wrap;
}

// A symbol on its own (for ability requirements and the hero list): small inline SVG.
export function iconElement(face, title) {
  const key = faceKey(face);
  const span = document.createElement("span");
  span.className = "icon";
  span.title = title || String(face);
  if (!ICONS[key]) {
    span.textContent = String(face);
    return span;
  }
  const svg = el("svg", { viewBox: "0 0 100 100", "aria-hidden": "true" });
  const g = el("g", { fill: "currentColor" });
  g.innerHTML = ICONS[key];
  svg.appendChild(g);
  span.appendChild(svg);
  return span;
}
