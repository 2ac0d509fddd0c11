"""The catalogue of hostile or odd text that the API, the CLI and the app must all survive (issue #6, item 1).

Each case is either ``TRACE`` (a correct trace is expected) or an expected
error whose one-sentence message contains ``fragment``. ``tokens`` pins the
tokenizer's answer where the case is about tokenization (case folding, curly
quotes, URLs, invisible characters). The API/CLI limit is the model's
``max_tokens`` (1,024); the app has its own, lower limits (``viz_app.draw.settings``)
and its own expectations in ``tests/test_app_bad_input.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

TRACE = None


@dataclass(frozen=True)
class Case:
    id: str
    text: str
    error: str | None = TRACE  # fragment of the InputError message, or None for "gives a trace"
    tokens: tuple[str, ...] | None = None  # expected tokens, when the case is about tokenization
    argv_ok: bool = True  # False: cannot be passed through argv (NUL bytes)


CASES = (
    # empty and whitespace
    Case("empty", "", error="empty"),
    Case("whitespace", " \t\n\u00a0\u3000 \r\n", error="empty"),
    # one token; only punctuation
    Case("single_token", "hello", tokens=("hello",)),
    Case("punctuation_only", "?!... ,;:", tokens=("?", "!", "...", ",", ";", ":")),
    # 10,000 characters; over the token limit
    Case("chars_10000_one_word", "x" * 10_000),
    Case("chars_10000_words", "word " * 2_000, error="over this model's limit of 1024"),
    Case("over_token_limit", " ".join(["a"] * 1_025), error="1025 tokens, over this model's limit of 1024"),
    # emoji, combining characters, right-to-left scripts
    Case("emoji", "I 😀 it 👍 🇫🇷 👨‍👩‍👧 !"),
    Case("combining", "e\u0301le\u0300ve Z\u0336a\u0337l\u0338g\u0335o\u0334 n\u0303"),
    Case("right_to_left", "שלום עולם مرحبا بكم \u202eevil\u202c"),
    # zero-width, control characters, NUL
    Case("zero_width", "a\u200bb\u200d c\ufeff d\u2060", tokens=("ab", "c", "d")),
    Case("zero_width_only", "\u200b\u200c\u200d\u2060\ufeff", error="empty"),
    Case("control", "\x07\x1b[31mred\x1b[0m alert\x08 tab\tbell"),
    Case("nul", "a\x00b c", tokens=("ab", "c"), argv_ok=False),
    Case("nul_only", "\x00\x00\x00", error="empty", argv_ok=False),
    Case("lone_surrogate", "\ud800 lone \udcff", tokens=("lone",), argv_ok=False),
    # HTML, JavaScript and Markdown injection
    Case("html", "<b>bold</b> <img src=x onerror=alert(1)> <a href='javascript:alert(2)'>x</a>"),
    Case("script", "<script>alert(1)</script>"),
    Case("markdown", "**bold** _it_ [link](javascript:alert(1)) # head `code` $x^2$ :red[x] {{7*7}} ${7*7}"),
    # numbers, URLs, words outside GloVe
    Case("numbers", "3.14 1,000,000 42nd -7 1e9 ½ 0x1F"),
    Case("url", "see https://example.com/a?b=c&d=e and www.example.org",
         tokens=("see", "https://example.com/a?b=c&d=e", "and", "www.example.org")),
    Case("outside_glove", "qwzxv flibbertigibbet zzzzqqq"),
    # mixed case and curly quotes
    Case("mixed_case", "ThE MoViE iS GrEaT", tokens=("the", "movie", "is", "great")),
    Case("curly_quotes", "“It’s great,” she said ‘quietly’",
         tokens=('"', "it", "'s", "great", ",", '"', "she", "said", "'", "quietly", "'")),
)

BY_ID = {c.id: c for c in CASES}
