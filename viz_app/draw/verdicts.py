"""The two verdicts the app gives a paper's claim, each with its own name and rule (issue 58, item 4).

* **This sentence** (``viz_app/draw/claims.py``, the case-study views): the statistic measured on the one sentence
  drawn; a gap under ``claims.MIN_RELATIVE_GAP`` of the groups' mean is too small to call ("cannot tell"). Its words say it is
  one sentence's reading: "shown on this sentence", "not shown on this sentence", "cannot tell from this sentence".
* **Test set** (``disan/claims.py``, stored in ``pretrained/<name>.claims.json``, the Evidence view): the same
  statistic over the whole test set, supported when its 95% bootstrap interval lies on the claim's side of no
  effect, contradicted on the other side, inconclusive when it holds it. Its words are Evidence's, written here
  once: every view that names a test-set verdict (Evidence, Models, the case-study captions) uses ``on_test_set``.
"""

from __future__ import annotations

#: The test set's verdicts as Evidence writes them (text as well as colour, for colour-blind and screen readers).
TEST_SET_MARKS = {"supported": "✓ supported", "contradicted": "✗ contradicted", "inconclusive": "? inconclusive"}

#: One sentence's reading (``claims.Verdict.shown``: True, False, None).
SENTENCE_READINGS = {True: "shown on this sentence", False: "not shown on this sentence",
                     None: "cannot tell from this sentence"}


def on_test_set(claim: dict) -> str:
    """A stored claim result as Evidence's Verdict table writes it: ``✓ supported -0.0146 [-0.0149, -0.0142]``."""
    lo, hi = claim["ci95"]
    return f"{TEST_SET_MARKS[claim['verdict']]} {claim['value']:+.3g} [{lo:+.3g}, {hi:+.3g}]"


def on_test_set_with_n(claim: dict) -> str:
    """``on_test_set`` and the number of test sentences it is measured over."""
    return f"{on_test_set(claim)}, n = {claim['n']:,}"
