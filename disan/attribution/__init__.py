"""Token attributions beside the attention: does the model use what it attends to?

Four per-token measures for one input and one class (default: the predicted one), in
``attribute(model, trace)`` (``sentence.py``):

* gradient × input on the embeddings (``gradient.py``);
* Integrated Gradients through Captum, zero-embedding baseline (``gradient.py``);
* leave-one-out: the drop in the class probability when a token becomes ``<unk>`` (``erasure.py``);
* attention flow: each token's share of the sentence vector composed through the
  model's own attention weights and gates (``flow.py``; exact for DiSAN).

``corpus.py`` measures the same over a whole test set (Kendall τ, ERASER's
comprehensiveness and sufficiency) and ``stored.py`` keeps the results beside the
checkpoints. Nothing here imports Streamlit or Plotly; Captum is imported only
when Integrated Gradients runs.
"""

from .sentence import METHODS, Attribution, SideAttribution, attribute

__all__ = ["METHODS", "Attribution", "SideAttribution", "attribute"]
