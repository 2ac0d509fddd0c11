"""The user-facing model: tokens → embeddings → encoder → task head, with ``trace`` and ``predict``."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import torch
from torch import Tensor, nn

from .attention import CHUNK_ELEMENTS, auto_chunk, multi_dim_token2token
from .config import MASK_PRESETS, ModelConfig
from .disan_encoder import FULL_PROBS_MAX_TOKENS, DiSANEncoder
from .distance_encoder import DistanceEncoder
from .errors import InputError
from .heads import ClassifierHead, ImNLIHead, RelatednessHead, ShenNLIHead
from .masks import MASK_KINDS, attention_allowed, direction_mask
from .relatedness import expected_score
from .trace import ModelTrace, SentenceTrace
from .vocab import UNK_ID, Glove, Vocab, classify_tokens, tokenize



def check_alpha(alpha) -> None:
    """Im Eq. 7's α (None: the model's own) is a finite number ≥ 0: a NaN made every probability NaN (and JSON
    that is not JSON), a negative one rewards distance, which the distance mask −α|i − j| is not."""
    if alpha is None:
        return
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):  # numpy's floats are Real too
        raise InputError(f"alpha={alpha!r} is not a number; give a number ≥ 0 such as 1.5 (Im Eq. 7).")
    if not (alpha >= 0 and alpha != float("inf")):  # NaN fails both comparisons
        raise InputError(f"alpha={alpha} is not a finite number ≥ 0; give one such as 1.5 (0: no distance mask).")


def resolve_masks(masks: str | Sequence[str] | None, default: tuple[str, str]) -> tuple[str, str]:
    """Turn ``None``, a preset name, ``"fw,bw"`` or a pair into a pair of mask kinds.

    Names are matched without regard to case or surrounding spaces (``--masks FW,BW`` is ``fw,bw``): the case
    carries no meaning here, so refusing it only sent the user back to retype the same masks.
    """
    if masks is None:
        return default
    if isinstance(masks, str):
        name = masks.strip().lower()
        if name in MASK_PRESETS:
            return MASK_PRESETS[name] or default
        parts = name.split(",")
    else:
        parts = list(masks) if isinstance(masks, Sequence) else []  # anything else is refused below
    pair = tuple(m.strip().lower() if isinstance(m, str) else m for m in parts)
    if len(pair) != 2 or any(m not in MASK_KINDS for m in pair):
        raise InputError(
            f"Masks {masks!r} are not understood; use a preset ({', '.join(MASK_PRESETS)}) "
            f"or two of {', '.join(MASK_KINDS)} such as 'fw,bw'."
        )
    return pair  # type: ignore[return-value]


def build_encoder(cfg: ModelConfig) -> nn.Module:
    if cfg.arch == "disan":
        return DiSANEncoder(cfg.d_in, cfg.d_h, cfg.c, cfg.dropout, cfg.masks, cfg.activation, cfg.dropout_mode)
    return DistanceEncoder(
        cfg.d_in, cfg.d_h, cfg.heads, cfg.alpha, cfg.ffn_mult, cfg.dropout, cfg.masks, cfg.dsa_proj_bias
    )


def build_head(cfg: ModelConfig, d_enc: int) -> nn.Module:
    """The task head; DiSAN's hidden layer uses ``cfg.activation`` (ELU by default), the DSA's ReLU (Im)."""
    k = len(cfg.labels)
    if cfg.relatedness and cfg.pair:  # SICK: Tai, Socher & Manning 2015's module, as Shen Sec. 5.3 uses it
        return RelatednessHead(d_enc, cfg.head_hidden, k, cfg.dropout)
    relu = cfg.arch == "dsa" or cfg.activation == "relu"
    if not cfg.pair:  # a score of one sentence: the same layers, p̂ over the K grades (Tai Sec. 4.2's output)
        return ClassifierHead(d_enc, cfg.head_hidden, k, cfg.dropout, relu=relu, output_bias=cfg.output_bias)
    if cfg.arch == "disan":
        return ShenNLIHead(d_enc, cfg.head_hidden, k, cfg.dropout, relu=relu, output_bias=cfg.output_bias)
    return ImNLIHead(d_enc, cfg.head_hidden, k, cfg.dropout, output_bias=cfg.output_bias)


class SentenceModel(nn.Module):
    """Embedding table + encoder + head.

    Words in the model's own ``vocab`` use its (possibly fine-tuned) rows; any
    other word that GloVe knows gets its GloVe vector; anything else gets the
    ``<unk>`` row and is flagged ``unknown`` in the trace. With ``cfg.unk_zero``
    that row is a constant zero vector (authors' code): it is zeroed here and
    masked in ``embed``, so it never receives a gradient.
    """

    def __init__(self, cfg: ModelConfig, vocab: Vocab, glove: Glove | None, name: str, random_weights: bool):
        super().__init__()
        self.cfg = cfg
        self.vocab = vocab
        self.glove = glove
        self.name = name
        self.random_weights = random_weights
        # nn.Embedding's own init is normal_, which on the meta device (checkpoint.check_shapes) imports torch's
        # decompositions and dynamo: ~1-2 s of a cold start. The same draw is made here for real tensors only, so
        # a seeded random model gets the weights that nn.Embedding(..., padding_idx=0) gives.
        weight = torch.empty(len(vocab.words), cfg.d_in)
        self.embedding = nn.Embedding(len(vocab.words), cfg.d_in, padding_idx=0, _weight=weight)
        if not weight.is_meta:
            self.embedding.reset_parameters()
        self.embedding.weight.requires_grad_(cfg.finetune_embeddings)
        self.encoder = build_encoder(cfg)
        self.head = build_head(cfg, self.encoder.out_dim)
        self.zero_unk_row()

    def zero_unk_row(self) -> None:
        """Set the ``<unk>`` row to zero when ``cfg.unk_zero`` (call again after replacing the table)."""
        if self.cfg.unk_zero:
            with torch.no_grad():
                self.embedding.weight[UNK_ID].zero_()

    @property
    def device(self) -> torch.device:
        return self.embedding.weight.device

    # ----------------------------------------------------------- embedding
    def token_status(self, tokens: Sequence[str]) -> tuple[str, ...]:
        """Per token: ``vocab``, ``glove`` or ``unknown``."""
        return tuple(classify_tokens(tokens, self.vocab, self.glove))

    def embed(self, batch: Sequence[Sequence[str]]) -> tuple[Tensor, Tensor]:
        """Right-padded token lists → x (B, T, d_in) and valid (B, T)."""
        B, T = len(batch), max(1, max(len(toks) for toks in batch))
        ids = [[0] * T for _ in range(B)]  # 0 = <pad>
        ext = [[-1] * T for _ in range(B)]  # row in the GloVe table below, or -1
        rows: dict[int, int] = {}
        for b, toks in enumerate(batch):
            for t, tok in enumerate(toks):
                own = self.vocab.index.get(tok)
                if own is not None:
                    ids[b][t] = own
                    continue
                g = self.glove.index(tok) if self.glove is not None else None
                if g is None:
                    ids[b][t] = UNK_ID
                else:
                    ext[b][t] = rows.setdefault(g, len(rows))
        ids = torch.tensor(ids, device=self.device)  # (B, T)
        ext = torch.tensor(ext, device=self.device)  # (B, T)
        x = self.embedding(ids)  # (B, T, d_in)
        if self.cfg.unk_zero:
            x = x.masked_fill((ids == UNK_ID)[..., None], 0.0)  # (B, T, d_in)  constant zero, zero gradient
        if rows:
            table = torch.from_numpy(self.glove.vectors[list(rows)]).to(x)  # (G, d_in)
            x = torch.where((ext >= 0)[..., None], table[ext.clamp(min=0)], x)  # (B, T, d_in)
        lengths = torch.tensor([len(toks) for toks in batch], device=self.device)  # (B,)
        valid = torch.arange(T, device=self.device)[None] < lengths[:, None]  # (B, T)
        return x, valid

    # ------------------------------------------------------------- forward
    def forward(
        self,
        premise: Sequence[Sequence[str]],
        hypothesis: Sequence[Sequence[str]] | None = None,
        record: bool = False,
        masks: tuple[str, str] | None = None,
        alpha: float | None = None,
    ):
        """Token lists → logits (B, K), plus encoder traces when ``record``.

        Returns ``(logits, premise_trace, hypothesis_trace)``; traces are
        ``None`` unless ``record``. Recording never changes the logits.
        """
        if self.cfg.pair and hypothesis is None:
            first, second = self.cfg.input_names
            kind = "a relatedness model" if self.cfg.relatedness else "an NLI model"
            raise InputError(f"Model {self.name!r} is {kind}; give a {second} as well as a {first}.")
        if self.cfg.arch == "disan" and alpha is not None:
            raise InputError(f"alpha={alpha} was given, but {self.name!r} is a DiSAN model with no distance mask; "
                             "drop alpha (--alpha) for it.")
        check_alpha(alpha)
        x, valid = self.embed(premise)  # (B, T, d_in), (B, T)
        y, valid_h = self.embed(hypothesis) if self.cfg.pair else (None, None)  # (B, T2, d_in), (B, T2)
        return self.classify(x, valid, y, valid_h, record, masks, alpha)

    def classify(
        self,
        x: Tensor,
        valid: Tensor,
        y: Tensor | None = None,
        valid_h: Tensor | None = None,
        record: bool = False,
        masks: tuple[str, str] | None = None,
        alpha: float | Tensor | None = None,
    ):
        """Embedded sentence(s) → ``forward``'s ``(logits, premise_trace, hypothesis_trace)``.

        ``forward`` after ``embed``; the ONNX export (``onnx_export.py``) enters here with its own table lookup.
        x: (B, T, d_in), valid: (B, T); y, valid_h: the hypothesis (B, T2, …) for NLI models, else ``None``.
        """
        sp, tp = self.encoder(x, valid, record, masks, alpha)  # (B, E)
        if y is None:
            return self.head(sp), tp, None
        sh, th = self.encoder(y, valid_h, record, masks, alpha)  # (B, E)  tied encoders
        return self.head(sp, sh), tp, th

    # ---------------------------------------------------------------- API
    def tokenize_checked(self, text: str, what: str = "text") -> list[str]:
        """Tokenize and enforce the token limit, before any large allocation."""
        if not isinstance(text, str):
            raise InputError(f"The {what} must be a string, not {type(text).__name__}.")
        tokens = tokenize(text)
        if not tokens:
            raise InputError(f"The {what} is empty (or only invisible characters); type a sentence with at least one word.")
        if len(tokens) > self.cfg.max_tokens:
            raise InputError(
                f"The {what} has {len(tokens)} tokens, over this model's limit of {self.cfg.max_tokens}; shorten it."
            )
        return tokens

    def request_bytes(self, T: int) -> int:
        """Upper estimate of the float32 bytes one traced sentence of T tokens allocates."""
        c = self.cfg
        if c.arch == "disan":
            full = T * T * c.d_h if T <= FULL_PROBS_MAX_TOKENS else 0  # (T, T, D) kept in the trace
            per_block = 2 * full + min(T * T * c.d_h, CHUNK_ELEMENTS) * 6 + 4 * T * T  # + chunk work, views
            return 4 * (2 * per_block + 8 * T * c.d_h)
        per_block = 4 * c.heads * T * T + T * c.d_h * (8 + 2 * c.ffn_mult)  # scores, probs, copies; activations
        return 4 * 2 * per_block

    def check_request(self, *lengths: int) -> None:
        """Refuse a request before any large allocation when it would exceed ``max_request_mb``."""
        need = sum(self.request_bytes(T) for T in lengths) / 2**20
        if need > self.cfg.max_request_mb:
            raise InputError(
                f"This input needs about {need:,.0f} MB, over the per-request limit of "
                f"{self.cfg.max_request_mb:,} MB; shorten the text."
            )

    @torch.inference_mode()
    def trace(
        self,
        text: str,
        hypothesis: str | None = None,
        *,
        alpha: float | None = None,
        masks: str | Sequence[str] | None = None,
    ) -> ModelTrace:
        """Encode one sentence (or pair) and return every intermediate (B = 1)."""
        self.eval()
        pair = resolve_masks(masks, self.cfg.masks)
        first, second = self.cfg.input_names
        premise = self.tokenize_checked(text, first if self.cfg.pair else "text")
        if self.cfg.pair and hypothesis is None:
            raise InputError(f"Model {self.name!r} takes a pair of sentences; give the {second} too: "
                             f"trace({first.replace(' ', '_')}, {second.replace(' ', '_')}).")
        hyp = self.tokenize_checked(hypothesis, second) if self.cfg.pair else None
        if not self.cfg.pair and hypothesis:
            raise InputError(f"Model {self.name!r} classifies single sentences; leave the hypothesis empty "
                             "(on the command line: drop --hypothesis).")
        self.check_request(len(premise), len(hyp or ()))
        logits, tp, th = self(
            [premise], [hyp] if hyp is not None else None, record=True, masks=pair, alpha=alpha
        )
        probs = torch.softmax(logits.float(), -1)[0].tolist()  # (K,)
        score = float(expected_score(logits)[0]) if self.cfg.relatedness else None
        used_alpha = None if self.cfg.arch == "disan" else (self.cfg.alpha if alpha is None else float(alpha))
        return ModelTrace(
            model=self.name,
            random_weights=self.random_weights,
            arch=self.cfg.arch,
            premise=SentenceTrace(tuple(premise), self.token_status(premise), tp),
            hypothesis=SentenceTrace(tuple(hyp), self.token_status(hyp), th) if hyp is not None else None,
            prediction=dict(zip(self.cfg.labels, probs)),
            masks=pair,
            alpha=used_alpha,
            relatedness=score,
        )

    @torch.inference_mode()
    def predict(
        self, inputs: Sequence[str | tuple[str, str]], batch_size: int = 128, **overrides
    ) -> list[dict[str, float]] | list[float]:
        """Label → probability for each text (or ``(premise, hypothesis)`` pair).

        A relatedness model (``cfg.relatedness``, SICK) returns each pair's score rᵀp̂ (1..K) instead.
        Batches by length so 10,000 inputs cost seconds. ``overrides`` are
        ``masks=`` and ``alpha=`` as in ``trace``.
        """
        self.eval()
        if isinstance(inputs, str):  # iterated, a string is its characters: one prediction each, or a space "empty"
            raise InputError("predict takes a list of texts (or (premise, hypothesis) pairs), not one string; "
                             "pass [text], or trace(text) for one sentence.")
        masks = resolve_masks(overrides.get("masks"), self.cfg.masks)
        alpha = overrides.get("alpha")
        items = [self.split_input(item) for item in inputs]
        order = sorted(range(len(items)), key=lambda i: max(len(t) for t in items[i] if t is not None))
        out: list = [None] * len(items)
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            prem = [items[i][0] for i in idx]
            hyp = [items[i][1] for i in idx] if self.cfg.pair else None
            logits, _, _ = self(prem, hyp, masks=masks, alpha=alpha)
            if self.cfg.relatedness:
                for i, score in zip(idx, expected_score(logits).tolist()):
                    out[i] = score
                continue
            for i, row in zip(idx, torch.softmax(logits.float(), -1).tolist()):
                out[i] = dict(zip(self.cfg.labels, row))
        return out  # type: ignore[return-value]

    def split_input(self, item: str | tuple[str, str]) -> tuple[list[str], list[str] | None]:
        if self.cfg.pair:
            if isinstance(item, str) or len(item) != 2:
                first, second = self.cfg.input_names
                raise InputError(f"Model {self.name!r} needs ({first}, {second}) pairs, got {item!r}.")
            return (self.tokenize_checked(item[0], self.cfg.input_names[0]),
                    self.tokenize_checked(item[1], self.cfg.input_names[1]))
        if not isinstance(item, str):
            raise InputError(f"Model {self.name!r} classifies single texts; got {type(item).__name__}.")
        return self.tokenize_checked(item), None

    @torch.inference_mode()
    def feature_slice(self, text: str, feature: int, direction: str = "fw", masks=None) -> Tensor:
        """DiSAN per-feature probabilities P[..., k] (T, T) for any length, chunk by chunk.

        Long sentences keep only reduced views in the trace (see
        ``disan_encoder.FULL_PROBS_MAX_TOKENS``); this recomputes one feature.
        """
        if self.cfg.arch != "disan":
            raise InputError("Per-feature probabilities exist only for DiSAN models.")
        self.eval()
        kinds = resolve_masks(masks, self.cfg.masks)
        block = self.encoder.fw if direction == "fw" else self.encoder.bw
        kind = kinds[0] if direction == "fw" else kinds[1]
        if not 0 <= feature < self.cfg.d_h:
            raise InputError(f"Feature {feature} is out of range; choose 0 to {self.cfg.d_h - 1}.")
        x, valid = self.embed([self.tokenize_checked(text)])
        h = block.act(block.fc_h(x))  # (1, T, D)  Eq. 14 (eval: no dropout)
        T = h.shape[1]
        allowed = attention_allowed(direction_mask(T, kind, x.device), valid)  # (1, T, T)
        _, views = multi_dim_token2token(
            h, allowed, block.w1.weight, block.w2.weight, block.b1, block.c,
            chunk=auto_chunk(1, T, h.shape[-1]), keep_probs=False, feature=feature,
        )
        return views["feature"][0].float().cpu()  # (T, T)
