// Language helpers of the page that need no DOM (so they can be tested alone): Korean particles.
//
// A Korean template cannot know which particle follows a name it is filled with: "서연이" but "지수가",
// "2를" but "3을", "공격으로" but "마을로". Templates write the pair, as Korean forms do ("{name}이(가)",
// "{n}을(를)", "{attack}(으)로"), and `particles` picks the one that fits the sound just before it once the
// name is in. engine/particles.py does the same for texts the engine fills itself; both follow one table.

// pair written in a template -> [after a final consonant, after a vowel, after ㄹ]
const PAIRS = {
  "이(가)": ["이", "가", "이"], "가(이)": ["이", "가", "이"],
  "을(를)": ["을", "를", "을"], "를(을)": ["을", "를", "을"],
  "은(는)": ["은", "는", "은"], "는(은)": ["은", "는", "은"],
  "과(와)": ["과", "와", "과"], "와(과)": ["과", "와", "과"],
  "(으)로": ["으로", "로", "로"],
  "(이)": ["이", "", "이"],  // (이)나, (이)라, (이)야...
};
const PATTERN = /이\(가\)|가\(이\)|을\(를\)|를\(을\)|은\(는\)|는\(은\)|과\(와\)|와\(과\)|\(으\)로|\(이\)/g;
// What may stand between a word and its particle without being read: an aside in brackets ("지수 (워락)" is
// read "지수": the particle follows the word before it), and closing quotes (a quoted name is read).
const ASIDES = { ")": "(", "）": "（", "]": "[" };
const QUOTES = new Set(["」", "』", "》", "〉", "\"", "'", "’", "”", "*"]);
// How the last digit of a number is read (영, 일, 이, 삼, 사, 오, 육, 칠, 팔, 구), and round numbers
// by their trailing zeros (십, 백, 천, 만): "consonant", "vowel" or "rieul" (ㄹ).
const DIGIT = ["consonant", "rieul", "vowel", "consonant", "vowel", "vowel", "consonant", "rieul", "rieul", "vowel"];
const ZEROS = ["", "consonant", "consonant", "consonant", "consonant"];

// How the word that ends at `end` (exclusive) in `text` ends when read aloud, or null when the page cannot
// tell (a Chinese name, a symbol): then the template's pair is left as written.
export function finalSound(text, end = text.length) {
  let i = lastRead(text, end - 1);
  if (i < 0) return null;
  const c = text[i];
  const code = c.charCodeAt(0);
  if (code >= 0xac00 && code <= 0xd7a3) {
    const last = (code - 0xac00) % 28;
    return last === 0 ? "vowel" : last === 8 ? "rieul" : "consonant";
  }
  if (/[0-9]/.test(c)) {
    let start = i;
    while (start > 0 && /[0-9]/.test(text[start - 1])) start -= 1;
    const digits = text.slice(start, i + 1).replace(/^0+(?=\d)/, "");
    const zeros = digits.length - digits.replace(/0+$/, "").length;
    if (digits === "0") return "consonant";  // 영
    if (zeros === 0) return DIGIT[Number(c)];
    return ZEROS[Math.min(zeros, 4)];
  }
  if (/[a-z]/i.test(c)) {
    const tail = text.slice(Math.max(0, i - 1), i + 1).toLowerCase();
    if (tail.endsWith("l")) return "rieul";
    if (/[mn]$/.test(tail) || tail === "ng") return "consonant";
    return "vowel";
  }
  return null;
}

// Where the last character that is read aloud stands at or before `i`: brackets' asides and closing quotes
// are passed over.
function lastRead(text, i) {
  while (i >= 0) {
    const open = ASIDES[text[i]];
    if (open) {
      const start = text.lastIndexOf(open, i - 1);
      if (start <= 0) { i -= 1; continue; }  // nothing before the aside: it is what is read
      i = start - 1;
      while (i >= 0 && text[i] === " ") i -= 1;  // "지수 (워락)": the space before the aside
    } else if (QUOTES.has(text[i])) i -= 1;
    else return i;
  }
  return i;
}

// `text` with each written pair of particles replaced by the one its word takes.
export function particles(text) {
  if (typeof text !== "string" || !/[(가를는와로이]/.test(text)) return text;
  return text.replace(PATTERN, (pair, offset, whole) => {
    const sound = finalSound(whole, offset);
    if (sound === null) return pair;
    const [consonant, vowel, rieul] = PAIRS[pair];
    return sound === "vowel" ? vowel : sound === "rieul" ? rieul : consonant;
  });
}
