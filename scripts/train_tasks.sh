#!/usr/bin/env bash
# The training runs of issue 28, by `python -m disan train`: disan-trec and disan-sick five seeds each,
# disan-subj, disan-mpqa and disan-cr one run per fold of the seeded, stratified 10-fold split (40 runs).
# Usage: bash scripts/train_tasks.sh [--list] [task ...]   (tasks: trec subj mpqa cr sick; default all five)
#   RUNS=DIR (default ~/disan-runs): a run writes DIR/<task>-seed<N>/disan-<task>.* or DIR/<task>-fold<F>/…,
#     appends its output to <that prefix>.stdout.log, and a fold run writes its fold record to <prefix>.folds.json.
#   Prints "done PREFIX" or "FAILED PREFIX" per run; exits 1 if any run failed (the others still run).
#   JOBS (default 2) runs at a time, one torch thread each, under nice -n 19.
#   --list prints each run's `python -m disan train` arguments, one run per line, and trains nothing.
# Rerun the same line after an interruption: each run resumes from its .state.pt, and a finished run ends at once.
# Recipe: the published DiSAN models' (scripts/train_pretrained.sh: Adam 1e-3, the authors' dropout placement,
# ReLU, no classifier output bias, zero <unk>); dev is evaluated once per epoch and a run stops after 8
# evaluations without a new best (dev accuracy; Pearson's r for sick). Fold runs all use seed 0.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
RUNS=${RUNS:-$HOME/disan-runs}
JOBS=${JOBS:-2}
RECIPE="--model disan --epochs 60 --patience 8 --unk-zero --optimizer adam --lr 0.001 --dropout-mode authors --activation relu --no-output-bias --threads 1"
# Optimizer steps in one epoch at batch 64 (train part of the official split, or of a fold), the evaluation interval.
declare -A EPOCH=([trec]=77 [subj]=125 [mpqa]=133 [cr]=48 [sick]=71)

list=0
if [ "${1:-}" = "--list" ]; then list=1; shift; fi
tasks=("$@")
[ ${#tasks[@]} -gt 0 ] || tasks=(trec subj mpqa cr sick)
for task in "${tasks[@]}"; do
  if [ -z "${EPOCH[$task]:-}" ]; then echo "error: unknown task '$task'; use trec, subj, mpqa, cr or sick" >&2; exit 2; fi
done

lines() {
  for task in "${tasks[@]}"; do
    case $task in
      subj|mpqa|cr) for f in 0 1 2 3 4 5 6 7 8 9; do
          echo "$RECIPE --task $task --eval-every ${EPOCH[$task]} --seed 0 --fold $f --out $RUNS/$task-fold$f/disan-$task"
        done ;;
      *) for s in 0 1 2 3 4; do
          echo "$RECIPE --task $task --eval-every ${EPOCH[$task]} --seed $s --out $RUNS/$task-seed$s/disan-$task"
        done ;;
    esac
  done
}

if [ $list = 1 ]; then lines; exit 0; fi
run_one() {  # run_one "ARGS": one run, its output appended beside its files (a resumed run keeps the earlier part)
  local out=${1##*--out }
  mkdir -p "$(dirname "$out")"
  if nice -n 19 "$PY" -m disan train $1 >> "$out.stdout.log" 2>&1; then echo "done $out"; return 0; fi
  echo "FAILED $out (see $out.stdout.log)"
  return 1  # xargs goes on with the other runs and exits non-zero at the end
}
export -f run_one
export PY
if ! lines | OMP_NUM_THREADS=1 xargs -P "$JOBS" -d '\n' -n 1 bash -c 'run_one "$1"' _; then
  echo "error: some runs failed (the FAILED lines above); fix the cause and rerun the same command:" \
    "finished runs end at once, the others resume" >&2
  exit 1
fi
