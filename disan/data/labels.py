"""Label names of every task, in the order of the integer labels."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

SST5_LABELS: tuple[str, ...] = ("very negative", "negative", "neutral", "positive", "very positive")
SST2_LABELS: tuple[str, ...] = ("negative", "positive")
NLI_LABELS: tuple[str, ...] = ("entailment", "neutral", "contradiction")
TREC_LABELS: tuple[str, ...] = ("ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM")
SUBJ_LABELS: tuple[str, ...] = ("subjective", "objective")
MPQA_LABELS: tuple[str, ...] = ("negative", "positive")
CR_LABELS: tuple[str, ...] = ("negative", "positive")
#: SICK relatedness grades r = 1..5 (Tai, Socher & Manning 2015, Sec. 4.2: the classes of p̂).
SICK_GRADES: tuple[str, ...] = ("1", "2", "3", "4", "5")

#: Meaning of the numeric labels 0..5 in the ``TREC.*.all`` files
#: (harvardnlp/sent-conv-torch order, checked against the official class counts).
TREC_FILE_CODES: tuple[str, ...] = ("DESC", "ENTY", "ABBR", "HUM", "LOC", "NUM")

TASK_LABELS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "sst5": SST5_LABELS,
    "sst2": SST2_LABELS,
    "nli": NLI_LABELS,
    "snli": NLI_LABELS,
    "trec": TREC_LABELS,
    "subj": SUBJ_LABELS,
    "mpqa": MPQA_LABELS,
    "cr": CR_LABELS,
    "sick": SICK_GRADES,
})
PAIR_TASKS: frozenset[str] = frozenset({"nli", "snli", "sick"})
#: Tasks whose gold value is a graded score (``Example.score``), not a class.
RELATEDNESS_TASKS: frozenset[str] = frozenset({"sick"})
#: Tasks scored by k-fold cross-validation (Shen Table 5: CR, MPQA, SUBJ).
CV_TASKS: frozenset[str] = frozenset({"subj", "mpqa", "cr"})
