"""``TrainConfig``: one training run's settings, without torch (the CLI builds ``disan train``'s options from
its fields, and ``disan app`` must not wait for torch to build its parser)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TrainConfig:
    """One training run; saved beside the checkpoint so the run can be reproduced."""

    model: str = "disan"
    task: str = "sst5"
    out: str = "runs/model"
    ablation: str | None = None
    data_dir: str | None = None
    glove: str | None = None
    epochs: int = 10
    batch_size: int = 64
    optimizer: str = "adadelta"
    lr: float = 0.5
    weight_decay: float = 1e-4
    dropout: float = 0.2
    d_h: int = 300
    seed: int = 0
    max_train: int | None = None
    phrases: bool = True
    balance: bool = False
    max_len: int = 128
    eval_every: int = 0
    save_every: int = 200
    max_steps: int | None = None
    min_steps: int = 0
    patience: int | None = None
    # An evaluation counts as a new best for --patience only when it beats the best so far by more than this
    # (accuracy, or Pearson's r); the checkpoint is still the best dev score seen. 0: any improvement counts.
    min_delta: float = 0.0
    time_budget_min: float | None = None
    threads: int | None = None
    on_error: str = "raise"
    # Where the run trains (disan.train.resolve_device): "auto" is "cuda" when torch sees a GPU, else "cpu";
    # "cpu", "cuda" or "cuda:N" choose. Under torchrun on CUDA each process takes cuda:LOCAL_RANK.
    device: str = "auto"
    # DiSAN's token2token kernel while training (disan.kernel_choice): "measure" times fused, reference and
    # naive on the training device and keeps the fastest; "fused", "reference" or "naive" force one.
    t2t_impl: str = "measure"
    # Cross-validated tasks (subj, mpqa, cr): which of the 10 stratified folds is the test part.
    fold: int | None = None
    # Recipe options (config.RECIPE_FIELDS), saved in the checkpoint's ModelConfig.
    activation: str = "elu"
    output_bias: bool = True
    dropout_mode: str = "ours"
    unk_zero: bool = False
    dsa_proj_bias: bool = True
    # A user's labelled file instead of a named task (disan.data.file_task; ``task`` is then "file"): its
    # columns, a second sentence for pairs, a numeric label as a score, and where dev/test come from.
    data: str | None = None
    text: str = "text"
    text_pair: str | None = None
    label: str = "label"
    regression: bool = False
    dev: str | None = None
    test: str | None = None
    split: str | None = None
    split_seed: int = 13
    # The DSA's heads h and distance weight α; None keeps ModelConfig's (Im Sec. 5.2: 5 and 1.5).
    heads: int | None = None
    alpha: float | None = None
    # Data randomisation (Adebayo et al. 2018, Sec. 3.2): the training labels permuted with this seed (each class
    # keeps its count; dev keeps its true labels). Dev accuracy cannot select a model that learnt no signal, so such a
    # run keeps the last evaluation's weights; --min-steps N --max-steps N gives it the trained model's N steps.
    shuffle_labels: int | None = None


def check_settings(cfg: TrainConfig) -> None:
    """A setting no run can train with is one line naming the flag (``disan train``), before anything is read or
    written: --batch-size 0 divided by zero, --d-h 0 too, and --max-len 0 or −3 trained on nothing or cut the
    sentence's end (Python's slicing)."""
    from .config import ModelConfig
    from .errors import InputError

    positive = {"epochs": cfg.epochs, "batch_size": cfg.batch_size, "d_h": cfg.d_h, "heads": cfg.heads,
                "max_steps": cfg.max_steps, "patience": cfg.patience, "save_every": cfg.save_every}
    for name, value in positive.items():
        if value is not None and value < 1:
            raise InputError(f"--{name.replace('_', '-')} {value}: give a whole number of at least 1.")
    if not 1 <= cfg.max_len <= ModelConfig.max_tokens:
        raise InputError(f"--max-len {cfg.max_len}: give a token count from 1 to {ModelConfig.max_tokens}.")
    if not cfg.lr > 0 or not 0 <= cfg.dropout < 1:
        raise InputError(f"--lr {cfg.lr:g} / --dropout {cfg.dropout:g}: the learning rate must be above 0 and the "
                         "dropout rate from 0 up to (not including) 1.")
    heads = cfg.heads or ModelConfig.heads
    if cfg.model == "dsa" and cfg.d_h % heads:
        raise InputError(f"--d-h {cfg.d_h} is not divisible by {heads} heads (Im Sec. 4.2.2: each head takes d_h / h "
                         "features); give a --d-h that --heads divides, or another --heads.")
