"""Jain & Wallace (2019), *Attention is not Explanation* (NAACL-HLT), Table 2, beside our measurements.

Their Table 2 gives, per dataset and predicted class, the mean ± standard deviation over test instances of
Kendall τ between the attention weights and two importance measures, and the fraction of instances whose τ
is significant (p ≤ 0.05, "Sig. Frac."). Only the rows of the tasks our models are trained on are kept: SST
(theirs is the binary task; ours is SST-5) and SNLI, for their BiLSTM encoder with additive (tanh) attention.

* τ_g: attention against the gradient importance |Σ_w 1[x_tw = 1] ∂y/∂x_tw| of each token, which is the
  absolute gradient × input over the embedding (their Algorithm 1; our ``grad_input``, ranked by magnitude).
* τ_loo: attention against leave-one-out, the total-variation distance between the outputs with and without
  token t (the token deleted). Ours replaces the token by ``<unk>`` and takes the drop in the class probability.
* Both over all of an instance's tokens (not the top k). Two differences from our rows: their gradient is taken
  with the attention weights detached (the gradient flows through the values only), and their SNLI τ covers the
  premise tokens only (the sentence their model attends over), where our plain rows average premise and
  hypothesis. A second row per model compares like with like: τ over the premise only, with the gradient taken
  with our attention detached (``disan.attribution.detach``); files of schema 1 lack it ("not computed").

The numbers were read from the authors' own result files (github.com/successar/AttentionExplanation,
commit 19cfd61, ``graph_outputs/GradientPval/{sst,snli}+lstm+tanh.csv`` and ``pyxc-pyc_pval/…``), which agree
cell for cell, rounded to two decimals, with an image of the published Table 2.
"""

from __future__ import annotations

from dataclasses import dataclass

CITATION = "Jain & Wallace 2019, Table 2 (BiLSTM, additive attention)"


@dataclass(frozen=True)
class PublishedTau:
    """One row of Table 2: mean, std and Sig. Frac. of τ_g and τ_loo for one predicted class."""

    dataset: str
    task: str  # our task name the row is set beside ("sst5", "nli")
    predicted_class: str
    tau_g: tuple[float, float, float]
    tau_loo: tuple[float, float, float]


TABLE_2 = (
    PublishedTau("SST (binary)", "sst5", "0", (0.40, 0.21, 0.59), (0.34, 0.20, 0.47)),
    PublishedTau("SST (binary)", "sst5", "1", (0.38, 0.19, 0.58), (0.33, 0.19, 0.47)),
    PublishedTau("SNLI", "nli", "0", (0.36, 0.22, 0.46), (0.44, 0.18, 0.60)),
    PublishedTau("SNLI", "nli", "1", (0.42, 0.19, 0.57), (0.43, 0.17, 0.59)),
    PublishedTau("SNLI", "nli", "2", (0.40, 0.20, 0.52), (0.44, 0.17, 0.61)),
)


def _theirs(t: tuple[float, float, float]) -> str:
    return f"{t[0]:.2f} ± {t[1]:.2f} (sig. {t[2]:.2f})"


#: What the caption must say beside the table (the Evidence tab and docs/attention-as-explanation.md quote it).
CAPTION = (
    "Theirs: mean ± std over test instances per predicted class (the fraction with p ≤ 0.05), BiLSTM with additive "
    "attention, binary SST; τ over all tokens, gradient = |gradient × input| with the attention weights detached "
    "from the gradient, leave-one-out = total-variation distance after deleting the token; for SNLI, τ over the "
    "premise tokens only. Ours (first row per model): mean over every test example with its 95% bootstrap "
    "interval, the gradient taken through the attention, an NLI pair's τ the mean of premise and hypothesis; "
    "leave-one-out replaces the token by <unk>. Ours, like theirs (second row): τ over the premise (SST: the "
    "sentence) only, with the attention detached from the gradient. Different encoders and data (SST-5): side "
    "by side, not a replication.")
NOT_COMPUTED = "not computed (schema 1 file)"


def _ours(t: dict | None) -> str:
    if t is None:
        return NOT_COMPUTED
    lo, hi = t["ci95"]
    return f"{t['value']:+.2f} [{lo:+.2f}, {hi:+.2f}]"


def comparison_rows(measured) -> list[dict[str, str]]:
    """Table 2's rows, each task followed by our models trained on it.

    ``measured``: objects with ``name``, ``data`` (a stored faithfulness result) and ``tau(a, b)``
    (``viz_app.shell.faithfulness_results.Measured``). Theirs: mean ± std (Sig. Frac.) per predicted class;
    ours: mean over every test example (its predicted class) with a 95% bootstrap interval, then the same model
    like theirs (premise tokens, attention detached from the gradient)."""
    rows: list[dict[str, str]] = []
    for task in dict.fromkeys(r.task for r in TABLE_2):
        for r in (r for r in TABLE_2 if r.task == task):
            rows.append({"source": CITATION, "data": r.dataset, "class": f"predicted {r.predicted_class}",
                         "τ attention ~ gradient": _theirs(r.tau_g), "τ attention ~ leave-one-out": _theirs(r.tau_loo)})
        for m in (m for m in measured if m.data.get("task") == task):
            data = "SST-5 test" if task == "sst5" else "SNLI test"
            sample = "" if m.data.get("complete") else f" ({m.data['n']:,} of {m.data['n_examples']:,})"
            rows.append({"source": f"ours: {m.name}", "data": data + sample, "class": "every predicted class",
                         "τ attention ~ gradient": _ours(m.tau("attention", "grad_input")),
                         "τ attention ~ leave-one-out": _ours(m.tau("attention", "leave_one_out"))})
            jw = m.data.get("jain_wallace") or {}
            tokens = "premise tokens" if task == "nli" else "every token"
            rows.append({"source": f"ours, like theirs: {m.name}", "data": data + sample + f", {tokens}",
                         "class": "every predicted class",
                         "τ attention ~ gradient": _ours(jw.get("tau_g_detached")) + (
                             ", attention detached" if jw else ""),
                         "τ attention ~ leave-one-out": _ours(jw.get("tau_loo"))})
    return rows
