"""Search (issue 56): ask a corpus. Choose the corpus (the sidebar's model), build filters, see the hits.

Hits are found by ``disan.corpus`` (DuckDB over the index's Parquet, bound parameters) and drawn as a table:
each hit's tokens coloured by the measure searched, sorted and paged, with links that open the hit in Explore,
the model's attention view, Attribution and Minimal pair (the hit as A). The whole search lives in the address
(the ``q`` query parameter, JSON), so a copied link reopens it. Beside the table: attention mass against |i − j|
per block and head with the DSA's prior −α|i − j|, the words with the highest and lowest gate, and the heads
clustered by their attention over the corpus (``viz_app/draw/search_figures.py``).

A fresh clone holds no index: the first search of a corpus builds it into the user cache
(``disan.corpus.cache``: ``~/.cache/disan/index`` or ``$DISAN_INDEX_CACHE``) behind a button, with a progress
bar; an index built with ``disan index`` can be put there too.
"""

from __future__ import annotations

import json
import math
from html import escape

import streamlit as st

import disan
from disan.corpus import cache
from disan.corpus.query import KIND_OPERATORS, NUMBER, Filter, Query

from viz_app.draw.text import md_escape
from viz_app.shell import loaders
from viz_app.shell.context import Context
from viz_app.shell.follow import hold
from viz_app.shell.links import view_url

PAGE = 20
MAX_FILTERS = 4
#: Corpora offered before any is built: the bundled test sets first (minutes to index here), then whole datasets.
SINGLE_CORPORA = ("sst5:test", "trec:test", "sst", "trec", "subj", "mpqa", "cr")
PAIR_CORPORA = ("snli:test", "sick", "snli")
#: The corpus offered first for a model trained on a task (its model card's training task).
OWN_CORPUS = {"sst5": "sst5:test", "sst2": "sst5:test", "trec": "trec:test", "subj": "subj", "mpqa": "mpqa",
              "cr": "cr", "nli": "snli:test", "snli": "snli:test", "sick": "sick"}


def _task(name: str) -> str | None:
    """The task ``name`` was trained on, from its model card (None without one, or with one unreadable)."""
    from disan.cards import read_card

    try:
        return read_card(name).get("train", {}).get("train_config", {}).get("task")
    except (OSError, ValueError, AttributeError):
        return None
KEYS = ("sq_corpus", "sq_any", "sq_sort", "sq_asc", "sq_like", "sq_page", "sq_measure") + tuple(
    f"sq_{part}{i}" for i in range(MAX_FILTERS) for part in ("col", "op", "val"))


@st.cache_data(max_entries=32, show_spinner=False)
def _sha(name: str, stamp: tuple) -> str:
    from disan.checkpoint import sha256

    path = loaders.checkpoint_of(name)
    return f"random-{name}" if path is None else sha256(path)


def _model_sha(name: str) -> str:
    path = loaders.checkpoint_of(name)
    stamp = () if path is None else (path.stat().st_size, path.stat().st_mtime_ns)
    return _sha(name, stamp)


@st.cache_resource(max_entries=8, show_spinner=False)
def _opened(folder: str, stamp: float):
    """(Index, DuckDB connection) of a finished index; ``stamp`` (the manifest's mtime) renews it on rebuild."""
    from disan.corpus.manifest import open_index
    from disan.corpus.search import connect

    index = open_index(folder)
    return index, connect(index, load=True)


def _seed_from_address() -> None:
    """Give the widgets the search held in the address (``q``), once per visit of the page."""
    if "sq_corpus" in st.session_state:
        return
    try:
        q = json.loads(st.session_state.get("q") or "{}")
        q = q if isinstance(q, dict) else {}
    except ValueError:
        st.warning("The search in the link could not be read; starting an empty search.")
        q = {}
    for i, f in enumerate((q.get("where") or [])[:MAX_FILTERS]):
        if isinstance(f, list) and len(f) == 3:
            st.session_state[f"sq_col{i}"], st.session_state[f"sq_op{i}"], st.session_state[f"sq_val{i}"] = map(str, f)
    for key, name, kind in (("sq_corpus", "corpus", str), ("sq_sort", "sort", str), ("sq_like", "like", str),
                            ("sq_measure", "measure", str), ("sq_any", "any", bool), ("sq_asc", "asc", bool)):
        if q.get(name) is not None:
            st.session_state[key] = kind(q[name])
    page = q.get("page")
    st.session_state["sq_page"] = int(page) + 1 if isinstance(page, int) and 0 <= page < 100_000 else 1


def _write_address(corpus: str, filters: list[Filter], query: Query, measure: str) -> None:
    q = {"corpus": corpus, "where": [[f.column, f.op, f.value] for f in filters], "any": query.combine == "or",
         "sort": query.sort, "asc": not query.descending, "like": query.like, "page": query.offset // PAGE,
         "measure": measure}
    st.session_state["q"] = json.dumps({k: v for k, v in q.items() if v not in (None, [], False, 0, "")},
                                       ensure_ascii=False, separators=(",", ":"))


def _build(name: str, corpus: str, folder) -> None:
    from disan.corpus.build import build_index
    from disan.corpus.sources import open_corpus

    cfg = loaders.model_config(name)
    corpus_items = open_corpus(corpus, cfg.pair, model=name, relatedness=cfg.relatedness)  # a table: the card's columns
    total = sum(len(items) for _, items in corpus_items.chunks())
    bar = st.progress(0.0, text=f"Indexing {total:,} examples of {corpus}…")
    folder.parent.mkdir(parents=True, exist_ok=True)
    build_index(name, corpus, folder, progress=False, overwrite=True,
                on_chunk=lambda n: bar.progress(min(1.0, n / max(total, 1)), text=f"Indexed {n:,} of {total:,} examples"))
    bar.empty()


def _colour(value, lo: float, hi: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    share = 0.0 if hi <= lo else (float(value) - lo) / (hi - lo)
    return f"background: rgba(0, 114, 178, {0.08 + 0.72 * share:.2f});"


def _tokens_html(rows: list[tuple], lo: float, hi: float, hit: int | None, measure: str) -> str:
    spans = []
    for position, word, value in rows:
        mark = " outline: 2px solid #D55E00;" if position == hit else ""
        shown = "–" if value is None else f"{value:.3f}"
        spans.append(f'<span title="{escape(measure)} = {shown}" style="padding: 1px 3px; border-radius: 3px; '
                     f'{_colour(value, lo, hi)}{mark}">{escape(word)}</span>')
    return " ".join(spans)


def _links(ctx: Context, record: dict) -> str:
    views = [("Explore", "explore"), ("DiSAN attention", "disan_attention") if ctx.arch == "disan"
             else ("Distance attention", "distance_attention"), ("Attribution", "attribution"), ("Minimal pair", "pair")]
    token = record.get("position") if record.get("side") in (None, "text", "premise") else None
    out = []
    for title, view in views:
        url = view_url(view, model=ctx.model, sentence=record["text"], hypothesis=record.get("hypothesis"),
                       token=None if token is None else str(token))
        out.append(f'<a href="{escape(url)}" target="_blank" rel="noopener">{escape(title)}</a>')
    return " · ".join(out)


def _results(ctx: Context, index, con, query: Query, measure: str) -> None:
    from disan.corpus.search import count_query, run_query

    cur = con.cursor()
    try:
        result = run_query(index, query, cur)
        total = count_query(index, query, cur) if query.like is None else None
        if not result.rows:
            st.info(_no_hit(query, total, result.level[:-1]))
            return
        records = result.records()
        ids = sorted({r["sentence_id"] for r in records})
        table = cur.execute(
            f'SELECT sentence_id, side, position, word, "{measure}" FROM tokens '
            "WHERE sentence_id IN (SELECT unnest(?::BIGINT[])) ORDER BY sentence_id, side DESC, position", [ids]).fetchall()
    finally:
        cur.close()
    by_sentence: dict = {}
    for sid, side, position, word, value in table:
        by_sentence.setdefault((sid, side), []).append((position, word, value))
    values = [v for *_, v in table if v is not None]
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    shown_cols = [c for c in result.columns if c not in ("sentence_id", "text", "hypothesis", "T", "gold", "pred",
                                                         "pred_prob", "side", "position", "word")]
    first = query.offset + 1
    st.markdown(md_escape(f"{'' if total is None else f'{total:,} hits; '}showing {first:,}–"
                          f"{query.offset + len(records):,}, tokens coloured by {measure} "
                          f"(light {lo:.3g} → dark {hi:.3g})."))
    head = "".join(f"<th>{escape(h)}</th>" for h in ["#", "hit", *shown_cols, "prediction (gold)", "open in"])
    body = []
    for k, r in enumerate(records):
        side = r.get("side") or ("premise" if r.get("hypothesis") is not None else "text")
        cells = _tokens_html(by_sentence.get((r["sentence_id"], side), []), lo, hi, r.get("position"), measure)
        if r.get("hypothesis") is not None:
            other = "hypothesis" if side == "premise" else "premise"
            cells += "<br><small>" + _tokens_html(by_sentence.get((r["sentence_id"], other), []), lo, hi, None, measure) + "</small>"
        extra = "".join(f"<td>{escape(f'{r[c]:.4f}' if isinstance(r[c], float) else str(r[c]))}</td>" for c in shown_cols)
        pred = f"{r['pred']} ({r['gold'] or '–'})"
        body.append(f"<tr><td>{first + k}</td><td>{cells}</td>{extra}<td>{escape(pred)}</td><td>{_links(ctx, r)}</td></tr>")
    st.markdown(f'<table class="disan-search-hits"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>',
                unsafe_allow_html=True)


def _no_hit(query: Query, total: int | None, level: str) -> str:
    """Why a page shows nothing: past the last page (a link's, or a page typed), else filters nothing meets."""
    if query.offset and total != 0:
        last = "" if total is None else f" (the last of {total:,} hits is on page {-(-total // PAGE):,})"
        return f"No hit on page {query.offset // PAGE + 1:,}: it is past the last page{last}; go back to an earlier page."
    if not query.filters and query.like is None:
        return f"No hit: this index holds no {level}; build it again from a corpus with sentences."
    return f"No hit: no {level} of this corpus matches the filters; loosen one of them."


@st.cache_data(max_entries=16, show_spinner=False)
def _corpus_numbers(folder: str, stamp: float, block: str):
    """The corpus figures' numbers of one index (they change only when it is rebuilt: ``stamp``)."""
    from disan.corpus.profile import distance_profile, gate_words, head_clusters

    _, con = _opened(folder, stamp)
    cur = con.cursor()
    try:
        profile = distance_profile(cur)
        return profile, gate_words(cur, block), head_clusters(profile)
    finally:
        cur.close()


def _figures(ctx: Context, index, stamp: float) -> None:
    from viz_app.draw import search_figures as sf
    from viz_app.shell.export import show_figure

    profile, words, clusters = _corpus_numbers(str(index.path), stamp, st.session_state.get("sq_gate_block", "fw"))
    alpha = index.model.get("alpha")
    tabs = st.tabs(["Attention by distance", "Gate words", "Heads clustered"])
    with tabs[0]:
        show_figure(sf.distance_mass(profile, alpha, ctx.theme, "Mean attention mass at each distance over the corpus"),
                    ctx, key="search_distance")
        st.caption("Per block (and DSA head): Σ P[i, j] over the corpus's attending rows at |i − j| = d, divided by "
                   "those rows." + (f" The dashed line is the DSA's prior −α|i − j| (Im Eq. 7, Fig. 4) as the weights "
                                    f"exp(−α d) it alone would give, α = {alpha:g}, scaled to d = 1." if alpha else ""))
    with tabs[1]:
        st.radio("Block", ("fw", "bw"), key="sq_gate_block", horizontal=True)
        show_figure(sf.gate_words_bar(words, ctx.theme, "Words with the highest and lowest mean gate F"), ctx,
                    key="search_gate_words")
        st.caption("Words seen at least 20 times. F weights the word's own input (Shen Eq. 20, Im Eq. 12).")
    with tabs[2]:
        show_figure(sf.head_cluster_map(clusters, ctx.theme, "Heads clustered by their attention over distance"),
                    ctx, key="search_heads")
        st.caption("Each row: a head's share of attention at each distance; average linkage on the Jensen–Shannon "
                   "distance. DiSAN's attention is feature-wise with no heads: its rows are its two blocks.")


def render(ctx: Context) -> None:
    st.title("Search")
    st.caption("Find the sentences whose attention does something, over a whole corpus: filter by any measure of "
               "the index (docs/search.md), sort, page, and open a hit in the view that draws it.")
    _seed_from_address()
    try:
        cfg = loaders.model_config(ctx.model)
        sha = _model_sha(ctx.model)
    except disan.DisanError as err:
        st.error(md_escape(str(err)))
        return
    built = set(cache.built(ctx.model, sha))  # folder names: cache.slug of each corpus
    candidates = list(PAIR_CORPORA if cfg.pair else SINGLE_CORPORA)
    own = OWN_CORPUS.get(_task(ctx.model))
    if own in candidates:  # the model's own test set first: disan-trec opened on SST-5's sentences
        candidates.insert(0, candidates.pop(candidates.index(own)))
    offered = ([c for c in candidates if cache.slug(c) in built] + sorted(built - {cache.slug(c) for c in candidates})
               + [c for c in candidates if cache.slug(c) not in built])
    if st.session_state.get("sq_corpus") not in offered:
        st.session_state["sq_corpus"] = offered[0]
    if "_sq_built" in st.session_state:  # set again from here, the box shows the new label, not "(not indexed yet)"
        st.session_state["sq_corpus"] = st.session_state.pop("_sq_built")
    corpus = st.selectbox("Corpus", offered, key="sq_corpus",
                          format_func=lambda c: c + ("" if cache.slug(c) in built else " (not indexed yet)"))
    folder = cache.index_folder(ctx.model, sha, corpus)
    if cache.slug(corpus) not in built:
        st.info(md_escape(f"{corpus} has no index for {ctx.model} yet; it is built once into {folder.parent} "
                          "(the SST-5 test set takes about a minute here, SNLI test a few)."))
        if st.button("Build the index", key="sq_build"):
            try:
                _build(ctx.model, corpus, folder)
            except disan.DisanError as err:
                st.error(md_escape(str(err)))
                return
            st.session_state["_sq_built"] = corpus
            st.rerun()
        return
    stamp = (folder / "manifest.json").stat().st_mtime
    try:
        index, con = _opened(str(folder), stamp)
    except disan.DisanError as err:
        st.error(md_escape(str(err)))
        return
    from disan.corpus.search import allowed_columns

    allowed = allowed_columns(index)
    columns = [""] + sorted(allowed)
    numbers = [c for c, (_, kind) in sorted(allowed.items()) if kind == NUMBER]
    token_numbers = [c for c, (table, kind) in sorted(allowed.items()) if kind == NUMBER and table == "tokens"
                     and c not in ("sentence_id", "position")]
    filters = []
    st.markdown("**Filters**")
    for i in range(MAX_FILTERS):
        c1, c2, c3 = st.columns([3, 1, 3])
        if st.session_state.get(f"sq_col{i}") not in columns:
            if st.session_state.get(f"sq_col{i}"):  # a link's (or an older index's) column: said, not dropped unseen
                st.warning(md_escape(f"Ignored the filter on {st.session_state[f'sq_col{i}']!r}: this index has no "
                                     f"such column; pick one of its columns (docs/search.md)."))
            st.session_state[f"sq_col{i}"] = ""
        col = c1.selectbox("column", columns, key=f"sq_col{i}", label_visibility="collapsed" if i else "visible")
        ops = KIND_OPERATORS[allowed[col][1]] if col else ("=",)
        ops = tuple(o for o in ops if o != "==")
        if st.session_state.get(f"sq_op{i}") not in ops:
            st.session_state[f"sq_op{i}"] = ops[0]
        op = c2.selectbox("operator", ops, key=f"sq_op{i}", label_visibility="collapsed" if i else "visible")
        value = c3.text_input("value", key=f"sq_val{i}", label_visibility="collapsed" if i else "visible",
                              on_change=hold(f"sq_val{i}"))
        if col and value != "":
            filters.append(Filter(col, op, value))
    like = st.text_input("More like this sentence (by attention signature)", key="sq_like", max_chars=1000,
                         on_change=hold("sq_like"))
    c1, c2, c3, c4 = st.columns([2, 3, 1, 2])
    any_ = c1.toggle("any filter (or)", key="sq_any")
    if st.session_state.get("sq_sort") not in [""] + numbers:
        st.session_state["sq_sort"] = ""
    sort = c2.selectbox("Sort by", [""] + numbers, key="sq_sort")
    asc = c3.toggle("ascending", key="sq_asc")
    asked = repr((corpus, filters, any_, sort, asc, like))
    if st.session_state.get("_sq_asked") not in (None, asked):
        st.session_state["sq_page"] = 1  # another search starts on its first page
    st.session_state["_sq_asked"] = asked
    page = c4.number_input("Page", min_value=1, max_value=100_000, step=1, key="sq_page")
    searched = next((f.column for f in filters if f.column in token_numbers), None)
    default_measure = sort if sort in token_numbers else searched or "s2t"
    if st.session_state.get("sq_measure") not in token_numbers:
        st.session_state["sq_measure"] = default_measure
    measure = st.selectbox("Colour tokens by", token_numbers, key="sq_measure")
    query = Query(tuple(filters), "or" if any_ else "and", sort or None, not asc, PAGE, (int(page) - 1) * PAGE,
                  like.strip() or None)
    _write_address(corpus, filters, query, measure)
    try:
        _results(ctx, index, con, query, measure)
    except disan.DisanError as err:
        st.error(md_escape(str(err)))
    st.divider()
    _figures(ctx, index, stamp)
