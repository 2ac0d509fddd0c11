"""The index's columns: name, Arrow type, what a query may do with it, and what it is (with the paper's equation).

``docs/search.md`` lists the same columns (tests/test_corpus_index.py holds the two in step); ``query.py`` takes
its allow-list of column names and the operators each type allows from here, never from user input.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from .query import FLAG, NUMBER, TEXT


@dataclass(frozen=True)
class Column:
    name: str
    type: pa.DataType
    kind: str | None  # NUMBER, TEXT, FLAG: filterable and sortable; None: stored, not queried
    meaning: str


def _num(name: str, meaning: str, type_: pa.DataType = pa.float32()) -> Column:
    return Column(name, type_, NUMBER, meaning)


SENTENCE_COLUMNS = (
    _num("sentence_id", "the example's number in source order, from 0", pa.int64()),
    Column("corpus", pa.string(), TEXT, "the corpus the example comes from (--data's name, or the file's)"),
    Column("source", pa.string(), TEXT, "file:line of the example"),
    Column("text", pa.string(), TEXT, "the sentence (a pair's premise)"),
    Column("hypothesis", pa.string(), TEXT, "a pair's hypothesis, else null"),
    Column("tokens", pa.list_(pa.string()), None, "the tokens of text"),
    Column("hypothesis_tokens", pa.list_(pa.string()), None, "the tokens of hypothesis, else null"),
    _num("T", "tokens of text (after the model's max_tokens)", pa.int32()),
    Column("gold", pa.string(), TEXT, "the gold label's name, null when the source has none"),
    _num("gold_score", "a graded gold value (SICK relatedness 1–5), else null"),
    Column("pred", pa.string(), TEXT, "the predicted label (argmax of p)"),
    _num("pred_prob", "the predicted label's probability max_k p_k (softmax of the head's logits)"),
    Column("probs", pa.list_(pa.float32()), None, "p over the model's labels, in the manifest's label order"),
    Column("correct", pa.bool_(), FLAG, "pred == gold, null when the gold labels are not the model's"),
    _num("mean_fw_gate", "mean over the sentence's tokens of fw_gate"),
    _num("mean_bw_gate", "mean over the sentence's tokens of bw_gate"),
    _num("mean_fw_entropy", "mean over attending tokens of fw_entropy"),
    _num("mean_bw_entropy", "mean over attending tokens of bw_entropy"),
    _num("mean_fw_distance", "mean over attending tokens of fw_distance"),
    _num("mean_bw_distance", "mean over attending tokens of bw_distance"),
    _num("tau_s2t_grad", "Kendall τ-b over the sentence's tokens between s2t and |grad_input| (attention's "
                         "ranking against gradient × input's)"),
    Column("signature", pa.float32(), None, "the fixed-length attention signature (--like); see below"),
)

BLOCK_COLUMNS = (
    ("gate", "fusion gate F averaged over features: Shen Eq. 19 (DiSAN) / Im Eq. 12 (DSA); large F keeps the "
             "word's own input, small F takes the attention output (Shen Eq. 20, Im Eq. 12)"),
    ("received", "attention the token receives relative to uniform: mean over rows i that may attend j of "
                 "P[i, j]·n_i (n_i keys of row i); 1 = what uniform rows give (Shen Fig. 6 / Im Fig. 7); P is "
                 "Shen Eq. 11's P averaged over features or Im Eq. 7's heads averaged"),
    ("given_max", "the largest weight the token's row gives one key, max_j P[i, j] (1 = all on one word)"),
    ("entropy", "row entropy −Σ_j P[i, j] log P[i, j] in nats (null for a row with no key)"),
    ("distance", "mean attended distance Σ_j P[i, j]·|i − j| (Im Fig. 7; null for a row with no key)"),
)


def token_columns(arch: str, heads: int) -> tuple[Column, ...]:
    """The tokens table's columns for a model of ``arch`` (the DSA adds a distance per head and max pooling)."""
    cols = [
        _num("sentence_id", "the sentence the token belongs to", pa.int64()),
        Column("side", pa.string(), TEXT, "text, or premise / hypothesis for a pair"),
        _num("position", "the token's position i in its side, from 0", pa.int32()),
        Column("word", pa.string(), TEXT, "the token"),
        Column("status", pa.string(), TEXT, "vocab (the model's own row), glove (a GloVe vector it never "
                                            "trained) or unknown (the <unk> row)"),
    ]
    for block in ("fw", "bw"):
        for what, meaning in BLOCK_COLUMNS:
            cols.append(_num(f"{block}_{what}", f"{block} block: {meaning}"))
        if arch == "dsa":
            for h in range(heads):
                cols.append(_num(f"{block}_h{h}_distance", f"{block} block, head {h}: Σ_j P_h[i, j]·|i − j| "
                                                            "with P_h Im Eq. 7's head h"))
    cols.append(_num("s2t", "source2token weight averaged over features: Shen Eqs. 12–13 / Im Eq. 15's softmax(L)"))
    if arch == "dsa":
        cols.append(_num("maxpool_share", "share of the 2D features whose max pooling this token wins (Im Fig. 11b)"))
    cols.append(_num("grad_input", "gradient × input: Σ_d ∂p_c/∂x_d · x_d over the embedding, c the predicted "
                                   "class (a relatedness model: the score rᵀp̂)"))
    return tuple(cols)


def sentence_schema(signature_length: int) -> pa.Schema:
    fields = []
    for c in SENTENCE_COLUMNS:
        t = pa.list_(pa.float32(), signature_length) if c.name == "signature" else c.type
        fields.append(pa.field(c.name, t))
    return pa.schema(fields)


def token_schema(arch: str, heads: int) -> pa.Schema:
    return pa.schema([pa.field(c.name, c.type) for c in token_columns(arch, heads)])


def queryable(arch: str, heads: int) -> dict[str, tuple[str, str]]:
    """Column name → (table, kind) of every column a query may filter or sort by."""
    out = {c.name: ("sentences", c.kind) for c in SENTENCE_COLUMNS if c.kind}
    for c in token_columns(arch, heads):
        if c.kind and c.name not in out:
            out[c.name] = ("tokens", c.kind)
    return out
