"""The Minimal pair view's controls beyond B's boxes (issue 30): the pair presets, and swapping a word of B.

* ``preset_picker``: a select of ``presets.pair_presets_for`` the sidebar's model (the list the static explorer
  offers); picking one fills A (the sidebar's sentence and hypothesis), B and, for a DSA's distance preset, α.
* ``on_swap``: the chart component's callback when a word of B is clicked in the pair's page (chart.js sends
  "side:index"); ``swap_panel`` then offers that word's nearest words in the model's own embedding table (cosine,
  as the explorer's ``Pair.nearestWords``), beside them the nearest ``RANKED`` ranked by how much each changes B's
  prediction (``viz_app.draw.swaps``, as the explorer's ``Pair.swapEffects``), and a free-text entry; any of them
  replaces the token in B.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import disan
from disan.vocab import PAD_ID, UNK_ID

from viz_app.draw.presets import pair_presets_for
from viz_app.draw.swaps import Swap, ranked_swaps, swap_text
from viz_app.draw.text import md_escape
from viz_app.shell import loaders
from viz_app.shell.context import Context

#: How many nearest words the swap offers (the explorer's NEAREST).
NEAREST = 8
#: How many nearest words are ranked by their effect on B's prediction, and how many of them are offered
#: (the explorer's RANKED and RANKED_SHOWN).
RANKED, RANKED_SHOWN = 50, 8
#: Session key of the word of B being swapped: {"side", "index", "word"}, or absent.
SWAP = "pair_swap"
_PLACEHOLDER = "— pick a pair —"
_B_KEYS = {"premise": "sentence_b", "hypothesis": "hypothesis_b"}


def _apply_preset(options: dict[str, dict]) -> None:
    preset = options.get(st.session_state.get("pair_preset", ""))
    st.session_state["pair_preset"] = _PLACEHOLDER
    if preset is None:
        return
    st.session_state.update(sentence=preset["text"], hypothesis=preset["hypothesis"], sentence_b=preset["bText"],
                            hypothesis_b=preset["bHypothesis"])
    if preset["alpha"] is not None:
        st.session_state["alpha"] = float(preset["alpha"])
    st.session_state.pop(SWAP, None)


def preset_picker(ctx: Context) -> None:
    """The pair presets that fit the sidebar's model, as a select that fills A, B (and α)."""
    cfg = loaders.model_config(ctx.model)
    options = {p["label"]: p for p in pair_presets_for(ctx.arch, ctx.pair, bool(cfg.relatedness))}
    if st.session_state.get("pair_preset") not in options:
        st.session_state["pair_preset"] = _PLACEHOLDER
    st.selectbox("Pair example", (_PLACEHOLDER, *options), key="pair_preset", on_change=_apply_preset,
                 args=(options,), help="Fills A (the sidebar's input), B and, for a distance preset, α.")


def _words(text: str) -> list[str]:
    return text.split()


def swapped(text: str, index: int, replacement: str) -> str:
    """``text``'s tokens with token ``index`` replaced by ``replacement``'s words (several insert, none deletes
    it), joined by spaces: the tokens the model reads, which tokenize back to themselves."""
    tokens = disan.tokenize(text)
    if not 0 <= index < len(tokens):
        raise ValueError(f"token #{index} is outside B's {len(tokens)} tokens; click a word of B again")
    tokens[index:index + 1] = _words(replacement)
    return " ".join(tokens)


@st.cache_resource(max_entries=4, show_spinner=False)
def _unit_table(name: str) -> np.ndarray:
    """The model's word table (the rows ``SentenceModel.embed`` reads for its own words), each row scaled to unit
    length; a zero row (``<pad>``, ``<unk>`` with unk_zero) stays zero and so is never a nearest word."""
    model = loaders.load_model(name)
    table = model.embedding.weight.detach().float().cpu().numpy().astype(np.float64)  # (V, d_in)
    norms = np.linalg.norm(table, axis=1, keepdims=True)  # (V, 1)
    return np.divide(table, norms, out=np.zeros_like(table), where=norms > 0)


def nearest_words(name: str, word: str, k: int = NEAREST) -> list[tuple[str, float]]:
    """The ``k`` words of model ``name``'s vocabulary nearest ``word`` by cosine, best first, as (word, cosine):
    never the word itself, ``<pad>`` or ``<unk>``; equal cosines go to the lower id. A word outside the vocabulary
    is queried with its GloVe vector where the model has one; a word with neither has no nearest words."""
    model = loaders.load_model(name)
    unit = _unit_table(name)
    own = model.vocab.index.get(word)
    if own is not None:
        query = unit[own]
    else:
        row = model.glove.index(word) if model.glove is not None else None
        if row is None:
            return []
        vector = np.asarray(model.glove.vectors[row], dtype=np.float64)  # (d_in,)
        norm = np.linalg.norm(vector)
        if norm == 0:
            return []
        query = vector / norm
    if not query.any():
        return []
    cosine = unit @ query  # (V,)
    usable = unit.any(axis=1)  # (V,): zero rows have no direction
    usable[[PAD_ID, UNK_ID]] = False
    if own is not None:
        usable[own] = False
    ids = np.flatnonzero(usable)
    best = ids[np.argsort(-cosine[ids], kind="stable")[:k]]  # stable: equal cosines keep the lower id first
    return [(model.vocab.words[i], float(cosine[i])) for i in best]


def on_swap(key: str, b: dict[str, str | None]) -> None:
    """The chart component's "swap" trigger ("side:index", a word of B clicked): remember which word."""
    clicked = (st.session_state.get(key) or {}).get("swap")
    try:
        side, index = str(clicked).split(":")
        tokens = disan.tokenize(b[side] or "")
        st.session_state[SWAP] = {"side": side, "index": int(index), "word": tokens[int(index)]}
    except (KeyError, ValueError, IndexError):
        st.session_state.pop(SWAP, None)  # B changed under the click: nothing to swap


def _use(side: str, index: int, replacement: str | None) -> None:
    """B's token ``index`` of ``side`` replaced by ``replacement`` ("" deletes it; None leaves B as it is)."""
    key = _B_KEYS[side]
    if replacement is not None:
        try:
            st.session_state[key] = swapped(st.session_state.get(key) or "", index, replacement)
        except ValueError:
            pass  # B was edited under the panel: the word is gone, the panel closes and B stays as typed
    st.session_state.pop(SWAP, None)
    st.session_state.pop("pair_swap_pick", None)
    st.session_state.pop("pair_swap_ranked", None)
    st.session_state.pop("pair_swap_free", None)


def _pick(side: str, index: int) -> None:
    _use(side, index, st.session_state.get("pair_swap_pick"))


def _pick_ranked(side: str, index: int) -> None:
    _use(side, index, st.session_state.get("pair_swap_ranked"))


@st.cache_data(max_entries=64, show_spinner=False)
def _ranked(name: str, b: tuple, side: str, index: int, masks: str, alpha: float | None) -> list[Swap]:
    words = [w for w, _ in nearest_words(name, disan.tokenize(dict(b)[side] or "")[index], RANKED)]
    return ranked_swaps(loaders.load_model(name), dict(b), side, index, words, masks=masks, alpha=alpha)


def _free(side: str, index: int) -> None:
    typed = (st.session_state.get("pair_swap_free") or "").strip()
    if typed:
        _use(side, index, typed)


def swap_panel(ctx: Context, b: dict[str, str | None], side_label: dict[str, str]) -> None:
    """The word of B clicked in the page, with its nearest words and a free-text entry; nothing when none is,
    or when B has changed since the click so that the word is no longer there."""
    chosen = st.session_state.get(SWAP)
    if not chosen:
        return
    side, index, word = chosen["side"], chosen["index"], chosen["word"]
    tokens = disan.tokenize(b.get(side) or "")
    if index >= len(tokens) or tokens[index] != word:
        st.session_state.pop(SWAP, None)
        return
    near = nearest_words(ctx.model, word)
    where = f" of {side_label[side]}" if ctx.pair else ""
    with st.container(border=True):
        if near:
            st.pills(f"Swap B's word “{md_escape(word)}” (#{index}{where}) for one of its nearest words in the "
                     "model's table (cosine)", [w for w, _ in near], key="pair_swap_pick", on_change=_pick,
                     args=(side, index), format_func=dict((w, f"{w} · {c:.2f}") for w, c in near).get)
            ranked = _ranked(ctx.model, tuple(sorted(b.items())), side, index, ctx.masks, ctx.trace_alpha)
            shown = ranked[:RANKED_SHOWN]
            st.pills(f"…or one of its {len(ranked)} nearest words ranked by how much each changes B's prediction "
                     "(the change of the probability of B's predicted class, or of the score; → the new class where "
                     "it flips)", [s.word for s in shown], key="pair_swap_ranked", on_change=_pick_ranked,
                     args=(side, index), format_func=dict((s.word, swap_text(s)) for s in shown).get)
        else:
            st.caption(f"The model has no vector for “{md_escape(word)}”: no nearest words; type its replacement.")
        st.text_input("or other words (Enter to use them)", key="pair_swap_free", on_change=_free, args=(side, index))
        left, right = st.columns(2)
        left.button("Delete the word", key="pair_swap_delete", on_click=_use, args=(side, index, ""))
        right.button("Cancel", key="pair_swap_cancel", on_click=_use, args=(side, index, None))
