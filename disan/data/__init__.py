"""Dataset loaders for the DiSAN and distance-based self-attention experiments.

Pure Python (no torch): every loader returns a ``list[Example]`` whose ``text``
is the raw sentence string; tokenisation happens elsewhere.

Modules: ``labels`` (label names per task), ``example`` (the Example record),
``paths`` (dataset root, missing-file errors), ``lines`` (shared line readers),
``nli`` (SNLI/MultiNLI, SICK), ``sst`` (SST trees and sentence files),
``senteval`` (TREC, SUBJ, MPQA, CR), ``splits`` (held-out splits, k-fold),
``folds`` (stratified 10-fold CV and its record), ``relatedness`` (SICK relatedness splits),
``tasks`` (the task registry behind :func:`load_task`).

Expected layout under the data dir (see :func:`data_dir`)::

    snli/snli_1.0_{train,dev,test}.jsonl[.gz]     official SNLI 1.0 jsonl
    sst/trees/{train,dev,test}.txt                SST PTB trees, one per line
    sst/sentences/stsa.{fine,binary}.{train,dev,test}   "label sentence"
    sick/SICK.txt                                 tab-separated, with a header
    sick/SICK_{train,trial,test_annotated}.txt    the SemEval-2014 split (relatedness)
    senteval/TREC.{train,test}.all, subj.all, mpqa.all, custrev.all
                                                  "label sentence"

Malformed lines are handled by every loader's ``on_error`` argument:
``"raise"`` raises :class:`CorruptLineError` naming the file and 1-based line,
``"skip"`` emits a :class:`CorruptLineWarning` with the same text and goes on.
Blank lines, and ``label sentence`` lines whose sentence is empty (3 in the
public mpqa.all, 4 in custrev.all), are dropped silently.
"""

from .example import Example, StrPath
from .folds import CV_DEV_PARTS, CV_FOLDS, CV_SEED, check_fold, fold_indices, fold_parts, fold_record, stratified_folds
from .labels import (CR_LABELS, CV_TASKS, MPQA_LABELS, NLI_LABELS, PAIR_TASKS, RELATEDNESS_TASKS, SICK_GRADES,
                     SST2_LABELS, SST5_LABELS, SUBJ_LABELS, TASK_LABELS, TREC_FILE_CODES, TREC_LABELS)
from .lines import ON_ERROR_CHOICES, CorruptLineError, CorruptLineWarning, Line
from .nli import load_nli_jsonl, load_sick, load_snli
from .relatedness import SICK_SPLIT_FILES, grade_index, load_sick_relatedness
from .paths import DataFileError, data_dir, require_file
from .senteval import load_senteval, load_trec
from .splits import SENTEVAL_HOLDOUT_FRACTION, E, kfold, train_dev_split
from .sst import (BALANCE_COPIES, SST_NEUTRAL, SST_TRAIN_SENTENCES, load_sst_sentences,
                  load_sst_trees, parse_ptb_tree, sst2_from_sst5)
from .tasks import HELDOUT_SEED, NLI_DEV_FRACTION, TREC_DEV_FRACTION, load_task

__all__ = [
    "CV_DEV_PARTS", "CV_FOLDS", "CV_SEED", "CV_TASKS", "check_fold", "RELATEDNESS_TASKS", "SICK_GRADES", "SICK_SPLIT_FILES",
    "fold_indices", "fold_parts", "fold_record", "grade_index", "load_sick_relatedness", "stratified_folds",
    "BALANCE_COPIES", "CR_LABELS", "CorruptLineError", "CorruptLineWarning", "DataFileError",
    "E", "Example", "HELDOUT_SEED", "Line", "MPQA_LABELS", "NLI_DEV_FRACTION", "NLI_LABELS",
    "ON_ERROR_CHOICES", "PAIR_TASKS", "SENTEVAL_HOLDOUT_FRACTION", "SST2_LABELS", "SST5_LABELS",
    "SST_NEUTRAL", "SST_TRAIN_SENTENCES", "SUBJ_LABELS", "StrPath", "TASK_LABELS",
    "TREC_DEV_FRACTION", "TREC_FILE_CODES", "TREC_LABELS", "data_dir", "kfold",
    "load_nli_jsonl", "load_senteval", "load_sick", "load_snli", "load_sst_sentences",
    "load_sst_trees", "load_task", "load_trec", "parse_ptb_tree", "require_file",
    "sst2_from_sst5", "train_dev_split",
]
