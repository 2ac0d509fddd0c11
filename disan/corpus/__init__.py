"""Ask a corpus (issue 56): index every sentence's trace into Parquet, then query it with DuckDB.

Modules, one concept each:

* ``columns``   the columns of the sentences and tokens tables, each with its meaning and the paper's equation;
* ``measures``  a batch's encoder trace → per-token and per-sentence numbers and the attention signature;
* ``sources``   ``--data NAME|FILE`` → the examples to index, in fixed chunks;
* ``chunk``     one chunk of examples → its Arrow tables (trace, prediction, gradient × input);
* ``store``     the index folder: parts written under a temporary name, resume, manifest, final rename;
* ``manifest``  reading and checking an index's manifest (missing, damaged, other model, other version);
* ``build``     the embedded engine (every local core, the GPU when present) and the engine switch;
* ``ray_engine`` the same job as Ray tasks (``pip install .[ray]``);
* ``query``     a search as data: filters, sort, top, checked against allow-lists;
* ``search``    a query run by DuckDB over the Parquet with bound parameters, and ``--like``;
* ``profile``   corpus-level figures' numbers: attention mass by |i − j|, gate words, head clusters;
* ``cli``       ``disan index`` and ``disan search``.

The columns are documented with their equations in docs/search.md.
"""
