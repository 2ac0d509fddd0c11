"""Sentences from the two papers' case studies, a few of our own, and one TREC test question per class.

The app needs no dataset at run time: every sentence is a literal here.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Shen et al. 2018, Figs. 6 and 7 (case study sentences).
SHEN_SENTENCES = (
    "Families have some dogs in front of a carousel",
    "volleyball match is in progress between ladies",
)

#: Shen et al. 2018, Fig. 8: the same word in two contexts.
SHEN_PAIRS = (
    ("glass", "The glass bottle is big", "A man is pouring a glass of tea"),
    ("close", "The restaurant is about to close", "A biker is close to the fountain"),
)

#: Im & Cho 2017, Figs. 7 and 9–13.
IM_SENTENCE = "A lady stands outside of a Mexican market ."

#: Im & Cho 2017, Fig. 8: "the longest sentence example in the SNLI test data, with
#: length of 57 words". Found once by scanning sentence1/sentence2 of
#: /work/shared/data/snli/snli_1.0_test.jsonl.gz (pairID 4735943244.jpg#0r1*); it is
#: 54 whitespace-separated words and 57 tokens once punctuation is split off.
SNLI_LONGEST_TEST = (
    "A man wearing dark knee boots, a green cape, and a hat with two big feathers on the front is "
    "sitting by himself on a bench in front of a building with a blue and white patterned piece of "
    "wheeled luggage to his right while he rests both his hands on a walking stick."
)

#: TREC question classification (Li & Roth 2002), for ``disan-trec``: the first question of each coarse class
#: in the official test file (senteval/TREC.test.all, line number and gold class), verbatim.
TREC_TEST_QUESTIONS = (
    ("ABBR", 279, "What is the abbreviation for Texas ?"),
    ("DESC", 4, "What is an atom ?"),
    ("ENTY", 8, "What is Australia 's national flower ?"),
    ("HUM", 3, "Who was Galileo ?"),
    ("LOC", 2, "What county is Modesto , California in ?"),
    ("NUM", 1, "How far is it from Denver to Aspen ?"),
)


@dataclass(frozen=True)
class Preset:
    """A named sentence (and a hypothesis, used only by NLI models)."""

    label: str
    sentence: str
    hypothesis: str


PRESETS = (
    Preset("Shen Fig. 6/7 — carousel", SHEN_SENTENCES[0], "Some families are outside ."),
    Preset("Shen Fig. 6/7 — volleyball", SHEN_SENTENCES[1], "Women are playing a sport ."),
    Preset("Shen Fig. 8 — glass (bottle)", SHEN_PAIRS[0][1], "The bottle is small ."),
    Preset("Shen Fig. 8 — glass (of tea)", SHEN_PAIRS[0][2], "A man is drinking tea ."),
    Preset("Shen Fig. 8 — close (shut)", SHEN_PAIRS[1][1], "The restaurant is open all night ."),
    Preset("Shen Fig. 8 — close (near)", SHEN_PAIRS[1][2], "A person is near a fountain ."),
    Preset("Im Figs. 7, 9–13 — Mexican market", IM_SENTENCE, "A woman is outdoors ."),
    Preset("Im Fig. 8 — longest SNLI test sentence (57 tokens)", SNLI_LONGEST_TEST, "A man is sitting ."),
    Preset(
        "Ours — negation flips sentiment",
        "The plot is not bad at all , but the ending is not good .",
        "The ending is good .",
    ),
    Preset(
        "Ours — long-range agreement",
        "The keys that the old man left on the kitchen table are missing .",
        "The keys are gone .",
    ),
    Preset(
        "Ours — repeated word, two senses",
        "I sat on the bank of the river before I went to the bank .",
        "I went to a bank .",
    ),
    Preset("Ours — strong sentiment", "A gorgeous , witty , seductive movie .", "The movie is good ."),
    *(Preset(f"TREC test, line {line} (gold {label}) — {question}", question, "Someone asks a question .")
      for label, line, question in TREC_TEST_QUESTIONS),
)


def preset_by_label(label: str) -> Preset | None:
    return next((p for p in PRESETS if p.label == label), None)
