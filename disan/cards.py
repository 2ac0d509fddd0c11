"""Model cards: ``pretrained/<name>.json`` (data) rendered to ``pretrained/<name>.card.md``."""

from __future__ import annotations

import json
from pathlib import Path

from .api import PRETRAINED_DIR
from .card_file import data_lines, evaluate_command, glove_text, is_file_card, overlap_lines, score_columns
from .card_relatedness import is_relatedness, module_lines, scores_lines
from .card_runs import runs_lines
from .fold_runs import never_seen_lines

#: Test-set floors of the bundled models (issue 10), to state a shortfall in numbers.
TARGETS = {"disan-sst5": 0.48, "disan-sst5-nodir": 0.45, "dsa-sst5": 0.46, "dsa-sst5-nodist": 0.45,
           "disan-nli": 0.67, "disan-nli-nodir": 0.67, "dsa-nli": 0.67, "dsa-nli-nodist": 0.67,  # an ablation: its partner's floor
           # issue 28's floors for 50-d GloVe: accuracy (fold models: the 10-fold mean); disan-sick: Pearson's r
           "disan-trec": 0.89, "disan-subj": 0.90, "disan-mpqa": 0.85, "disan-cr": 0.78, "disan-sick": 0.80}
#: Paper numbers to compare against (300-d GloVe, full training sets).
PAPER_REFERENCE = {
    "disan-sst5": "51.72% (Shen Table 2)",
    "disan-sst5-nodir": "49.41% (Shen Table 2, DiSAN without directions)",
    "dsa-sst5": "not in the paper",
    "dsa-sst5-nodist": "not in the paper",
    "disan-nli": "85.62% with the full SNLI train (Shen Table 1)",
    "disan-nli-nodir": "84.66% with the full SNLI train (Shen Table 1, DiSAN without directions)",
    "dsa-nli": "86.3% with the full SNLI train (Im Table 1)",
    "dsa-nli-nodist": "86.0% with the full SNLI train (Im Table 1)",
    "disan-trec": "94.2 (0.1)%, mean (sd) of five runs' dev accuracies (Shen Table 5)",
    "disan-subj": "94.2 (0.6)%, mean (sd) of 10-fold cross-validation (Shen Table 5)",
    "disan-mpqa": "90.1 (0.4)%, mean (sd) of 10-fold cross-validation (Shen Table 5)",
    "disan-cr": "84.8 (2.0)%, mean (sd) of 10-fold cross-validation (Shen Table 5)",
    "disan-sick": "Pearson's r .8695 (.0012), Spearman's ρ .8139 (.0012), MSE .2879 (.0036), mean (sd) of five runs "
    "(Shen Table 4)",
}


def card_path(name: str, directory: Path = PRETRAINED_DIR) -> Path:
    return directory / f"{name}.json"


def read_card(name: str, directory: Path = PRETRAINED_DIR) -> dict:
    path = card_path(name, directory)
    return json.loads(path.read_text()) if path.exists() else {"name": name}


def update_card(name: str, split: str, report: dict, directory: Path = PRETRAINED_DIR) -> Path:
    """Store an evaluation report under ``evaluation.<split>`` and re-render the markdown."""
    card = read_card(name, directory)
    card.setdefault("evaluation", {})[split] = report
    return write_card(card, directory)


def write_card(card: dict, directory: Path = PRETRAINED_DIR) -> Path:
    path = card_path(card["name"], directory)
    path.write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n")
    path.with_suffix(".card.md").write_text(render(card))
    return path


def architecture_text(mcfg: dict, sep: str = "=") -> str:
    """d_h, and the heads and α of a distance-based SAN (Im Eqs. 7–8): DiSAN has neither, though its config
    carries their defaults (a card said "disan, heads=5, alpha=1.5")."""
    parts = [("d_h", mcfg.get("d_h"))] + ([("heads", mcfg.get("heads")), ("alpha", mcfg.get("alpha"))]
                                         if mcfg.get("arch") == "dsa" else [])
    return ", ".join(f"{name}{sep}{value}" for name, value in parts)


def epochs_text(train: dict) -> str:
    """Epochs as a fraction: a time budget can stop a run inside an epoch."""
    hist = train.get("history") or []
    tcfg = train.get("train_config", {})
    if not hist or not train.get("train_examples"):
        return f"{train.get('epochs_run', 0)} epochs"
    per_epoch = -(-train["train_examples"] // tcfg.get("batch_size", 64))  # ceil
    last = hist[-1]
    done = last["epoch"] - 1 + last["step"] / per_epoch
    return f"{done:.2f} epochs ({last['step']:,} of {per_epoch:,} steps in epoch {last['epoch']})"


def stopping_text(train: dict) -> str:
    """How the run ended, in optimizer steps (issue 10: convergence, not a clock)."""
    if "total_steps" not in train:
        return "a wall-clock budget (before step budgets and early stopping existed)"
    tcfg = train["train_config"]
    dev = "dev Pearson's r" if "best_dev_pearson" in train else "dev accuracy"
    paired = tcfg.get("max_steps") is not None and tcfg.get("min_steps") == tcfg.get("max_steps")
    how = {
        "patience": f"early stopping: {train.get('patience')} evaluations in a row without a new best {dev}"
        + (f" (one better by more than {train['min_delta']:g})" if train.get("min_delta") else ""),
        "max_steps": f"the pair protocol: resumed to its ablation partner's step count (--min-steps {tcfg.get('max_steps')} "
        f"--max-steps {tcfg.get('max_steps')})" if paired else f"the step budget (--max-steps {tcfg.get('max_steps')})",
        "epochs": f"the epoch limit ({tcfg.get('epochs')} epochs)",
        "time_budget": "the wall-clock safety stop (the run had not converged)",
    }.get(train.get("stopped_by"), str(train.get("stopped_by")))
    from .train import evals_since_best  # the rule early stopping itself counts with

    after = evals_since_best(train.get("history") or [], train.get("min_delta") or 0.0)
    every = f"every {train.get('eval_every'):,} steps" if train.get("eval_every") else "once per epoch"
    return (f"{train['total_steps']:,} optimizer steps, evaluated {every}; "
            f"best dev at step {train.get('best_step') or 0:,}, followed by {after} evaluations without a new best; "
            f"ended by {how}")


def ms_text(ms: float | None) -> str:
    """A step time as the training log prints it; None: the candidate ran out of memory."""
    if ms is None:
        return "out of memory"
    return f"{ms:,.0f} ms" if ms >= 100 else f"{ms:.3g} ms"


def kernel_text(record: dict) -> str:
    """The token2token kernel a DiSAN run trained with (the train summary's ``token2token``) and how it was set."""
    choice, how, device = record.get("choice"), record.get("how"), record.get("device")
    times = ", ".join(f"{name} {ms_text(ms)}" for name, ms in (record.get("ms_per_step") or {}).items())
    batch = record.get("batch") or {}
    shape = (f"a batch of {batch['sentences']} sentences, longest {batch['longest']} tokens; "
             if "sentences" in batch and "longest" in batch else "")
    measured = f"{times} per training step on {device} ({shape}best of {record.get('rounds')} rounds)"
    if how == "forced":
        return f"`{choice}`, forced by `--t2t-impl {choice}` (not measured)"
    if how == "resumed":
        if device == "not recorded":
            return f"`{choice}`, kept from the resumed run's state, saved before kernels were recorded"
        return f"`{choice}`, kept from the resumed run's state" + (f", which measured {measured}" if times else "")
    return f"`{choice}`, chosen by `kernel_choice.pick` from the timings taken before the first step: {measured}"


def curve_lines(history: list) -> list[str]:
    """The learning curve as a Markdown table: one row per dev evaluation (dev Pearson's r for relatedness runs)."""
    pearson = any("dev_pearson" in h for h in history)
    lines = [f"| step | epoch | train loss (since previous row) | {'dev Pearson r' if pearson else 'dev accuracy'} |",
             "|---|---|---|---|"]
    for h in history:
        loss = "–" if h.get("train_loss") is None else f"{h['train_loss']:.4f}"
        dev = f"{h['dev_pearson']:.4f}" if pearson else pct(h["dev_acc"])
        lines.append(f"| {h.get('global_step', h['step']):,} | {h['epoch']} | {loss} | {dev} |")
    return lines


def pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.2f}%"


def accuracy_lines(card: dict) -> list[str]:
    """A classifier's scores: dev and test accuracy, then per class, by length and the confusion matrix."""
    name, train, evals = card["name"], card.get("train", {}), card.get("evaluation", {})
    lines = ["", "## Accuracy", "", "| split | accuracy | 95% interval (bootstrap) | macro-F1 | paper |",
             "|---|---|---|---|---|"]
    lines += [f"| dev (held out) | {pct(train.get('best_dev_acc'))} | | | |"]
    for split, rep in evals.items():
        lines += [f"| {split} | {pct(rep.get('accuracy'))} | {score_columns(rep)} | {PAPER_REFERENCE.get(name, '')} |"]
    lines += overlap_lines(card)
    for split, rep in evals.items():
        lines += ["", f"### {split}: per class", "", "| class | accuracy |", "|---|---|"]
        lines += [f"| {k} | {pct(v)} |" for k, v in rep.get("per_class_accuracy", {}).items()]
        lines += ["", f"### {split}: by length (tokens; pairs: mean of both)", "", "| lengths | n | accuracy |", "|---|---|---|"]
        lines += [f"| {b['lengths']} | {b['n']} | {pct(b['accuracy'])} |" for b in rep.get("accuracy_by_length", [])]
        cm = rep.get("confusion_matrix")
        if cm:
            lines += ["", f"### {split}: confusion matrix (rows gold, columns predicted)", ""]
            lines += ["| | " + " | ".join(cm["labels"]) + " |", "|---" * (len(cm["labels"]) + 1) + "|"]
            lines += [f"| {lab} | " + " | ".join(str(v) for v in row) + " |" for lab, row in zip(cm["labels"], cm["rows_gold_cols_pred"])]
    return lines


def render(card: dict) -> str:
    """Markdown card: data, hyper-parameters, cost, accuracy, reproduction command, caveats."""
    name = card["name"]
    train = card.get("train", {})
    tcfg = train.get("train_config", {})
    mcfg = train.get("model_config", {})
    evals = card.get("evaluation", {})
    lines = [f"# Model card: `{name}`", ""]
    lines += [card.get("description", ""), ""]
    lines += ["## Data", ""]
    lines += data_lines(card) if is_file_card(card) else []
    lines += [f"- Task: `{tcfg.get('task')}`; training examples: {train.get('train_examples', '–'):,}"
              if isinstance(train.get("train_examples"), int) else f"- Task: `{tcfg.get('task')}`"]
    lines += [f"- Dev (model selection) examples: {train.get('dev_examples', '–')}"]
    for split, rep in evals.items():
        lines += [f"- Scored on `{split}`: {rep.get('n')} examples"]
    lines += [f"- {card['data_note']}"] if card.get("data_note") else []
    lines += ["", "## Model and training", ""]
    lines += [f"- Architecture: `{mcfg.get('arch')}`, {architecture_text(mcfg)}, masks={mcfg.get('masks')}, "
              f"input dim {mcfg.get('d_in')} ({glove_text(mcfg)})"]
    lines += [f"- Parameters without embeddings: {train.get('params_without_embeddings', 0):,}; vocabulary {train.get('vocab_size')} words"]
    lines += [f"- Optimizer {tcfg.get('optimizer')} lr {tcfg.get('lr')}, batch {tcfg.get('batch_size')}, dropout {tcfg.get('dropout')}, "
              f"weight decay {tcfg.get('weight_decay')}, seed {tcfg.get('seed')}"]
    lines += [f"- Training length: {epochs_text(train)}; wall time {train.get('wall_time_s')} s on {train.get('hardware')}"
              + (f", device {train['device']}" if train.get("device") else "") + f" (torch {train.get('torch')})"]
    if train.get("token2token"):  # runs since issue 28 measure DiSAN's kernel per device (disan.kernel_choice)
        lines += [f"- token2token kernel: {kernel_text(train['token2token'])}"]
    lines += [f"- Stopping: {stopping_text(train)}"]
    lines += module_lines(train) if is_relatedness(card) else []
    if card.get("test_runs"):
        lines += runs_lines(card["test_runs"], name)
    if card.get("never_seen"):
        lines += never_seen_lines(card["never_seen"])
    if card.get("recipe"):
        lines += ["", "## Recipe choices (decided on dev)", ""] + [f"- {line}" for line in card["recipe"]]
    lines += scores_lines(card) + overlap_lines(card) if is_relatedness(card) else accuracy_lines(card)
    if train.get("history"):
        lines += ["", "## Learning curve", ""] + curve_lines(train["history"])
    lines += ["", "## Reproduce", "", "```", card.get("train_command", train.get("command", "")), "```"]
    fold = "" if tcfg.get("fold") is None else f" --fold {tcfg['fold']}"
    if is_file_card(card):
        evals = {}
        lines += ["```", evaluate_command(card), "```"]
    for split in evals:
        lines += ["```", f"python -m disan evaluate --model {name} --task {tcfg.get('task')} --split {split}{fold} --card",
                  "```"]
    if card.get("shortfall"):
        lines += ["", "## Where we fall short of the paper, and why", "", card["shortfall"]]
    return "\n".join(lines) + "\n"
