"""The numbers of the Search view's corpus figures, read from an index with DuckDB (no trace is run).

* ``distance_profile``: the mean attention mass at each distance |i − j| per block and head over the corpus
  (Σ mass / Σ attending rows of the ``profile`` table), beside which the view draws the DSA's prior −α|i − j|
  (Im Eq. 7's α·M_dis, Fig. 4);
* ``gate_words``: the words with the highest and the lowest mean fusion gate F (Shen Eq. 19 / Im Eq. 12);
* ``head_clusters``: the heads (block, head) clustered by their distance profiles (average linkage on the
  Jensen–Shannon distance, scipy), in dendrogram order, with a flat cluster number each.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError

BLOCKS = ("fw", "bw")


def distance_profile(con) -> pd.DataFrame:
    """block, head, distance, mass: the mean attention mass at that distance over the corpus's attending rows."""
    return con.execute(
        "SELECT block, head, distance, sum(mass) / greatest(sum(rows), 1) AS mass FROM profile "
        "GROUP BY block, head, distance ORDER BY block DESC, head, distance").df()


def gate_words(con, block: str, n: int = 12, min_count: int = 20) -> pd.DataFrame:
    """The ``n`` words with the highest and the ``n`` with the lowest mean gate of ``block`` among words seen at
    least ``min_count`` times: word, gate, count, end (``high`` or ``low``)."""
    if block not in BLOCKS:
        raise InputError(f"No block {block!r}; use fw or bw.")
    column = {"fw": "fw_gate", "bw": "bw_gate"}[block]
    sql = (f"SELECT word, avg({column}) AS gate, count(*) AS count FROM tokens WHERE {column} IS NOT NULL "
           "GROUP BY word HAVING count(*) >= ? ORDER BY gate {order}, word LIMIT ?")
    high = con.execute(sql.format(order="DESC"), [min_count, n]).df().assign(end="high")
    low = con.execute(sql.format(order="ASC"), [min_count, n]).df().assign(end="low")
    return pd.concat([high, low], ignore_index=True)


def head_clusters(profile: pd.DataFrame, k: int = 3) -> pd.DataFrame:
    """label (``fw h0``), cluster, order and the normalised profile of every head, in dendrogram order."""
    from scipy.cluster.hierarchy import fcluster, leaves_list, linkage
    from scipy.spatial.distance import pdist

    rows = []
    for (block, head), part in profile.groupby(["block", "head"], sort=False):
        mass = part.sort_values("distance").mass.to_numpy()
        rows.append((f"{block} h{head}", mass / max(mass.sum(), 1e-12)))
    labels = [r[0] for r in rows]
    vectors = np.stack([r[1] for r in rows])  # (heads, distances)
    if len(rows) < 3:
        return pd.DataFrame({"label": labels, "cluster": range(1, len(rows) + 1), "order": range(len(rows)),
                             "profile": list(vectors)})
    tree = linkage(pdist(vectors, "jensenshannon"), "average")
    order = leaves_list(tree)
    clusters = fcluster(tree, min(k, len(rows)), "maxclust")
    return pd.DataFrame({"label": [labels[i] for i in order], "cluster": clusters[order],
                         "order": range(len(rows)), "profile": [vectors[i] for i in order]})
