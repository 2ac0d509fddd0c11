"""Word classes for the papers' word-type claims: stop words, punctuation, content words.

This is the one list the project uses (the corpus statistics in ``claims.py``,
the per-sentence verdicts and the app's colouring all read it):

* **stop words** — the function words in :data:`STOP_WORDS` (articles,
  prepositions, pronouns, auxiliaries, conjunctions, negation and the PTB
  clitics that ``disan.tokenize`` splits off, such as ``n't`` and ``'s``).
  Shen Fig. 6 names "am, is, are" as stop words; Im Fig. 9 names "of".
* **punctuation** — a token with no letter or digit (``.``, ``,``, ``--``,
  ``...``) or a PTB bracket token (``-lrb-``, ``-rrb-``).
* **content words** — every other token (nouns, verbs, adjectives, adverbs,
  numbers, unknown words).

Tokens are compared in lower case, after ``disan.tokenize``.
"""

from __future__ import annotations

from collections.abc import Iterable

#: Function words (a closed class). Everything not here and not punctuation is a content word.
STOP_WORDS = frozenset(
    """a an the of in on at to into onto from by for with about as than
    is are am was were be been being do does did has have had will would shall should can could may might must
    and or but nor so yet if then because while
    some any all each this that these those there here
    it its it's he she they we you i me him her them us my your his their our
    not no n't 's 'm 're 've 'll 'd""".split()
)

#: PTB escapes of brackets, which contain letters but are punctuation.
PTB_BRACKETS = frozenset({"-lrb-", "-rrb-", "-lsb-", "-rsb-", "-lcb-", "-rcb-"})

STOP, PUNCT, CONTENT = "stop", "punct", "content"
#: Class names in display order, with what the app calls them.
CLASS_NAMES = {CONTENT: "content words", STOP: "stop words", PUNCT: "punctuation"}


def is_punctuation(token: str) -> bool:
    """No letter or digit in the token, or a PTB bracket escape."""
    low = token.lower()
    return low in PTB_BRACKETS or not any(ch.isalnum() for ch in low)


def is_stop_word(token: str) -> bool:
    return token.lower() in STOP_WORDS


def word_class(token: str) -> str:
    """``"stop"``, ``"punct"`` or ``"content"``."""
    if is_punctuation(token):
        return PUNCT
    return STOP if is_stop_word(token) else CONTENT


def word_classes(tokens: Iterable[str]) -> list[str]:
    return [word_class(t) for t in tokens]
