"""Which token2token kernel trains fastest on this device: measured, not assumed (issue 28).

The fused kernel (``fused_attention``) trained 1.87× faster than the naive
reference on the 2-core CPU but at 0.85× of it on an H100
(docs/benchmarks.md, docs/benchmarks-gpu.md), so no fixed choice is right
everywhere. ``measure`` times one training step (forward, loss, backward) of
each candidate on the model's own device and a real batch, and picks the
fastest. It leaves the model as it found it: weights, buffers, gradients,
train/eval mode, token2token implementations and torch's RNG state (CPU and
the model's CUDA device), so a run that measures first stays bit-identical to
one that set the chosen implementation by hand.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import Tensor, nn

from .errors import DisanError
from .fused_attention import set_impl, supported

#: Candidate → the ``DiSABlock.token2token_impl`` that runs it (``auto`` takes the fused kernel while training),
#: in the order of preference when timings are within ``MARGIN``: the fused kernel keeps no (B, T, T, D) tensor
#: for the backward pass and the chunked reference bounds it, so memory breaks a tie.
CANDIDATES = {"fused": "auto", "reference": "reference", "naive": "naive"}

#: A candidate later in ``CANDIDATES`` must beat an earlier one by more than this fraction to be chosen: smaller
#: differences are within the run-to-run noise of a shared machine, and every switch costs memory.
MARGIN = 0.05

#: At most this many timed rounds (one step per candidate each, interleaved so all see the same load) after one
#: warm-up round; they stop once ``BUDGET_S`` seconds have gone into timing, after at least one. Cheap steps get
#: many rounds, so the best of them is stable; a 0.2 s step at the real batch shape gets about five.
ROUNDS = 20
BUDGET_S = 3.0


@dataclass(frozen=True)
class KernelChoice:
    """The chosen candidate and how: ``measured`` (with best ms per step), ``forced`` or ``resumed``."""

    choice: str
    how: str
    device: str
    ms_per_step: dict[str, float | None] = field(default_factory=dict)  # None: ran out of memory
    batch: dict = field(default_factory=dict)  # the measured batch: sentences and longest input
    rounds: int = 0

    @property
    def impl(self) -> str:
        """The value for ``set_impl``."""
        return CANDIDATES[self.choice]

    def line(self) -> str:
        """One line for the training log."""
        times = ", ".join(f"{name} {'out of memory' if ms is None else f'{ms:.0f} ms' if ms >= 100 else f'{ms:.3g} ms'}"
                          for name, ms in self.ms_per_step.items())
        if self.how == "forced":
            return f"token2token: {self.choice} (--t2t-impl {self.choice}; not measured)"
        if self.how == "resumed":
            return f"token2token: {self.choice}, kept from the resumed run's state" + (
                f" ({times} per step on {self.device})" if times else " (saved before kernels were recorded)")
        return f"token2token: {times} per step on {self.device} → {self.choice}"

    def record(self) -> dict:
        """The run summary's ``token2token`` entry (``train.json``), read back by ``from_record``."""
        return {"choice": self.choice, "impl": self.impl, "how": self.how, "device": self.device,
                "ms_per_step": dict(self.ms_per_step), "batch": dict(self.batch), "rounds": self.rounds}

    @classmethod
    def from_record(cls, record: dict, how: str) -> KernelChoice:
        return cls(record["choice"], how, record["device"], dict(record.get("ms_per_step", {})),
                   dict(record.get("batch", {})), int(record.get("rounds", 0)))


def pick(ms_per_step: dict[str, float | None]) -> str:
    """The candidate to use for these best step times (ms; None = failed): a pure function of its input.

    The first candidate, in ``CANDIDATES`` order, within ``MARGIN`` of the fastest.
    """
    ok = {name: ms for name, ms in ms_per_step.items() if ms is not None}
    if not ok:
        raise DisanError(f"Every token2token candidate ran out of memory ({', '.join(ms_per_step)}); "
                           "train with a smaller --batch-size or --max-len.")
    fastest = min(ok.values())
    return next(name for name in CANDIDATES if name in ok and ok[name] <= fastest * (1 + MARGIN))


def blocks_of(model: nn.Module) -> list[nn.Module]:
    """The modules with a token2token implementation (``DiSABlock``s), as ``set_impl`` finds them."""
    return [m for m in model.modules() if hasattr(m, "token2token_impl")]


def candidates_for(model: nn.Module) -> list[str]:
    """The candidates worth timing: ``fused`` only where every block may take it (dtype, c ≤ ``MAX_C``)."""
    blocks = blocks_of(model)
    if not blocks:
        raise ValueError(f"{type(model).__name__} has no DiSA block: there is no token2token kernel to choose.")
    probe = torch.empty(0, dtype=next(model.parameters()).dtype)
    fused = all(supported(probe, m.c) for m in blocks)
    return [name for name in CANDIDATES if name != "fused" or fused]


def _timed_step(model: nn.Module, step: Callable[[], Tensor], device: torch.device) -> float:
    """Seconds for one forward + backward; gradients start from None as after ``zero_grad(set_to_none=True)``."""
    for p in model.parameters():
        p.grad = None
    if device.type == "cuda":
        torch.cuda.synchronize(device)  # kernels queued before must not count
    start = time.perf_counter()
    step().backward()
    if device.type == "cuda":
        torch.cuda.synchronize(device)  # CUDA returns before the kernels finish
    return time.perf_counter() - start


def measure(model: nn.Module, step: Callable[[], Tensor], batch: dict | None = None, rounds: int = ROUNDS,
            budget_s: float = BUDGET_S) -> KernelChoice:
    """Time ``step`` (forward + loss of one training batch, returned as a scalar) under every candidate.

    One warm-up step per candidate, then up to ``rounds`` interleaved rounds; each candidate's best step
    time counts (the noise of a shared machine only adds time). ``batch`` describes the batch for the record.
    """
    names = candidates_for(model)
    device = next(model.parameters()).device
    params = list(model.parameters())
    grads = [p.grad for p in params]
    buffers = [b.detach().clone() for b in model.buffers()]
    modes = [(m, m.training) for m in model.modules()]
    impls = [(m, m.__dict__.get("token2token_impl")) for m in blocks_of(model)]
    best: dict[str, float | None] = {}
    done = 0
    try:
        with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []), torch.enable_grad():
            model.train()
            times = {name: _warm_up(model, step, device, name) for name in names}
            spent = 0.0
            while done < max(1, rounds) and (done == 0 or spent < budget_s):
                for name in names:
                    if times[name] is not None:
                        set_impl(model, CANDIDATES[name])
                        t = _timed_step(model, step, device)
                        times[name].append(t)
                        spent += t
                done += 1
            best = {name: None if ts is None else 1000 * min(ts) for name, ts in times.items()}
    finally:
        for p, g in zip(params, grads):
            p.grad = g
        with torch.no_grad():
            for b, saved in zip(model.buffers(), buffers):
                b.copy_(saved)
        for m, training in modes:
            m.training = training
        for m, impl in impls:
            if impl is None:
                m.__dict__.pop("token2token_impl", None)  # back to the class default
            else:
                m.token2token_impl = impl
    return KernelChoice(pick(best), "measured", str(device), best, dict(batch or {}), done)


def _warm_up(model: nn.Module, step: Callable[[], Tensor], device: torch.device, name: str) -> list[float] | None:
    """One untimed step (first-call allocations); None if the candidate runs out of memory at this shape."""
    set_impl(model, CANDIDATES[name])
    try:
        _timed_step(model, step, device)
    except torch.OutOfMemoryError:
        for p in model.parameters():
            p.grad = None
        if device.type == "cuda":
            torch.cuda.empty_cache()
        return None
    return []
