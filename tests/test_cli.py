"""`python -m disan trace`: JSON keys, random-weight labelling, one-line errors with exit status 2; the commands of
the layer above the core (`python -m viz_app`, the installed `disan`) and the pointer to them."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import disan.__main__ as disan_main
from disan.__main__ import main

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args, package="disan"):
    return subprocess.run([sys.executable, "-m", package, *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_trace_json_disan_random_weights():
    proc = run_cli("trace", "--model", "disan", "The glass bottle is big", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["random_weights"] is True and "random" in out["model"]
    assert out["tokens"] == ["the", "glass", "bottle", "is", "big"]
    T = len(out["tokens"])
    for key in ("fw_attention", "bw_attention"):
        assert len(out[key]) == T and all(len(row) == T for row in out[key])
    assert out["fw_attention"][0] == [0.0] * T  # first token attends to nothing under the forward mask
    assert len(out["fw_gate"]) == len(out["bw_gate"]) == len(out["s2t"]) == T
    assert abs(sum(out["prediction"].values()) - 1) < 1e-5


def test_trace_json_dsa_alpha_override(capsys):
    assert main(["trace", "--model", "dsa", "A lady stands outside of a Mexican market .", "--alpha", "0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["alpha"] == 0.0
    H, T = len(out["fw_heads"]), len(out["tokens"])
    assert H == 5 and len(out["fw_heads"][0]) == T
    assert abs(sum(out["maxpool_share"]) - 1) < 1e-5
    # both blocks' FFN, as the report draws them (the JSON had the forward block's alone)
    assert all(len(out[f"{d}_{k}"]) == T for d in ("fw", "bw") for k in ("ffn_deactivation", "ln_max"))
    assert 0 <= min(out["bw_ffn_deactivation"]) and max(out["bw_ffn_deactivation"]) <= 1


def test_plain_output_says_random_weights(capsys):
    assert main(["trace", "--model", "dsa", "good movie"]) == 0
    assert "random weights" in capsys.readouterr().out


def test_plain_output_explains_the_unknown_word_mark_only_when_it_is_used(capsys):
    """A trailing ? marked an unknown word and nothing said so; the line explaining it comes only with a mark (a
    "?" token of the sentence is a known word and gets none)."""
    assert main(["trace", "--model", "disan", "good movie xqzzyv ?"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("tokens: good movie xqzzyv? ?")
    assert lines[at + 1] == ("word?: unknown to the model (in neither its vocabulary nor GloVe), read as the shared "
                             "<unk> vector")
    assert main(["trace", "--model", "disan", "good movie ?"]) == 0
    assert "unknown" not in capsys.readouterr().out


@pytest.mark.parametrize("given,expected", [("FW,BW", ["fw", "bw"]), (" Bw , Diag ", ["bw", "diag"]),
                                            ("SWAP", ["bw", "fw"]), ("None", ["none", "none"])])
def test_mask_names_are_read_whatever_their_case(capsys, given, expected):
    """--masks FW,BW was refused for its case alone; the names mean the same in any case."""
    assert main(["trace", "--model", "dsa", "good movie", "--masks", given, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["masks"] == expected


def test_an_unknown_mask_name_in_capitals_is_still_refused_with_the_valid_ones(capsys):
    assert main(["trace", "--model", "dsa", "good movie", "--masks", "FW,UP"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("error: Masks 'FW,UP' are not understood; use a preset (default, swap, diag, none) or two of fw, "
                   "bw, diag, none such as 'fw,bw'.")


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["trace", "--model", "disan", "   "], "empty"),
        (["trace", "--model", "no-such-model", "hi"], "No model named"),
        (["trace", "--model", "/nowhere/mine.safetensors", "hi"], "No checkpoint file '/nowhere/mine.safetensors'"),
        (["trace", "--model", "disan", "hi", "--alpha", "1"], "no distance mask"),
        (["trace", "--model", "disan", "hi", "--masks", "up,down"], "not understood"),
        (["train", "--model", "dsa", "--task", "nli", "--ablation", "nodir"], "use --ablation nodist"),
        # a NaN α made every probability NaN (and JSON with NaN in it); a negative one rewarded distance
        (["trace", "--model", "dsa", "hi", "--alpha", "nan"], "alpha=nan is not a finite number"),
        (["trace", "--model", "dsa", "hi", "--alpha", "-1"], "alpha=-1.0 is not a finite number"),
        (["trace", "--model", "dsa", "hi", "--alpha", "inf"], "alpha=inf is not a finite number"),
        (["trace", "--model", "disan", "hi", "--device", "gpu"], "--device 'gpu' cannot be used here"),
        (["evaluate", "--model", "disan", "--task", "nosuch"], "task must be one of"),
        # --fold with --data was dropped without a word: a user believed one fold was scored or trained
        (["evaluate", "--model", "disan", "--data", "mine.csv", "--fold", "3"],
         "--fold 3 picks a fold of the 10-fold tasks (--task cr, mpqa, subj); a --data file has no folds: drop "
         "--fold."),
        (["train", "--model", "dsa", "--data", "mine.csv", "--fold", "3"], "--fold 3 picks a fold of the 10-fold tasks"),
        (["tables", "--pretrained-dir", "/nowhere/cards"], "--pretrained-dir '/nowhere/cards' is not a folder"),
    ],
)
def test_errors_are_one_line_with_status_2(capsys, args, fragment):
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert fragment in err and "\n" not in err and "Traceback" not in err


def test_import_and_parser_do_not_import_torch():
    """``import disan``, building the CLI's parser and reading a checkpoint's header leave torch unimported
    (``disan app`` starts Streamlit's server first, and the app's opening page needs no torch: issue 19's cold
    start); the lazy names still resolve to the real functions, and loading a model imports torch."""
    code = (
        "import sys, disan, disan.__main__ as m\n"
        "try:\n    m.main(['train', '--help'])\nexcept SystemExit:\n    pass\n"
        "print('torch' in sys.modules)\n"
        "from disan.api import load\n"
        "cfg = disan.describe('disan-sst5' if 'disan-sst5' in disan.available() else 'disan', verify=True)\n"
        "print(disan.load is load, 'torch' in sys.modules)\n"
        "disan.load('disan', device='cpu')\n"
        "print('torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[-4:] == ["False", "True", "False", "True"]  # headers read without torch; a model loads it


@pytest.mark.parametrize("command", ["report", "site", "app", "prepare", "bench"])
def test_the_commands_above_the_core_are_named_in_one_line(command):
    """``python -m disan report x`` (and site, app, bench) runs nothing: one line naming the command now, status 2."""
    proc = run_cli(command, "x")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert f"python -m viz_app {command} ..." in proc.stderr and f"disan {command} ..." in proc.stderr


def test_viz_app_offers_the_core_commands_and_those_above_it():
    from viz_app import cli

    assert set(cli.COMMANDS) == set(disan_main.COMMANDS) | {"report", "site", "app", "prepare", "bench"}
    assert all(cli.COMMANDS[name] == disan_main.COMMANDS[name] for name in disan_main.COMMANDS)  # reused, not copied
    proc = run_cli("--help", package="viz_app")
    assert proc.returncode == 0 and proc.stdout.startswith("usage: python -m viz_app")
    for name in cli.COMMANDS:
        assert name in proc.stdout
    proc = run_cli("trace", "--model", "dsa", "good movie", "--json", package="viz_app")
    assert proc.returncode == 0 and json.loads(proc.stdout)["tokens"] == ["good", "movie"]


def test_bench_without_the_benchmarks_package_is_one_line(monkeypatch, capsys):
    """As from an installed wheel, where benchmarks/ is absent."""
    from viz_app.cli import main as app_main

    monkeypatch.setitem(sys.modules, "benchmarks.cli", None)  # import now raises ImportError
    assert app_main(["bench", "trace", "--quick"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "benchmarks package is not importable" in err and "clone" in err


def test_the_app_layers_parser_does_not_import_torch():
    """``disan app`` starts Streamlit before torch loads (issue 19's cold start): viz_app.cli's parser needs no torch."""
    code = ("import sys, viz_app.cli as c\n"
            "try:\n    c.main(['report', '--help'])\nexcept SystemExit:\n    pass\n"
            "print('torch' in sys.modules, 'plotly' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.split()[-2:] == ["False", "False"]


def test_a_pair_model_without_its_second_sentence_names_the_hypothesis_flag(tmp_path, capsys):
    """Issue 58, item 6: SICK's sentence B is given with --hypothesis; without it, one line that says so."""
    from tests.relatedness_model import write_relatedness_model

    path = write_relatedness_model(tmp_path)
    assert main(["trace", "--model", str(path), "a man runs ."]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--hypothesis" in err and "sentence B" in err, err
    assert "NoneType" not in err


def test_trace_help_says_how_a_pairs_second_sentence_is_given(capsys):
    with pytest.raises(SystemExit):
        main(["trace", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--hypothesis" in help_text and "SICK's sentence B" in help_text and "sentence A" in help_text


@pytest.mark.parametrize("arch", ["disan", "dsa"])
def test_a_pairs_trace_prints_both_sentences_tokens_and_alpha_only_for_a_dsa(tmp_path, capsys, arch):
    from tests.relatedness_model import write_relatedness_model

    path = write_relatedness_model(tmp_path, arch)
    assert main(["trace", "--model", str(path), "a man runs .", "--hypothesis", "the dog is fine ."]) == 0
    out = capsys.readouterr().out
    assert "tokens (sentence A): a man runs ." in out and "tokens (sentence B): the dog is fine ." in out, out
    assert "None" not in out
    assert ("alpha:" in out) == (arch == "dsa"), out


def test_a_report_alpha_outside_its_slider_is_one_line(tmp_path, capsys):
    """Before, --alpha 8 drew "α = 8" in the headings and 5 on the slider, which could not come back to it."""
    from viz_app.cli import main as viz_main

    for alpha in ("8", "nan"):
        assert viz_main(["report", "hi", "--model", "dsa", "--alpha", alpha, "--out", str(tmp_path / "r.html")]) == 2
        err = capsys.readouterr().err.strip()
        assert f"--alpha {float(alpha)}: a report's α slider runs from 0 to 5" in err and "\n" not in err
    assert not (tmp_path / "r.html").exists()


def test_the_api_refuses_a_bad_alpha_a_bad_device_and_one_string_for_predict():
    import disan
    from disan.errors import InputError

    model = disan.load("dsa", "cpu")
    for alpha in (float("nan"), -0.5, "x"):
        with pytest.raises(InputError, match="alpha="):
            model.trace("a film", alpha=alpha)
    with pytest.raises(InputError, match="predict takes a list of texts"):
        model.predict("a movie")  # it iterated over the characters: one prediction each, or "empty" at a space
    with pytest.raises(InputError, match="--device 'cuda:99' cannot be used here"):
        disan.load("dsa", "cuda:99")


def test_a_checkpoint_with_a_non_finite_weight_is_refused(tmp_path, tiny_glove):
    """A file beside no manifest is checked by no hash: bytes flipped inside a tensor gave NaN predictions."""
    from safetensors.torch import load_file, save_file
    from safetensors import safe_open

    from disan.checkpoint import CheckpointError, load_checkpoint, save
    from tests.conftest import make_tiny

    path = save(make_tiny("dsa", tiny_glove), tmp_path / "tiny.safetensors", manifest=False)
    with safe_open(str(path), "pt") as f:
        meta = f.metadata()
    state = load_file(str(path))
    name = next(k for k, v in state.items() if v.is_floating_point())
    state[name][0] = float("nan")
    save_file(state, str(path), metadata=meta)
    with pytest.raises(CheckpointError, match=f"tensor '{name}' holds NaN or infinite values"):
        load_checkpoint(path, tiny_glove)


def test_trace_into_a_closed_pipe_exits_quietly():
    """`disan trace … | head -c 10` ended in a BrokenPipeError traceback."""
    text = " ".join(["word"] * 300)  # megabytes of JSON: the reader leaves long before the writer is done
    proc = subprocess.run(f"{sys.executable} -m disan trace --model disan '{text}' --json | head -c 10",
                          shell=True, capture_output=True, text=True, timeout=300, cwd=Path(__file__).resolve().parents[1])
    assert len(proc.stdout) == 10, proc.stdout
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr
