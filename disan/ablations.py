"""The bundled checkpoints trained without one of the papers' parts, each beside the model it ablates: Shen
Tables 1–2's "DiSAN without directions" (both blocks under the diagonal mask) and Im Table 1's "without distance mask"
(α = 0). One table, read by the claims run, the Evidence and Compare views and the reproduction script; it
imports nothing, so the app reads it without torch."""

ABLATIONS = {
    "disan-sst5": "disan-sst5-nodir",
    "dsa-sst5": "dsa-sst5-nodist",
    "dsa-nli": "dsa-nli-nodist",
    "disan-nli": "disan-nli-nodir",  # Shen Table 1's "DiSAN without directions" (issue 57 item 5)
}
