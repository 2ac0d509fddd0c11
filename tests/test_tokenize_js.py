"""viz_app/browser/tokenize.js in headless Chromium gives exactly the tokens of ``disan.tokenize``.

A blank page holds the script and ``viz_app.draw.tokenizer_rules.tokenizer_rules()`` inline, as the
static explorer will; every list of sentences goes through one ``page.evaluate`` call and is compared,
sentence by sentence, with Python: the bad-text catalogue (tests/bad_text.py), hand-written tricky
strings, seeded random mixtures, every code point of Unicode (alone and next to Σ, where Chromium's ICU
and Python's Unicode 14.0 disagree) and, with the real data, every sentence of SST-5 test and every
premise and hypothesis of SNLI test.
"""

from __future__ import annotations

import json
import random
import re
import sys
import time
import unicodedata
from concurrent.futures import ThreadPoolExecutor

import pytest

from disan import vocab
from disan.data import data_dir, load_snli, load_sst_trees
from disan.vocab import tokenize
from tests.bad_text import CASES
from tests.conftest import offline_page
from viz_app.draw import bundles
from viz_app.draw.tokenizer_rules import tokenizer_rules

#: One text → tokens, or the error's message, so one throwing sentence shows up as a mismatch.
EVALUATE = """(texts) => JSON.stringify(JSON.parse(texts).map((text) => {
  try { return DISAN_TOKENIZE(text); } catch (err) { return 'threw: ' + err.message; } }))"""

# A high surrogate followed by a low one is one astral character once in JavaScript, so a Python str
# holding such a pair as two code points has no twin in the browser.
SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")

SIGMA = "\u03a3"

TRICKY = [
    # clitics
    "don't", "can't", "won't", "it's", "I'm", "they're", "we've", "she'll", "he'd", "DON'T", "don’t", "ain't",
    "don't's", "y'all", "o'neil", "rock'n'roll", "'tis", "dogs'", "a-n't x'n't", "n't", "'s 'll", "cannot gonna",
    "isn't it?", "it's'", "x'n't's", "ca n't do n't it 's", "'s's", "I'M", "we'VE",
    # URLs and e-mails
    "see https://example.com/a?b=1.", "(www.example.org)", "ftp://files.x.org/a.tar.gz,", "http://x.y/z)",
    "https://例え.jp/パス?q=1!", "www.", "http://", "HTTPS://EXAMPLE.COM/Path", "<http://a.b/c>", "'www.x.y'",
    "mail Me@Example.co.uk!", "a.b+c@d-e.f.g", "user@localhost", "é@ü.de", "@handle", "a@b", "x@y.z.",
    # abbreviations
    "U.S. e.g. Mr. Smith, etc.", "i.e.", "Dr.Who", "mrs.", "u.s.a.", "st.louis", "a.b", "Prof. X", "Ph.D.",
    "č.ř.", "1.2.", "x.y.z.w", "co.", "inc.,", "vs.x", "ΑΒ.Γ.",
    # emoji: modifiers, ZWJ sequences, flags, keycaps, text/emoji presentation
    "👍🏽👍", "❤️ 🇫🇷", "👨‍👩‍👧", "🏳️‍🌈", "1️⃣ #️⃣ *️⃣", "🇺🇸🇬🇧", "🇫", "great😀!", "✌🏿", "👩🏽‍💻", "☺︎", "🫠",
    "\U0001faf8 \U0001fae8", "©️®️™️", "🏻", "a🏻b",
    # full-width and compatibility forms
    "ｆｕｌｌｗｉｄｔｈ！", "ＡＢＣ１２３", "１，０００", "（ｘ）", "ﬁne ﬂow ﬀ", "㎏ ㍻ ℡ ㈱", "①②", "Ⅻ ½ ² ₃", "…", "ｰ ･",
    "-ＬＲＢ-", "-ｌｒｂ-", "＇ｓ", "ｄｏｎ＇ｔ",
    # combining marks, Hangul jamo
    "cafe\u0301", "CAFE\u0301", "x\u0327\u0301", "e\u0301\u0323", "e\u0323\u0301", "\u0301alone", "Z̶a̷l̸g̵o̴",
    "k\u0301\u032b", "\u1100\u1161\u11a8", "가\u11a8", "a\u0308\u0304", "\u212b \u2126",
    # right-to-left scripts and bidi controls
    "مرحبا، بالعالم!", "\u200fשלום עולם\u200e", "צה״ל", "ג'ירפה", "١٢٣٫٤٥", "٣,٤ ٣:٤", "العربية\u200e text",
    "\u202eevil\u202c", "\u2067isolate\u2069",
    # HTML and script
    "<script>alert(1)</script>", "<b>bold</b>", "&lt;b&gt; &amp; &#39;", "<img src=x onerror=alert(1)>",
    "</script><script>x</script>", "<!-- c -->", "javascript:alert(1)",
    # Penn Treebank escapes, including ones a first pass of the clean-up creates
    "-LRB- good -RRB- -lsb- x -rsb-", "-lcb- -rcb-", "writer\\/director f\\*\\*k", "``hi''", "-lrb-lrb-",
    "'''", "''''", "\\\\/", "\\" * 6 + "/", "-LRB-RRB-", "\\/\\/", "-lrb\u2010", "\u2018\u2019",
    # quotes, primes, dashes
    "“Great” movie’s end — really…", "don’t ‘quote’ „low“", "«guillemets»", "‹single›", "″prime″ ‵x‵",
    "ʼokina", "a–b", "a—b", "a―b", "a‒b", "a−b", "a‐b‑c", "``", "`x`", "‘’", "‛‟",
    # numbers
    "3.5 stars, 1,000 fans at 12:30 on 1/2", "3rd 2.", "1,000,000.50", "12:30:45", "1,a", "a,1", "-7", "1e9",
    "0x1F", "$5.99", "50%", "1 000", "2:3-4", "1,,2", "1:", ",1", "१२,३४", "１２:３０",
    # Greek capital sigma: σ, or ς at the end of a word, by the letters around it
    "ΟΔΥΣΣΕΥΣ", "ΣΑΣ", "Σ", "ΑΣ.", "ΑΣ'Σ", "Α\u0345Σ", "ʕΣ ΑʕΣ Αʕ\u03a3x", "Α\U0001171eΣ", "ΑΣ\U0001171e",
    "Α\u00adΣ", "ΑΣ\u0301", "ΑΣ1", "Α.Σ", "Α'Σ'", "ϹΑϹ", "Α\u1c89Σ", "ΑΣ\u1c89",
    # case mappings with more than one character, title case
    "İstanbul", "I\u0307", "ǅ ǈ ǋ", "ß ẞ", "ŉ", "ΐ",
    # code points Python 3.11 does not assign but newer browsers do (NFKC or lower case would change them)
    "\u1c89", "\ua7cb\ua7cc", "\U00010d50x", "\U00016ea0", "\U0001e030", "\U00031350", "\u0897",
    # planes 2 and 3 (letters, so word characters for \w), private use, noncharacters, tags
    "𠀀.𠀀.", "𠀀@𠀀.com", "𰀀", "\ue000 \uffff \U0010fffd", "\U000e0041tag\U000e007f",
    # other scripts
    "日本語のテキスト。", "中文，标点！", "한국어 텍스트", "ไทย", "हिन्दी", "ქართული",
    # joiners and word punctuation
    "well-made", "writer/director", "at&t", "a.b.c", "a-", "-a", "a--b", "a..b", "a...b", "a/", "a&", "a'",
    "foo_bar", "f**k", "__init__", "a-'b", "a&-b", "a/.b", "\u05d0\u05f3\u05d1",
    # very long words
    "a" * 5000, "x-" * 1000 + "y", "ab'" * 500, "don't" * 200, "." * 1000, "-" * 1000, "😀" * 500,
    "e\u0301" * 1000, "1," * 500 + "1",
    # lone surrogates, NUL, controls and unusual whitespace
    "\ud800", "a\udfffb", "\udbff\u0041", "x\ud83d y", "\ude00 start", "a\x00b", "\x00", "\ud800\x00\ud800",
    "tab\tnew\nline\rcr\x0bvt\x0cff\x1c\x1d\x1e\x1f\x85", "\u2028\u2029", "\u00a0\u3000\u2003x", "\x7f\x9f",
]  # fmt: skip

# Pieces of the random mixtures: one of each rule, and room for random code points between them.
PIECES = [
    "a", "B", "n", "t", "s", "x1", "0", "9", "é", "e\u0301", "\u0301", "ß", "İ", "Σ", "ΑΣ", "ﬁ", "ד", "ʕ",
    ".", ",", ":", ";", "!", "?", "'", '"', "`", "-", "/", "\\", "&", "@", "(", ")", "<", ">", "$", "%", "*", "_",
    "n't", "'s", "'ll", "don't", "dogs'", "u.s.", "mr.", "...", "--", "``", "''", "-lrb-", "-RRB-", "\\/",
    "http://", "https://x.y/z", "www.", "a@b.co", "1,000", "3.5", "12:30", " ", "  ", "\t", "\n", "\x00",
    "\u200b", "\u200d", "\ufeff", "\u00ad", "\u2028", "\u00a0", "‘", "’", "“", "”", "″", "—", "–", "…",
    "😀", "👍", "🏽", "\ufe0f", "\u20e3", "🇫", "🇷", "©", "٫", "،", "״", "\U000e0041", "ㄱ", "ᄀ", "ᅡ", "\ud800",
]  # fmt: skip


def _random_texts(n: int, seed: int) -> list[str]:
    """Seeded mixtures of PIECES and random code points (lone surrogates among them, never a pair)."""
    rng = random.Random(seed)
    texts = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(0, 30)):
            if rng.random() < 0.3:
                cp = rng.choice((rng.randrange(0x80), rng.randrange(0x3000), rng.randrange(sys.maxunicode + 1)))
                parts.append(chr(cp))
            else:
                parts.append(rng.choice(PIECES))
        texts.append(SURROGATE_PAIR.sub(lambda m: m.group(0)[0] + " " + m.group(0)[1], "".join(parts)))
    return texts


@pytest.fixture(scope="module")
def rules() -> dict:
    return tokenizer_rules()


@pytest.fixture(scope="module")
def page(rules):
    create = f"var DISAN_TOKENIZE = Disan.Tokenize.create({json.dumps(rules)});"
    with offline_page({"content": bundles.text("site")}, {"content": create}) as pg:
        assert pg.evaluate("typeof DISAN_TOKENIZE") == "function"
        yield pg


def _mismatches(page, texts: list[str]) -> list[tuple[str, list[str], object]]:
    """(text, Python's tokens, the browser's) for every text on which the two disagree."""
    paired = [t for t in texts if SURROGATE_PAIR.search(t)]
    assert not paired, f"{paired[:3]!r} hold a surrogate pair as two code points, which JavaScript cannot; split it"
    browser = json.loads(page.evaluate(EVALUATE, json.dumps(texts)))
    assert len(browser) == len(texts)
    return [(text, tokens, got) for text, tokens, got in zip(texts, map(tokenize, texts), browser) if tokens != got]


def _report(mismatches: list, n: int) -> str:
    """The first mismatches, each shown from its first differing token."""
    lines = [f"{len(mismatches)} of {n} texts tokenize differently in the browser; first ones:"]
    for text, py, js in mismatches[:5]:
        if isinstance(js, str):  # the browser threw
            lines.append(f"  {text!r:.120}\n    python  {py!r:.300}\n    browser {js}")
            continue
        i = next((k for k, (a, b) in enumerate(zip(py, js)) if a != b), min(len(py), len(js)))
        lines.append(f"  {text!r:.120}\n    from token {i}: python {py[max(0, i - 2):i + 3]!r}, "
                     f"browser {js[max(0, i - 2):i + 3]!r}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ the rules


def _decode(ranges: str) -> set[int]:
    out: set[int] = set()
    for part in ranges.split():
        lo, _, hi = part.partition("-")
        out.update(range(int(lo, 16), int(hi or lo, 16) + 1))
    return out


def test_rules_are_json_stable_and_compact(rules):
    text = json.dumps(rules)
    assert json.loads(text) == rules
    assert json.dumps(tokenizer_rules()) == text, "two calls gave different rules"
    size = len(json.dumps(rules, separators=(",", ":")).encode())
    assert size < 32_000, f"the rules take {size} bytes; write code points as ranges, not one by one"


def test_rules_are_disan_vocab_own_tables(rules):
    translate = {cp: value for value, ranges in rules["translate"] for cp in _decode(ranges)}
    assert translate == vocab._unicode_tables().translate
    assert rules["fragments"] == vocab._FRAGMENTS
    assert [tuple(alt) for alt in rules["alternatives"]] == list(vocab._ALTERNATIVES)
    assert dict(rules["ptb_escapes"]) == vocab._PTB_ESCAPES and rules["max_clean_passes"] == vocab._MAX_CLEAN_PASSES
    assert set(rules["classes"]) == set(vocab._class_bodies())
    placeholders = {name for _, t in [*rules["alternatives"], *rules["fragments"].items()] for name in
                    re.findall(r"\{([a-z_]+)\}", t)}
    assert placeholders <= set(rules["classes"]) | set(rules["fragments"])


def test_class_ranges_are_what_python_re_matches(rules):
    """Checked one code point at a time (every 17th, plus each range's ends and neighbours) with re.fullmatch."""
    for name, body in vocab._class_bodies().items():
        members = _decode(rules["classes"][name])
        ends = {int(h, 16) + d for h in re.split("[ -]", rules["classes"][name]) for d in (-1, 0, 1)}
        sample = (set(range(0, sys.maxunicode + 1, 17)) | ends) & set(range(sys.maxunicode + 1))
        pattern = re.compile(f"[{body}]")
        wrong = [hex(cp) for cp in sorted(sample) if bool(pattern.fullmatch(chr(cp))) != (cp in members)]
        assert not wrong, f"class {name}: {wrong[:10]} disagree with Python's re"
    words = _decode(rules["classes"]["wordchar"])
    assert {0x20000, 0x30000, 0x0966} <= words and 0xFEFF not in words  # CJK in planes 2 and 3, Devanagari digit
    assert 0x0663 in _decode(rules["classes"]["digit"]) and 0x00B2 not in _decode(rules["classes"]["digit"])


def test_unassigned_and_sigma_sets_are_python_s(rules):
    unassigned = _decode(rules["unassigned"])
    wrong = [hex(cp) for cp in range(0, sys.maxunicode + 1, 13)
             if (unicodedata.category(chr(cp)) == "Cn") != (cp in unassigned)]
    assert not wrong, f"{wrong[:10]} are listed as unassigned but are assigned, or the other way round"
    cased, ignorable = _decode(rules["sigma"]["cased"]), _decode(rules["sigma"]["case_ignorable"])
    assert not cased & ignorable
    assert {0x41, 0x3A3, 0x3C3, 0x3C2} <= cased and {0x27, 0x2E, 0xAD, 0x301, 0x345} <= ignorable
    assert not {0x20, 0x31, 0x4E00} & (cased | ignorable)


# --------------------------------------------------------------------------- the browser


@pytest.mark.browser
def test_bad_text_catalogue_gives_python_s_tokens(page):
    texts = [case.text for case in CASES]
    mismatches = _mismatches(page, texts)
    assert not mismatches, _report(mismatches, len(texts))
    pinned = [case for case in CASES if case.tokens is not None]
    browser = json.loads(page.evaluate(EVALUATE, json.dumps([case.text for case in pinned])))
    assert pinned and browser == [list(case.tokens) for case in pinned]


@pytest.mark.browser
def test_tricky_strings_give_python_s_tokens(page):
    mismatches = _mismatches(page, TRICKY)
    assert not mismatches, _report(mismatches, len(TRICKY))


@pytest.mark.browser
def test_random_mixtures_give_python_s_tokens(page):
    texts = _random_texts(3000, seed=0)
    mismatches = _mismatches(page, texts)
    assert not mismatches, _report(mismatches, len(texts))


#: Texts holding every code point: alone, after a cased letter and before Σ, and after Σ.
#: Written as (first, last + 1, template) so the page builds them itself: sending 11 million characters
#: through Playwright takes half a minute, building them takes milliseconds.
CONTEXTS = ("{c}", "A{c}" + SIGMA, "A" + SIGMA + "{c}")
BLOCK = 2048
BUILD = """(recipes) => recipes.map(([lo, hi, template]) => {
  const parts = [];
  for (let cp = lo; cp < hi; cp++) parts.push(template.split('{c}').join(String.fromCodePoint(cp)));
  try { return DISAN_TOKENIZE(parts.join(' ')).join('\\n'); } catch (err) { return 'threw: ' + err.message; } })"""


def _code_point_text(lo: int, hi: int, template: str) -> str:
    return " ".join(template.replace("{c}", chr(cp)) for cp in range(lo, hi))


@pytest.mark.browser
@pytest.mark.slow
def test_every_code_point_gives_python_s_tokens(page):
    """The ICU/Unicode 14.0 differences live here: code points Python does not assign, and Σ's neighbours."""
    recipes = [(lo, min(lo + BLOCK, sys.maxunicode + 1), template)
               for template in CONTEXTS for lo in range(0, sys.maxunicode + 1, BLOCK)]
    # Tokens joined by newlines (no token holds whitespace) keep the answer small; Python works meanwhile.
    with ThreadPoolExecutor(1) as pool:
        python = pool.submit(lambda: ["\n".join(tokenize(_code_point_text(*r))) for r in recipes])
        browser = page.evaluate(BUILD, recipes)
        python = python.result()
    mismatches = [(f"{template} for U+{lo:04X}..U+{hi - 1:04X}", py.split("\n"), js.split("\n"))
                  for (lo, hi, template), py, js in zip(recipes, python, browser, strict=True) if py != js]
    assert not mismatches, _report(mismatches, len(recipes))


@pytest.mark.browser
def test_create_and_tokenize_refuse_bad_arguments(page, rules):
    message = page.evaluate("(r) => { try { Disan.Tokenize.create(r); return ''; } catch (e) { return e.message; } }",
                            {**rules, "format": 0})
    assert "format 0" in message and "tokenizer_rules()" in message
    message = page.evaluate("() => { try { DISAN_TOKENIZE(42); return ''; } catch (e) { return e.name + ': ' + e.message; } }")
    assert message.startswith("TypeError") and "got number 42" in message
    message = page.evaluate("(r) => { try { Disan.Tokenize.expand('{nope}', r); return ''; } catch (e) { return e.message; } }",
                            rules)
    assert "{nope}" in message and "tokenizer_rules()" in message


# -------------------------------------------------------------------------- the real data


@pytest.mark.data
@pytest.mark.browser
def test_sst_and_snli_test_sentences_give_python_s_tokens(page):
    try:
        sst = load_sst_trees("test")
        snli = load_snli("test")
    except FileNotFoundError as err:
        pytest.skip(f"SST-5 or SNLI test is missing under {data_dir()}: {err}")
    texts = [ex.text for ex in sst] + [s for ex in snli for s in (ex.text, ex.hypothesis)]
    start = time.perf_counter()
    mismatches = _mismatches(page, texts)
    print(f"{len(texts)} sentences ({len(sst)} SST-5, {2 * len(snli)} SNLI) compared in "
          f"{time.perf_counter() - start:.1f} s")
    assert not mismatches, _report(mismatches, len(texts))
