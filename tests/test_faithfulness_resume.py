"""A faithfulness run cut off midway resumes from its saved batches with the numbers of an uninterrupted run, and
a cache saved by any other run (another checkpoint, sample, or a file whose stored key differs) is not used."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from disan.__main__ import main
from disan.attribution import corpus, resume
from disan.attribution.corpus import batches, example_sides, run
from tests.conftest import make_tiny
from tests.fixture_data import fixture_data_dir
from tests.test_faithfulness import NLI, SST

pytestmark = pytest.mark.slow

SHA = "0" * 64
REAL_MEASURE_BATCH = corpus.measure_batch


class Cut(Exception):
    """The simulated end of a session."""


def _without_timing(result: dict) -> str:
    return json.dumps({k: v for k, v in result.items() if k != "seconds"}, sort_keys=True)


def _counting(monkeypatch, cut_after: int | None = None, on_call=None) -> list[int]:
    """Patch ``measure_batch`` to count its calls, and raise ``Cut`` on call ``cut_after`` + 1."""
    calls = []

    def counted(*args, **kw):
        if on_call is not None:
            on_call(len(calls))
        if cut_after is not None and len(calls) == cut_after:
            raise Cut
        calls.append(len(calls))
        return REAL_MEASURE_BATCH(*args, **kw)

    monkeypatch.setattr(corpus, "measure_batch", counted)
    return calls


@pytest.mark.parametrize("arch, pair", [("dsa", False), ("disan", True)], ids=["dsa-sst", "disan-nli"])
def test_an_interrupted_then_resumed_run_equals_a_straight_run(tiny_glove, tmp_path, monkeypatch, arch, pair):
    model = make_tiny(arch, tiny_glove, pair=pair, unk_zero=True)
    examples, task = (NLI, "nli") if pair else (SST * 3, "sst5")  # SST × 3: 18 sentences in several batches
    monkeypatch.setattr(corpus, "MAX_BATCH", 2)
    n_batches = len(batches([example_sides(e, model.cfg.max_tokens) for e in examples], model.cfg, 20 if arch ==
                            "disan" else 48))
    assert n_batches >= 2
    straight = run(model, examples, task, "test", SHA, progress=False)

    monkeypatch.setattr(resume, "SAVE_EVERY_S", 0.0)  # save after every batch
    cut = max(1, n_batches // 2)
    saved_before_cut = []

    def look(k):  # before batch k runs, the file must already hold batches 0..k-1 (the periodic save, not finally's)
        files = list(tmp_path.glob("*.npz"))
        if k:
            with np.load(files[0], allow_pickle=False) as f:
                saved_before_cut.append(int(f["done"].sum()))

    _counting(monkeypatch, cut_after=cut, on_call=look)
    with pytest.raises(Cut):
        run(model, examples, task, "test", SHA, progress=False, cache=tmp_path)
    assert saved_before_cut == list(range(1, cut + 1))
    [file] = tmp_path.glob("*.npz")
    with np.load(file, allow_pickle=False) as f:
        assert int(f["done"].sum()) == cut and not np.isnan(f["values"]).all()

    calls = _counting(monkeypatch)
    resumed = run(model, examples, task, "test", SHA, progress=False, cache=tmp_path)
    assert len(calls) == n_batches - cut  # only the batches the cut run had not finished
    assert _without_timing(resumed) == _without_timing(straight)
    calls = _counting(monkeypatch)
    again = run(model, examples, task, "test", SHA, progress=False, cache=tmp_path)
    assert calls == [] and _without_timing(again) == _without_timing(straight)


def test_a_cache_with_another_key_is_not_used(tiny_glove, tmp_path, monkeypatch, capsys):
    model = make_tiny("disan", tiny_glove, unk_zero=True)
    monkeypatch.setattr(corpus, "MAX_BATCH", 2)

    def n_batches(examples):
        return len(batches([example_sides(e, model.cfg.max_tokens) for e in examples], model.cfg, 20))

    def measured(split="test", sha=SHA, limit=None):
        """(batches computed, the file this run saved)."""
        before = set(tmp_path.glob("*.npz"))
        calls = _counting(monkeypatch)
        run(model, SST, "sst5", split, sha, limit=limit, progress=False, cache=tmp_path)
        new = set(tmp_path.glob("*.npz")) - before
        return len(calls), new.pop() if new else None

    whole = n_batches(SST)
    computed, mine = measured()
    assert computed == whole and mine is not None
    computed, retrained = measured(sha="1" * 64)
    assert computed == whole and retrained is not None
    assert measured(limit=4)[0] == n_batches([SST[i] for i in corpus.sample(len(SST), 4)])
    assert measured(split="dev")[0] == whole
    assert measured() == (0, None)  # this run's own file is still used
    # A file at this run's name whose stored key is another run's (the retrained checkpoint's) is ignored.
    shutil.copy(retrained, mine)
    capsys.readouterr()
    assert measured()[0] == whole and "its key differs" in capsys.readouterr().err


def test_the_cli_resumes_from_its_cache_and_refuses_a_file_as_the_folder(tmp_path, capsys):
    args = ["faithfulness", "--model", "dsa-sst5", "--data-dir", str(fixture_data_dir()), "--limit", "2", "--json",
            "--no-progress", "--cache", str(tmp_path / "cache")]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert len(list((tmp_path / "cache").glob("dsa-sst5.test.*.npz"))) == 1
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "resuming from" in captured.err and _without_timing(json.loads(captured.out)) == _without_timing(first)
    (tmp_path / "file").write_text("x")
    assert main([*args[:-1], str(tmp_path / "file")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--cache" in err and "is a file" in err
