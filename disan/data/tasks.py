"""The task registry: which files and splits make up each task's train/dev/test."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from types import MappingProxyType

from .example import Example, StrPath, _check_choice
from .folds import fold_parts
from .nli import load_sick, load_snli
from .relatedness import load_sick_relatedness
from .senteval import _SENTEVAL_FILES, load_senteval, load_trec
from .splits import _three_way, train_dev_split
from .sst import BALANCE_COPIES, load_sst_trees, sst2_from_sst5

HELDOUT_SEED = 13
NLI_DEV_FRACTION = 0.05
TREC_DEV_FRACTION = 0.10


def _sst_task(split: str, root: StrPath | None, *, fine: bool, phrases: bool | None = None,
              balance: bool = False, balance_copies: int = BALANCE_COPIES,
              on_error: str = "raise") -> list[Example]:
    """SST from trees: phrases (train) or sentences (dev/test); binary drops neutral."""
    examples = load_sst_trees(split, root, phrases=split == "train" if phrases is None else phrases,
                              balance=balance, on_error=on_error, balance_copies=balance_copies)
    return examples if fine else sst2_from_sst5(examples)


def _nli_task(split: str, root: StrPath | None, *, on_error: str = "raise") -> list[Example]:
    """SNLI dev + SICK for train/dev (5% held out, seed 13); SNLI test for test."""
    if split == "test":
        return load_snli("test", root, on_error)
    pool = load_snli("dev", root, on_error) + load_sick(root, on_error)
    train, dev = train_dev_split(pool, NLI_DEV_FRACTION, HELDOUT_SEED)
    return train if split == "train" else dev


def _snli_task(split: str, root: StrPath | None, *, on_error: str = "raise") -> list[Example]:
    return load_snli(split, root, on_error)


def _trec_task(split: str, root: StrPath | None, *, on_error: str = "raise") -> list[Example]:
    """Official TREC test; dev = 10% of official train (seed 13), train = the rest."""
    if split == "test":
        return load_trec("test", root, on_error)
    train, dev = train_dev_split(load_trec("train", root, on_error), TREC_DEV_FRACTION, HELDOUT_SEED)
    return train if split == "train" else dev


def _senteval_task(split: str, root: StrPath | None, *, name: str, fold: int | None = None,
                   on_error: str = "raise") -> list[Example]:
    """SUBJ/MPQA/CR: 'all'; fold ``fold`` of the stratified 10-fold split; else a fixed 80/10/10 split."""
    examples = load_senteval(name, root, on_error)
    if split == "all":
        return examples
    if fold is not None:
        return fold_parts(examples, fold)[split]
    return _three_way(examples, HELDOUT_SEED)[split]


_TASK_LOADERS: Mapping[str, Callable[..., list[Example]]] = MappingProxyType({
    "sst5": partial(_sst_task, fine=True),
    "sst2": partial(_sst_task, fine=False),
    "nli": _nli_task,
    "snli": _snli_task,
    "trec": _trec_task,
    "subj": partial(_senteval_task, name="subj"),
    "mpqa": partial(_senteval_task, name="mpqa"),
    "cr": partial(_senteval_task, name="cr"),
    "sick": load_sick_relatedness,
})
_TASK_SPLITS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    task: ("train", "dev", "test", "all") if task in _SENTEVAL_FILES else ("train", "dev", "test")
    for task in _TASK_LOADERS
})


def load_task(task: str, split: str, data_dir: StrPath | None = None, **kw: object) -> list[Example]:
    """Load ``split`` of ``task`` as used for training and evaluation.

    - ``sst5``/``sst2``: SST trees; train = all phrases (``phrases=True``), dev/test
      = whole sentences; kw ``phrases``, ``balance``, ``balance_copies`` override.
      sst2 maps labels via :func:`sst2_from_sst5` (neutral dropped).
    - ``nli``: train = SNLI dev + SICK minus a 5% held-out slice (seed 13),
      dev = that slice, test = SNLI test. No SNLI train needed.
    - ``snli``: official SNLI splits (train needs ``snli_1.0_train.jsonl``).
    - ``trec``: official train/test; dev = 10% of train (seed 13), train = the rest.
    - ``subj``/``mpqa``/``cr``: ``all``; with kw ``fold=N`` (0-9) fold N of the
      seeded, stratified 10-fold cross-validation (:mod:`disan.data.folds`: test =
      fold N, dev = a stratified ninth of the other folds, train = the rest);
      without ``fold`` a fixed 80/10/10 train/dev/test split (seed 13).
    - ``sick``: SICK relatedness, official train / trial (dev) / test files;
      ``Example.score`` holds the 1-5 relatedness.

    Every task accepts kw ``on_error``. Pair tasks are listed in :data:`PAIR_TASKS`.
    """
    _check_choice("task", task, tuple(_TASK_LOADERS))
    _check_choice(f"split for task {task!r}", split, _TASK_SPLITS[task])
    return _TASK_LOADERS[task](split, data_dir, **kw)
