"""Frozen records of every intermediate the papers plot (the *trace*).

All tensors are detached, on the CPU, float32, and recorded after masking and
softmax and before dropout. ``B`` = batch, ``T`` = tokens (padded length),
``D`` = d_h (DiSAN) or d_model (DSA), ``H`` = heads. Rows of every T×T matrix
are the attending token, columns the attended token (see ``masks.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path

from torch import Tensor

from .attention import reweight_distance


@dataclass(frozen=True)
class DiSABlockTrace:
    """One DiSA block (Shen Fig. 2; Eqs. 14, 15, 11, 19, 20).

    mask:       direction-mask name (``fw``/``bw``/``diag``/``none``).
    allowed:    (B, T, T) bool, direction ∧ padding.
    h:          (B, T, D) Eq. 14's ``σ_h(W_h x + b_h)``.
    probs:      (B, T, T, D) per-feature probabilities P, or ``None`` when the
                sentence is longer than ``full_probs_max_tokens`` (then only the
                reduced views below are kept; per-feature slices come from
                ``SentenceModel.feature_slice``).
    probs_mean: (B, T, T) P averaged over features (Shen Fig. 6).
    probs_max:  (B, T, T) P maximised over features.
    s:          (B, T, D) Eq. 11's attention output (exact zeros for queries with no key).
    gate:       (B, T, D) Eq. 19's fusion gate F.
    u:          (B, T, D) Eq. 20's ``F ⊙ h + (1 − F) ⊙ s``.
    key_part:   (B, T, D) Eq. 15's ``W1 h_i + b1`` of every key i, and
    query_part: (B, T, D) its ``W2 h_j`` of every query j: with c they give the logits
                ``f(h_i, h_j)`` of every cell before the mask, so the probabilities under other
                masks follow from them (the page's Compare); ``None`` where not recorded.
    c:          Eq. 15's scale c of those logits (the block's own); ``None`` where not recorded.
    """

    mask: str
    allowed: Tensor
    h: Tensor
    probs: Tensor | None
    probs_mean: Tensor
    probs_max: Tensor
    s: Tensor
    gate: Tensor
    u: Tensor
    key_part: Tensor | None = None
    query_part: Tensor | None = None
    c: float | None = None


@dataclass(frozen=True)
class DiSANTrace:
    """The DiSAN encoder (Shen Sec. 4, Fig. 4).

    valid:     (B, T) bool, real tokens.
    fw, bw:    the two blocks (named by position; their masks may be overridden).
    s2t_probs: (B, T, 2D) source2token probabilities (Eqs. 12–13; Shen Fig. 8).
    sentence:  (B, 2D) the encoding ``s^disan``.
    """

    valid: Tensor
    fw: DiSABlockTrace
    bw: DiSABlockTrace
    s2t_probs: Tensor
    sentence: Tensor


@dataclass(frozen=True)
class DistanceBlockTrace:
    """One directional block of the DSA (Im Fig. 2; Eqs. 7–13).

    mask:          direction-mask name.
    alpha:         the α used for ``probs``.
    allowed:       (B, T, T) bool, ``M_dir`` ∧ padding.
    distance_bias: (T, T) ``α·M_dis`` (Im Fig. 4 times α).
    scores:        (B, H, T, T) ``QK^T/√d_k`` before any mask, so the app can
                   recompute ``probs`` for another α without a forward pass.
    probs:         (B, H, T, T) Eq. 7's ``softmax(scores + M_dir + α·M_dis)``.
    attn_out:      (B, T, D) the multi-head output ``H`` (Eq. 8).
    gate:          (B, T, D) Eq. 12's ``F``.
    ffn_deactivation: (B, T) share of the d_ff hidden ReLU units that are 0 (Im Fig. 10a).
    ln_max:        (B, T) max over features of ``LayerNorm(x + FFN(x))`` (Im Fig. 10b).
    u:             (B, T, D) the block output ``U^fw`` or ``U^bw``.
    """

    mask: str
    alpha: float
    allowed: Tensor
    distance_bias: Tensor
    scores: Tensor
    probs: Tensor
    attn_out: Tensor
    gate: Tensor
    ffn_deactivation: Tensor
    ln_max: Tensor
    u: Tensor

    def probs_at(self, alpha: float) -> Tensor:
        """(B, H, T, T) attention for another α, from ``scores`` (no forward pass)."""
        return reweight_distance(self.scores, self.allowed, alpha)


@dataclass(frozen=True)
class DistanceTrace:
    """The Distance-based SAN encoder (Im Sec. 4.2).

    valid:          (B, T) bool.
    fw, bw:         the two directional blocks.
    s2t_probs:      (B, T, 2D) ``softmax(L)`` of Eq. 15 (Im Fig. 11a).
    maxpool_argmax: (B, 2D) int64, the token that wins max pooling per feature.
    maxpool_share:  (B, T) share of the 2D features each token wins (Im Fig. 11b).
    sentence:       (B, 4D) ``[multi-dimensional(U); maxpool(U)]``.
    """

    valid: Tensor
    fw: DistanceBlockTrace
    bw: DistanceBlockTrace
    s2t_probs: Tensor
    maxpool_argmax: Tensor
    maxpool_share: Tensor
    sentence: Tensor


EncoderTrace = DiSANTrace | DistanceTrace


@dataclass(frozen=True)
class SentenceTrace:
    """One encoded sentence: tokens, their vocabulary status and the encoder trace (B = 1).

    token_status: per token ``vocab`` (the model's own, possibly fine-tuned,
    row), ``glove`` (a GloVe vector the model never trained on) or
    ``unknown`` (no vector: the model's ``<unk>`` row).
    """

    tokens: tuple[str, ...]
    token_status: tuple[str, ...]
    encoder: EncoderTrace

    @property
    def unknown(self) -> tuple[bool, ...]:
        return tuple(status == "unknown" for status in self.token_status)


@dataclass(frozen=True)
class ModelTrace:
    """What ``SentenceModel.trace`` returns.

    model:        the model's name (``disan`` / ``dsa`` for random weights).
    random_weights: True when no trained checkpoint was loaded.
    arch:         ``disan`` or ``dsa``.
    premise:      the (first) sentence.
    hypothesis:   the second sentence for NLI models, else ``None``.
    prediction:   label → probability (a relatedness model's grades 1..K: p̂).
    masks, alpha: the masks and α actually used (after overrides).
    relatedness:  a relatedness model's score rᵀp̂ (Tai, Socher & Manning 2015), else ``None``.
    """

    model: str
    random_weights: bool
    arch: str
    premise: SentenceTrace
    hypothesis: SentenceTrace | None
    prediction: dict[str, float]
    masks: tuple[str, str]
    alpha: float | None
    relatedness: float | None = None

    @property
    def tokens(self) -> tuple[str, ...]:
        return self.premise.tokens

    def to_json(self) -> dict:
        """The JSON summary of ``python -m disan trace --json`` (T×T maps averaged over features/heads)."""
        out = {
            "model": self.model,
            "random_weights": self.random_weights,
            "arch": self.arch,
            "masks": list(self.masks),
            "alpha": self.alpha,
            "prediction": self.prediction,
            "predicted_label": max(self.prediction, key=self.prediction.get),
        }
        if self.relatedness is not None:
            out["relatedness"] = self.relatedness
        out.update(sentence_json(self.premise))
        if self.hypothesis is not None:
            out["hypothesis"] = sentence_json(self.hypothesis)
        return out

    def to_html(self, path) -> Path:
        """Write the same self-contained report as ``python -m viz_app report`` to ``path``; returns the path.

        Raises ``DisanError`` when the drawing code cannot be imported (``drawing_backend``), ``OutputError`` when
        ``path`` cannot be written (checked first, naming ``path`` as this method's argument, not as the command
        line's ``--out``).
        """
        from .output import check_writable

        check_writable(path, "to_html's path")
        return drawing_backend().write_report(self, path)

    def _repr_html_(self) -> str:
        """Jupyter's compact view: tokens, prediction and the main maps, all inline (no network).

        Falls back to a plain table of tokens and prediction when ``viz_app``/plotly cannot be imported.
        """
        from .errors import DisanError

        try:
            backend = drawing_backend()
        except DisanError as err:
            rows = "".join(f"<tr><td>{escape(k)}</td><td>{v:.4f}</td></tr>" for k, v in self.prediction.items())
            score = "" if self.relatedness is None else f"<p>relatedness {self.relatedness:.2f}</p>"
            second = "" if self.hypothesis is None else f"<br>{escape(' '.join(self.hypothesis.tokens))}"  # a pair's
            return (
                f"<p><b>{escape(self.model)}</b>: {escape(' '.join(self.tokens))}{second}</p>{score}<table>{rows}</table>"
                f"<p><i>The interactive view needs viz_app and plotly: {escape(str(err))}</i></p>"
            )
        return backend.notebook_html(self)


def drawing_backend():
    """The module that draws a trace (``viz_app.draw.report``: ``write_report``, ``notebook_html``).

    The model core's one import from ``viz_app`` (tests/test_layers.py holds it to this function), made only
    when a trace is drawn, the way pandas reaches its plotting backend: importing ``disan`` never loads plotly.
    """
    try:
        import viz_app.draw.report as backend
    except ImportError as err:
        from .errors import DisanError

        raise DisanError(
            f"Drawing a trace needs the app's figure code and plotly ({err}); reinstall the package with "
            "`pip install .`, or in a checkout run `pip install -r requirements.txt` and start from the repository root."
        ) from None
    return backend


def _list(t: Tensor) -> list:
    return [round(v, 6) if isinstance(v, float) else v for v in t.tolist()] if t.dim() == 1 else [_list(r) for r in t]


def sentence_json(sent: SentenceTrace) -> dict:
    """Feature-averaged views of one sentence's trace, as nested lists."""
    enc = sent.encoder
    out: dict = {"tokens": list(sent.tokens), "unknown": list(sent.unknown)}
    if isinstance(enc, DiSANTrace):
        out["fw_attention"] = _list(enc.fw.probs_mean[0])  # (T, T)
        out["bw_attention"] = _list(enc.bw.probs_mean[0])  # (T, T)
        out["fw_gate"] = _list(enc.fw.gate[0].mean(-1))  # (T,)
        out["bw_gate"] = _list(enc.bw.gate[0].mean(-1))  # (T,)
        out["s2t"] = _list(enc.s2t_probs[0].mean(-1))  # (T,)
    else:
        out["fw_heads"] = _list(enc.fw.probs[0])  # (H, T, T)
        out["bw_heads"] = _list(enc.bw.probs[0])  # (H, T, T)
        out["fw_attention"] = _list(enc.fw.probs[0].mean(0))  # (T, T)
        out["bw_attention"] = _list(enc.bw.probs[0].mean(0))  # (T, T)
        out["fw_gate"] = _list(enc.fw.gate[0].mean(-1))  # (T,)
        out["bw_gate"] = _list(enc.bw.gate[0].mean(-1))  # (T,)
        out["fw_ffn_deactivation"] = _list(enc.fw.ffn_deactivation[0])  # (T,)
        out["bw_ffn_deactivation"] = _list(enc.bw.ffn_deactivation[0])  # (T,): the report draws both blocks' FFN
        out["fw_ln_max"] = _list(enc.fw.ln_max[0])  # (T,)
        out["bw_ln_max"] = _list(enc.bw.ln_max[0])  # (T,)
        out["s2t"] = _list(enc.s2t_probs[0].mean(-1))  # (T,)
        out["maxpool_share"] = _list(enc.maxpool_share[0])  # (T,)
    return out


def detach(t: Tensor) -> Tensor:
    """A trace copy of ``t``: detached, float32 (bool/int kept), on the CPU."""
    t = t.detach()
    if t.is_floating_point():
        t = t.float()
    return t.to("cpu", copy=True) if t.device.type != "cpu" else t.clone()

