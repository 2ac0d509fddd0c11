"""The shared sidebar: model picker, sentence/hypothesis, presets, masks, presentation mode."""

from __future__ import annotations

import streamlit as st

import disan

from viz_app.shell import loaders, models

from viz_app.draw import settings
from viz_app.shell.context import Context
from viz_app.shell.follow import typing_base
from viz_app.draw.presets import preset_by_label, presets_for
from viz_app.shell.session import SHOWN_PAIR_KEY, ensure, init_from_url, keep_widget_state
from viz_app.draw.text import md_escape
from viz_app.draw.theme import theme_for

_PRESET_PLACEHOLDER = "— choose a preset sentence —"
MASK_CHOICES = {
    "default": "as trained",
    "none": "none (every token, itself included)",
    "diag": "diag (all but itself; Shen Eq. 16)",
    "swap": "swapped (fw ↔ bw)",
}


def _apply_preset() -> None:
    preset = preset_by_label(st.session_state.get("preset", ""))
    if preset is not None:
        st.session_state["sentence"] = preset.sentence
        st.session_state["hypothesis"] = preset.hypothesis
    # The menu's own value stays the placeholder: one derived from the boxes each run changed as the text did, and a
    # click that interrupted the run before the browser had the new value sent the old pick back, replacing the
    # typed sentence with the example (tests/test_browser_typing.py). _shown_preset's caption names the example.
    st.session_state["preset"] = _PRESET_PLACEHOLDER


def _shown_preset(name: str, pair: bool) -> str | None:
    """The label of the preset whose text the boxes hold, for a caption under the menu, else None.

    After a pick the menu reads "choose a preset sentence" again, so without it the example's label (a test
    line's gold class, a SICK pair's relatedness) was gone. A two-sentence model matches on both boxes; a
    one-sentence model, whose hypothesis box is hidden, on the sentence (the picked preset first: its hypothesis
    is still the session's)."""
    sentence, hypothesis = st.session_state.get("sentence"), st.session_state.get("hypothesis")
    offered = presets_for(name)
    match = next((p for p in offered if (p.sentence, p.hypothesis) == (sentence, hypothesis)), None)
    if match is None and not pair:
        match = next((p for p in offered if p.sentence == sentence), None)
    return match.label if match else None


def validate(text: str | None, what: str) -> str | None:
    """One sentence naming what is wrong with ``text`` and how to fix it, or None."""
    if text is None or not text.strip():
        return f"The {what} is empty; type a sentence (or pick a preset in the sidebar)."
    if len(text) > settings.MAX_CHARS:
        return f"The {what} has {len(text):,} characters; this app accepts at most {settings.MAX_CHARS:,}. Shorten it."
    tokens = disan.tokenize(text)
    if not tokens:
        return f"The {what} has no words the tokenizer can use (only invisible or control characters); type a sentence."
    if len(tokens) > settings.MAX_TOKENS:
        return (
            f"The {what} has {len(tokens)} tokens; this app draws at most {settings.MAX_TOKENS} "
            "(set VIZ_MAX_TOKENS to change the limit). Shorten it."
        )
    return None


def _pick_model(names: list[str], default: str):
    """Model selectbox; returns (name, config), falling back to random DiSAN if the checkpoint cannot be loaded.

    The weights are loaded here, so that a damaged file falls back before any view needs it, unless the page
    opens on this model's stored opening page (``view_store``): the same file loaded when it was stored, and
    the page is then drawn before torch loads (issue 19's cold start)."""
    if st.session_state.get("model") not in names:
        st.session_state["model"] = default
    name = st.selectbox("Model", names, key="model", format_func=models.label)
    try:
        cfg = loaders.model_config(name)
        _sync_model_defaults(name, cfg)
        hypothesis = st.session_state.get("hypothesis") if cfg.pair else None
        if not loaders.opening_recorded(name, st.session_state["sentence"], hypothesis, st.session_state["masks"]):
            loaders.load_model(name)
        return name, cfg
    except disan.DisanError as err:
        st.error(md_escape(f"{err} Showing the random-weight DiSAN model instead."))
        cfg = loaders.model_config("disan")
        _sync_model_defaults("disan", cfg)
        return "disan", cfg


def _sync_model_defaults(name: str, cfg) -> None:
    """When the model changes: α to its trained value (DSA), a hypothesis for NLI models."""
    if cfg.arch == "dsa" and st.session_state.get("alpha_owner") != name:
        st.session_state["alpha"] = float(cfg.alpha)
        st.session_state["alpha_owner"] = name
    ensure("alpha", settings.PAPER_ALPHA)
    if cfg.pair and st.session_state.get("hypothesis_owner") != name:
        if not st.session_state.get("hypothesis"):
            st.session_state["hypothesis"] = settings.DEFAULT_HYPOTHESIS
        st.session_state["hypothesis_owner"] = name


def side_names(cfg, view: str | None = None) -> tuple[str, str]:
    """What the sidebar calls the two inputs: an NLI model's premise and hypothesis, a relatedness model's
    sentence A and sentence B (SICK's own column names), a classifier's one sentence. On the Minimal pair view,
    whose sides are A and B, a relatedness model's are its first and second sentence as the view names them
    (``settings.PAIR_RELATEDNESS_NAMES``): "Sentence B" beside the view's "B: first sentence" read as a clash."""
    if cfg.relatedness and cfg.pair:  # a score of one sentence (train --data --regression) has one sentence
        return settings.PAIR_RELATEDNESS_NAMES if view == "pair" else ("sentence A", "sentence B")
    return ("premise", "hypothesis") if cfg.pair else ("sentence", "")


def prepare_session() -> tuple[list[str], str]:
    """The session's state before anything is drawn (the link's settings on its first run); (models, default)."""
    names = models.available()
    default = models.default_model(names)
    init_from_url(names, default)
    keep_widget_state()
    ensure("sentence", settings.DEFAULT_SENTENCE)
    ensure("hypothesis", "")
    ensure("masks", "default")
    ensure("side", "premise")
    ensure("present", False)
    ensure("imgfmt", "svg")
    ensure("preset", _PRESET_PLACEHOLDER)
    return names, default


def render_sidebar(view: str | None = None, prepared: tuple[list[str], str] | None = None) -> Context:
    """Draw the sidebar for the page ``view`` (its ``url_path``) and return the run's ``Context``."""
    names, default = prepared or prepare_session()
    with st.sidebar:
        name, cfg = _pick_model(names, default)
        # the shown model's, which a checkpoint that fails to load replaces with random DiSAN (one sentence)
        st.session_state[SHOWN_PAIR_KEY] = bool(cfg.pair)
        st.selectbox(
            "Preset", (_PRESET_PLACEHOLDER,) + tuple(p.label for p in presets_for(name)), key="preset",
            on_change=_apply_preset
        )
        first, second = side_names(cfg, view)
        # Every page's typing element sends the boxes' text; a commit's own rerun could cancel a click (follow.py).
        text = st.text_area(first[0].upper() + first[1:], key="sentence", max_chars=settings.MAX_CHARS, height=90,
                            on_change="ignore")
        hypothesis = None
        if cfg.pair:
            hypothesis = st.text_input(second[0].upper() + second[1:], key="hypothesis", max_chars=settings.MAX_CHARS,
                                       on_change="ignore")
            st.radio("Draw", ("premise", "hypothesis"), key="side", horizontal=True,
                     format_func=dict(premise=first, hypothesis=second).get)
        shown = _shown_preset(name, cfg.pair)  # under the boxes: its line comes and goes without moving them
        if shown is not None:
            st.caption(f"Example: {md_escape(shown)}")
        masks = st.session_state["masks"]
        options = list(MASK_CHOICES) + ([masks] if masks not in MASK_CHOICES else [])
        st.selectbox(
            "Direction masks (inference override)",
            options,
            key="masks",
            format_func=lambda m: MASK_CHOICES.get(m, m),
            help="Replaces the trained masks at inference; the weights stay the same.",
        )
        st.toggle(
            "Presentation mode", key="present", help="Large fonts, cividis/PuOr palettes, no tables or downloads."
        )
        st.radio("Camera button saves", ("svg", "png"), key="imgfmt", horizontal=True, format_func=str.upper)
    error = validate(text, first)
    if error is None and cfg.pair:
        error = validate(hypothesis, second)
    presentation = bool(st.session_state["present"])
    return Context(
        model=name,
        models=tuple(names),
        arch=cfg.arch,
        pair=cfg.pair,
        random_weights=models.is_random(name),
        any_trained=bool(models.trained(names)),
        labels=tuple(cfg.labels),
        d_h=cfg.d_h,
        heads=cfg.heads,
        trained_alpha=float(cfg.alpha) if cfg.arch == "dsa" else None,
        text=text,
        hypothesis=hypothesis if cfg.pair else None,
        masks=st.session_state["masks"],
        alpha=float(st.session_state["alpha"]),
        side=st.session_state["side"] if cfg.pair else "premise",
        theme=theme_for(presentation),
        presentation=presentation,
        image_format=st.session_state["imgfmt"],
        input_error=error,
        typing_base=typing_base(view, name, st.session_state["masks"]),
    )
