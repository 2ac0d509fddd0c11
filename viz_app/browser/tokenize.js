/* Tokenize — disan.tokenize in the browser, for the sentences a visitor types into the static explorer.
 *
 * The model knows only the tokens disan.tokenize gave it during training, so the page must split typed
 * text exactly as Python does. This script therefore holds no rules of its own: it reads the JSON of
 * viz_app/draw/tokenizer_rules.py, generated from disan/vocab.py's own tables and regex templates, and
 * repeats Python's steps over it (the module docstring of disan/vocab.py says what they do):
 *   1. clean-up, repeated until the text stops changing (at most max_clean_passes): translate
 *      (controls, format characters, lone surrogates, quotes, dashes), NFKC, lower case, PTB escapes;
 *   2. the scanner: at each position, the first alternative that matches;
 *   3. clitics split off the end of each word (don't → do n't), while the stem is still a word.
 *
 * An ES module (no network); every function is pure:
 *   var tokenize = create(rules);
 *   tokenize("It's a well-made film!")  // → ["it", "'s", "a", "well-made", "film", "!"]
 * Needs the RegExp u flag, lookbehind and named groups (ES2018) and String.prototype.matchAll (ES2020).
 *
 * Character classes arrive as code-point ranges computed by Python, since JavaScript's \w and \d are
 * ASCII-only. Where the browser's Unicode (ICU) is newer than Python's, the rules carry Python's answer:
 * code points Python does not assign are kept out of NFKC and lower case (`unassigned`), and Σ becomes
 * σ or word-final ς by Python's Cased and Case_Ignorable sets (`sigma`) before toLowerCase sees it.
 */
var FORMAT = 1;
var SIGMA = "\u03a3", SMALL_SIGMA = "\u03c3", FINAL_SIGMA = "\u03c2";

/* "lo-hi lo ..." (hex code points) → the body of a u-flag character class, "\u{lo}-\u{hi}\u{lo}...". */
function classBody(ranges) {
  if (ranges === "") return "";
  return ranges.split(" ").map(function (range) {
    return range.split("-").map(function (hex) { return "\\u{" + hex + "}"; }).join("-");
  }).join("");
}

/* A regex template of disan/vocab.py with its {fragments} expanded and its {class} placeholders filled. */
function expand(template, rules) {
  return template.replace(/\{([a-z_]+)\}/g, function (whole, name) {
    if (Object.prototype.hasOwnProperty.call(rules.fragments, name)) return expand(rules.fragments[name], rules);
    if (Object.prototype.hasOwnProperty.call(rules.classes, name)) return classBody(rules.classes[name]);
    throw new Error("Tokenize: the template placeholder " + whole + " is neither a fragment nor a class " +
                    "of these rules; regenerate them with viz_app.draw.tokenizer_rules.tokenizer_rules()");
  });
}

function escapeRegExp(text) {
  return text.replace(/[\\^$.*+?()[\]{}|\/]/g, "\\$&");
}

/* str.translate with the clean-up's table: [[replacement or null (delete), ranges], ...]. */
function translator(groups) {
  var any = new RegExp("[" + groups.map(function (g) { return classBody(g[1]); }).join("") + "]", "gu");
  var lookup = groups.map(function (g) {
    return { member: new RegExp("^[" + classBody(g[1]) + "]$", "u"), to: g[0] === null ? "" : g[0] };
  });
  return function (text) {
    return text.replace(any, function (ch) {
      return lookup.find(function (entry) { return entry.member.test(ch); }).to;
    });
  };
}

/* NFKC then lower case, as Python's unicodedata and str.lower give them (see the header). */
function caseFolder(rules) {
  var known = new RegExp("[^" + classBody(rules.unassigned) + "]+", "gu");
  var cased = "[" + classBody(rules.sigma.cased) + "]", ignorable = "[" + classBody(rules.sigma.case_ignorable) + "]*";
  // Unicode's Final_Sigma: a cased letter (skipping case-ignorables) before Σ and none after it.
  var finalSigma = new RegExp("(?<=" + cased + ignorable + ")" + SIGMA + "(?!" + ignorable + cased + ")", "gu");
  function lower(run) {
    if (run.indexOf(SIGMA) >= 0) run = run.replace(finalSigma, FINAL_SIGMA).split(SIGMA).join(SMALL_SIGMA);
    return run.toLowerCase();
  }
  // A code point Python does not assign is a starter that composes with nothing and has no case,
  // so Python's result is that of each run between such code points, with them left as they are.
  return function (text) {
    return text.replace(known, function (run) { return lower(run.normalize("NFKC")); });
  };
}

function cleaner(rules) {
  var translate = translator(rules.translate);
  var fold = caseFolder(rules);
  var escapes = new Map(rules.ptb_escapes);
  var escapeRe = new RegExp(rules.ptb_escapes.map(function (e) { return escapeRegExp(e[0]); }).join("|"), "gu");
  function cleanOnce(text) {
    return fold(translate(text)).replace(escapeRe, function (escape) { return escapes.get(escape); });
  }
  // Repeated until a fixed point, as in Python: one pass can make a new escape or a new composition.
  return function (text) {
    for (var pass = 0; pass < rules.max_clean_passes; pass++) {
      var cleaned = cleanOnce(text);
      if (cleaned === text) break;
      text = cleaned;
    }
    return text;
  };
}

/* rules: the dict of viz_app.draw.tokenizer_rules.tokenizer_rules(), parsed. Returns tokenize(text) → string[]. */
function create(rules) {
  if (!rules || rules.format !== FORMAT) {
    throw new Error("Tokenize.create: rules of format " + (rules && rules.format) + ", this script reads format " +
                    FORMAT + "; regenerate them with viz_app.draw.tokenizer_rules.tokenizer_rules()");
  }
  var clean = cleaner(rules);
  var scanner = new RegExp(rules.alternatives.map(function (alt) {
    return expand(alt[0] === "word" ? "(?<word>" + alt[1] + ")" : alt[1], rules);
  }).join("|"), "gu");
  var wholeWord = new RegExp("^(?:" + expand("{word}", rules) + ")$", "u");
  var cliticSuffix = new RegExp("(?:" + expand("{clitics}", rules) + ")$", "u");

  function splitClitics(word) {
    var match = cliticSuffix.exec(word);
    if (match === null) return [word];
    var stem = word.slice(0, match.index);
    if (!wholeWord.test(stem)) return [word];
    return splitClitics(stem).concat([match[0]]);
  }

  return function tokenize(text) {
    if (typeof text !== "string") {
      throw new TypeError("Tokenize: tokenize needs a string, got " + typeof text + " " + String(text).slice(0, 60) +
                          "; pass the text of the input box");
    }
    var tokens = [];
    for (var match of clean(text).matchAll(scanner)) {
      if (match.groups.word === undefined) tokens.push(match[0]);
      else tokens.push.apply(tokens, splitClitics(match[0]));
    }
    return tokens;
  };
}

export { create, classBody, expand };
