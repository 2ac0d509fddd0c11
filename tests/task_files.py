"""Small invented files in the SentEval and SICK split formats, written by the tests that use them.

``write_task_data(root)`` lays out ``root/senteval/{TREC.train.all,TREC.test.all,subj.all,mpqa.all,
custrev.all}`` and ``root/sick/SICK_{train,trial,test_annotated}.txt``: each class has words of its own,
so a tiny model can learn them; one SUBJ line is Latin-1 (``café``), the SICK test file has CRLF line ends.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

#: Words of each class; every sentence mixes its class's words with shared ones.
CLASS_WORDS = (("good", "great", "fine"), ("bad", "awful", "poor"), ("what", "who", "where"),
               ("how", "when", "why"), ("movie", "film", "plot"), ("city", "river", "town"))
SHARED = ("the", "a", "is", "it", "and", ".")
WORDS = sorted({w for group in CLASS_WORDS for w in group} | set(SHARED) | {"café", "man", "dog", "runs"})


def sentence(rng: np.random.Generator, label: int) -> str:
    words = list(rng.choice(CLASS_WORDS[label], 2)) + list(rng.choice(SHARED, 2))
    return " ".join(rng.permutation(words))


def labelled_lines(rng: np.random.Generator, labels: list[int]) -> str:
    return "".join(f"{label} {sentence(rng, label)}\n" for label in labels)


def sick_file(rng: np.random.Generator, n: int, start_id: int, crlf: bool = False) -> str:
    """Pairs whose relatedness grows with the number of words both sentences share."""
    rows = ["pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment"]
    for i in range(n):
        a = list(rng.choice(WORDS[:12], 4, replace=False))
        shared = int(rng.integers(0, 5))
        b = a[:shared] + list(rng.choice(WORDS[12:], 4 - shared))
        score = round(1.0 + shared + float(rng.uniform(-0.2, 0.0 if shared == 4 else 0.2)) * (shared > 0), 1)
        rows.append(f"{start_id + i}\t{' '.join(a)}\t{' '.join(b)}\t{score}\tNEUTRAL")
    end = "\r\n" if crlf else "\n"
    return end.join(rows) + end


def write_task_data(root: Path, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    senteval = root / "senteval"
    senteval.mkdir(parents=True, exist_ok=True)
    # TREC files use the numeric codes of TREC_FILE_CODES (DESC, ENTY, ABBR, HUM, LOC, NUM).
    (senteval / "TREC.train.all").write_text(labelled_lines(rng, [i % 6 for i in range(48)]))
    (senteval / "TREC.test.all").write_text(labelled_lines(rng, [i % 6 for i in range(12)]))
    subj = labelled_lines(rng, [i % 2 for i in range(39)]).encode("utf-8") + "1 the café is fine\n".encode("latin-1")
    (senteval / "subj.all").write_bytes(subj)
    (senteval / "mpqa.all").write_text(labelled_lines(rng, [int(i % 3 == 0) for i in range(40)]))
    (senteval / "custrev.all").write_text(labelled_lines(rng, [int(i % 4 != 0) for i in range(40)]))
    sick = root / "sick"
    sick.mkdir(parents=True, exist_ok=True)
    (sick / "SICK_train.txt").write_text(sick_file(rng, 60, 1))
    (sick / "SICK_trial.txt").write_text(sick_file(rng, 12, 100))
    (sick / "SICK_test_annotated.txt").write_bytes(sick_file(rng, 16, 200, crlf=True).encode())
    return root


def write_glove(path: Path, dim: int = 8, words=None, short_line: int | None = None) -> str:
    """A seeded GloVe-format file of ``words`` (default the task files' words); line ``short_line`` (1-based), if
    given, has 5 numbers: a file of mixed vector sizes."""
    rng = np.random.default_rng(1)
    rows = [f"{w} {' '.join(f'{v:.4f}' for v in rng.standard_normal(5 if k == short_line else dim))}\n"
            for k, w in enumerate(WORDS if words is None else words, 1)]
    path.write_text("".join(rows), encoding="utf-8")
    return str(path)
