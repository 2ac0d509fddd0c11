"""Token attributions beside the attention: does the model use what it attends to?

Per-token series for one input and one class (default: the predicted one; for a relatedness model its
score ŷ = rᵀp̂, ``forward.SCORE``), in
``attribute(model, trace)`` (``sentence.py``):

* the model's own source2token attention, and for the DSA its whole pooling layer;
* gradient × input on the embeddings (``gradient.py``; with the attention detached in ``detach.py``);
* Integrated Gradients through Captum, zero-embedding baseline (``gradient.py``);
* leave-one-out: the drop in the class probability when a token becomes ``<unk>`` (``erasure.py``);
* gated rollout: each token's mixing-weight share of the sentence vector composed through the
  model's own attention weights and gates (``rollout.py``; exact for DiSAN);
* attention flow: Abnar & Zuidema's maximum flow through the same layer graph (``attention_flow.py``);
* LRP: AttnLRP's rules, extended to feature-wise attention, masks and max pooling, relevance of the logit that
  sums to it with the absorbed terms stated (``lrp.py``, ``lrp_rules.py``; docs/lrp.md).

``corpus.py`` measures the same over a whole test set (Kendall τ, ERASER's
comprehensiveness and sufficiency) and ``stored.py`` keeps the results beside the
checkpoints. Nothing here imports Streamlit or Plotly; Captum is imported only
when Integrated Gradients runs.
"""

from .forward import SCORE
from .sentence import METHODS, Attribution, SideAttribution, attribute, method_text, methods_for

__all__ = ["METHODS", "SCORE", "Attribution", "SideAttribution", "attribute", "method_text", "methods_for"]
