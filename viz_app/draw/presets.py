"""Sentences from the two papers' case studies, a few of our own, and examples of each task's data: one TREC test
question per class, SUBJ, MPQA and CR lines of each class, SICK test pairs across the relatedness range.

The app needs no dataset at run time: every sentence is a literal here, copied verbatim from the file named
beside it (tests/test_task_presets.py checks each against its file and line).
"""

from __future__ import annotations

from dataclasses import dataclass

from viz_app.draw.settings import PAIR_RELATEDNESS_NAMES

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

#: Longest line (tokens) a SUBJ, MPQA or CR preset may have, so that it reads at a glance in the picker.
PHRASE_MAX_TOKENS = 20
#: SUBJ (Pang & Lee 2004), MPQA opinion polarity (Wiebe et al. 2005) and CR customer reviews (Hu & Liu 2004), for
#: disan-subj, disan-mpqa and disan-cr: the first lines of each class of at most ``PHRASE_MAX_TOKENS`` tokens in
#: the task's file (senteval/subj.all, mpqa.all, custrev.all; task, gold class, line, text), verbatim. The tasks
#: have no test file (Shen Table 5 cross-validates them), so a line may be one the shipped fold trained on.
SENTEVAL_LINES = (
    ("subj", "subjective", 1, "smart and alert , thirteen conversations about one thing is a small gem ."),
    ("subj", "objective", 5001,
     "the movie begins in the past where a young boy named sam attempts to save celebi from a hunter ."),
    ("mpqa", "negative", 1, "complaining"),
    ("mpqa", "negative", 2, "failing to support"),
    ("mpqa", "positive", 7295, "are also being encouraged"),
    ("mpqa", "positive", 7296, "it had to happen and the sooner the better"),
    ("cr", "negative", 2, "many of our disney movies do n 't play on this dvd player ."),
    ("cr", "positive", 1369, "im a more happier person after discovering the i/p button ! ."),
)
#: Each line's task as the picker names it.
SENTEVAL_TITLES = {"subj": "SUBJ", "mpqa": "MPQA", "cr": "CR"}

#: SICK relatedness (Marelli et al. 2014), for disan-sick: for each grade g = 1..5, the first pair of the official
#: test file (sick/SICK_test_annotated.txt; file line, gold relatedness, sentence A, sentence B) whose gold score
#: lies within 0.25 of g, verbatim.
SICK_TEST_PAIRS = (
    (54, 1.2, "A man is jumping into an empty pool", "There is no biker jumping in the air"),
    (79, 2.2, "Nobody is practicing water safety and wearing preservers",
     "A group of friends are riding the current in a raft"),
    (4, 3.0, "A group of children is playing in the house and there is no man standing in the background",
     "The young boys are playing outdoors and the man is smiling nearby"),
    (15, 4.1, "Nobody is riding the bicycle on one wheel", "A person is riding the bicycle on one wheel"),
    (5, 4.9, "A brown dog is attacking another animal in front of the tall man in pants",
     "A brown dog is attacking another animal in front of the man in pants"),
)
#: How far a SICK preset's gold score may lie from its grade.
SICK_GRADE_WINDOW = 0.25


@dataclass(frozen=True)
class Preset:
    """A named sentence and a hypothesis (used only by pair models: NLI's hypothesis, SICK's sentence B).

    task: the task whose data the text is from (``trec``, ``subj``, ``mpqa``, ``cr``, ``sick``), or None for the
    papers' and our own sentences, which suit every model.
    """

    label: str
    sentence: str
    hypothesis: str
    task: str | None = None


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
    *(Preset(f"TREC test, line {line} (gold {label}) — {question}", question, "Someone asks a question .", "trec")
      for label, line, question in TREC_TEST_QUESTIONS),
    *(Preset(f"{SENTEVAL_TITLES[task]}, line {line} (gold {label}) — {text}", text, "Someone says something .", task)
      for task, label, line, text in SENTEVAL_LINES),
    *(Preset(f"SICK test, line {line} (relatedness {score:.1f}) — {a} / {b}", a, b, "sick")
      for line, score, a, b in SICK_TEST_PAIRS),
)


def model_presets(name_or_path: str) -> tuple[Preset, ...]:
    """A model trained by ``disan train --data``: one test example per class, stored in its card at training time
    (so the app needs no dataset); none for the bundled models, whose presets are above."""
    import disan.api
    from disan.errors import DisanError

    if not name_or_path.endswith(".safetensors"):
        return ()
    try:
        stored = disan.api.card_of(name_or_path).get("presets") or []
    except (DisanError, OSError, ValueError):
        return ()
    return tuple(Preset(p["label"], p["text"], p.get("hypothesis") or "", "file") for p in stored)


def presets_for(name_or_path: str) -> tuple[Preset, ...]:
    """The picker's presets for a model: the shared ones, then its own test examples (``model_presets``)."""
    return PRESETS + model_presets(name_or_path)


def preset_by_label(label: str) -> Preset | None:
    import disan.api

    every = PRESETS + tuple(p for path in disan.api.user_models() for p in model_presets(path))
    return next((p for p in every if p.label == label), None)


#: Minimal pairs (issue 30) that show the papers' ideas: negation, an intensifier, word order reversed (what DiSAN's
#: direction masks tell apart, Shen Sec. 3.3), a distant dependency at several α (what the distance mask is for, Im
#: Sec. 4.2.2), and a two-sentence pair with one word of its second sentence changed. Each is (id, label, task, α
#: values or None, A, B): task "sentence" for a one-sentence classifier, where A and B are sentences; task "pair"
#: for an NLI or relatedness model, where A and B are (first, second) and the second is the edited side, "{second}"
#: in the label standing for its name in the pair view (the hypothesis, the second sentence). The static explorer,
#: and the app's Minimal pair view, offer ``pair_presets_for`` a model (site.py writes it into each model's entry of
#: site-data.js).
PAIR_PRESETS = (
    ("negation", "negation: 'is good' → 'is not good'", "sentence", None,
     "the acting is good and the story is moving .", "the acting is not good and the story is moving ."),
    ("intensifier", "an intensifier: 'good' → 'very good'", "sentence", None,
     "a good film with a good cast .", "a very good film with a good cast ."),
    ("order", "word order reversed: the clauses swapped (what the direction masks tell apart)", "sentence", None,
     "the plot is dull but the acting is superb .", "the acting is superb but the plot is dull ."),
    ("distant", "a distant dependency: 'not' far from its subject", "sentence", (0, 1.5, 3),
     "the film that my friends who saw it last week kept talking about is good .",
     "the film that my friends who saw it last week kept talking about is not good ."),
    ("nli-word", "{second} with one word changed ('outdoors' → 'indoors')", "pair", None,
     (IM_SENTENCE, "A woman is outdoors ."), (IM_SENTENCE, "A woman is indoors .")),
    ("nli-negation", "{second} negated", "pair", None,
     ("A man is pouring a glass of tea .", "A man is pouring tea ."),
     ("A man is pouring a glass of tea .", "A man is not pouring tea .")),
    ("nli-distant", "a distant dependency in {second}", "pair", (0, 1.5, 3),
     ("A man wearing a green cape and a hat with two big feathers is sitting on a bench .",
      "The man who wears a hat with two big feathers is sitting ."),
     ("A man wearing a green cape and a hat with two big feathers is sitting on a bench .",
      "The man who wears a hat with two big feathers is standing .")),
)


def pair_presets_for(arch: str, pair: bool, relatedness: bool = False) -> list[dict]:
    """The minimal pairs a model can run, each {id, label, text, hypothesis, bText, bHypothesis, alpha}: the
    one-sentence pairs for a classifier, the two-sentence ones for an NLI or relatedness model (labelled with its
    names in the pair view: "NLI: the hypothesis …", "relatedness: the second sentence …",
    ``settings.PAIR_RELATEDNESS_NAMES``); a distance preset once per α, for a DSA only (DiSAN has no α). ``alpha``
    is None where the preset leaves α alone."""
    out = []
    for pid, label, task, alphas, a, b in PAIR_PRESETS:
        if (task == "pair") != bool(pair) or (alphas and arch != "dsa"):
            continue
        if pair:
            label = ("relatedness: " if relatedness else "NLI: ") + label.format(
                second="the " + PAIR_RELATEDNESS_NAMES[1] if relatedness else "the hypothesis")
        (text, hypothesis), (b_text, b_hypothesis) = (a, b) if pair else ((a, ""), (b, ""))
        base = {"id": pid, "label": label, "text": text, "hypothesis": hypothesis, "bText": b_text,
                "bHypothesis": b_hypothesis, "alpha": None}
        out += [{**base, "id": f"{pid}@{x:g}", "label": f"{label}, α = {x:g}", "alpha": x} for x in alphas] if alphas \
            else [base]
    return out
