/* Tokenize — disan.tokenize in the browser: the model knows only the tokens disan.tokenize gave it in training, so the
 * page must split typed text exactly as Python does. No rules of its own: it reads the JSON of
 * viz_app/draw/tokenizer_rules.py (generated from disan/vocab.py's tables and regex templates) and repeats Python's
 * steps over it (disan/vocab.py's docstring says what they do): 1. clean-up until the text stops changing
 * (translate, NFKC, lower case, PTB escapes); 2. the scanner: at each position the first alternative that matches;
 * 3. clitics split off the end of each word (don't → do n't) while the stem is still a word.
 * create(rules)("It's a well-made film!") → ["it", "'s", "a", "well-made", "film", "!"]. Needs ES2020 RegExp (u flag,
 * lookbehind, named groups) and matchAll. Character classes arrive as code-point ranges (JavaScript's \w and \d are
 * ASCII-only). Where the browser's Unicode is newer than Python's the rules carry Python's answer: code points Python
 * does not assign stay out of NFKC and lower case (`unassigned`), and Σ becomes σ or word-final ς by Python's Cased
 * and Case_Ignorable sets (`sigma`) before toLowerCase sees it. */
const FORMAT = 1, SIGMA = "\u03a3", REGENERATE = "; regenerate them with viz_app.draw.tokenizer_rules.tokenizer_rules()";

/* "lo-hi lo ..." (hex code points) → the body of a u-flag character class, "\u{lo}-\u{hi}\u{lo}...". */
export const classBody = ranges => ranges === "" ? "" : ranges.split(" ").map(r => r.split("-").map(hex => "\\u{" + hex + "}").join("-")).join("");

/* A regex template of disan/vocab.py with its {fragments} expanded and its {class} placeholders filled. */
export function expand(template, rules) {
  return template.replace(/\{([a-z_]+)\}/g, (whole, name) => {
    if (Object.hasOwn(rules.fragments, name)) return expand(rules.fragments[name], rules);
    if (Object.hasOwn(rules.classes, name)) return classBody(rules.classes[name]);
    throw new Error("Tokenize: the template placeholder " + whole + " is neither a fragment nor a class of these rules" + REGENERATE);
  });
}

/* str.translate with the clean-up's table: [[replacement or null (delete), ranges], ...]. */
function translator(groups) {
  const any = new RegExp("[" + groups.map(g => classBody(g[1])).join("") + "]", "gu");
  const lookup = groups.map(g => ({ member: new RegExp("^[" + classBody(g[1]) + "]$", "u"), to: g[0] ?? "" }));
  return text => text.replace(any, ch => lookup.find(entry => entry.member.test(ch)).to);
}

/* NFKC then lower case, as Python's unicodedata and str.lower give them (see the header). */
function caseFolder(rules) {
  const known = new RegExp("[^" + classBody(rules.unassigned) + "]+", "gu");
  const cased = "[" + classBody(rules.sigma.cased) + "]", ignorable = "[" + classBody(rules.sigma.case_ignorable) + "]*";
  // Unicode's Final_Sigma: a cased letter (skipping case-ignorables) before Σ and none after it
  const finalSigma = new RegExp("(?<=" + cased + ignorable + ")" + SIGMA + "(?!" + ignorable + cased + ")", "gu");
  // A code point Python does not assign is a starter that composes with nothing and has no case, so Python's result
  // is that of each run between such code points, with them left as they are.
  return text => text.replace(known, run => {
    run = run.normalize("NFKC");
    return (run.includes(SIGMA) ? run.replace(finalSigma, "\u03c2").split(SIGMA).join("\u03c3") : run).toLowerCase();
  });
}

function cleaner(rules) {
  const translate = translator(rules.translate), fold = caseFolder(rules), escapes = new Map(rules.ptb_escapes);
  const escapeRe = new RegExp(rules.ptb_escapes.map(e => e[0].replace(/[\\^$.*+?()[\]{}|\/]/g, "\\$&")).join("|"), "gu");
  // repeated until a fixed point, as in Python: one pass can make a new escape or a new composition
  return text => {
    for (let pass = 0; pass < rules.max_clean_passes; pass++) {
      const cleaned = fold(translate(text)).replace(escapeRe, e => escapes.get(e));
      if (cleaned === text) break;
      text = cleaned;
    }
    return text;
  };
}

/* rules: the dict of viz_app.draw.tokenizer_rules.tokenizer_rules(), parsed. Returns tokenize(text) → string[]. */
export function create(rules) {
  if (!rules || rules.format !== FORMAT) {
    throw new Error("Tokenize.create: rules of format " + (rules && rules.format) + ", this script reads format " + FORMAT + REGENERATE);
  }
  const clean = cleaner(rules);
  const scanner = new RegExp(rules.alternatives.map(alt => expand(alt[0] === "word" ? "(?<word>" + alt[1] + ")" : alt[1], rules)).join("|"), "gu");
  const wholeWord = new RegExp("^(?:" + expand("{word}", rules) + ")$", "u");
  const cliticSuffix = new RegExp("(?:" + expand("{clitics}", rules) + ")$", "u");
  const splitClitics = word => {
    const match = cliticSuffix.exec(word), stem = match && word.slice(0, match.index);
    return match && wholeWord.test(stem) ? splitClitics(stem).concat([match[0]]) : [word];
  };
  return function tokenize(text) {
    if (typeof text !== "string") {
      throw new TypeError("Tokenize: tokenize needs a string, got " + typeof text + " " + String(text).slice(0, 60) + "; pass the text of the input box");
    }
    return Array.from(clean(text).matchAll(scanner), m => m.groups.word === undefined ? [m[0]] : splitClitics(m[0])).flat();
  };
}
