#!/usr/bin/env bash
# The data randomisation test's models (issue 57 item 1; Adebayo et al. 2018, Sec. 3.2): one TREC model per
# architecture trained on shuffled labels, recipe otherwise the same as its trained partner.
# Usage: bash scripts/train_shuffled.sh [name ...]   (default: all three, in this order)
#   RUNS=DIR (default ~/disan-runs/57) holds DIR/<name>/<name>.*; a run's output is appended to DIR/<name>.stdout.log.
#   Runs are resumable: rerun the same line after an interruption (a finished run ends at once).
#   disan-trec-shuffled: the shipped disan-trec's recipe and seed (its card's command, scripts/train_tasks.sh trec seed 0),
#     labels permuted with seed 1, exactly the shipped checkpoint's 2,002 steps, the last weights kept.
#   dsa-trec: no DSA TREC model is bundled, so the DSA's recipe (dsa-sst5's flags) on TREC with disan-trec's
#     schedule, capped at 616 steps (8 epochs) so both DSA runs fit a working day on the shared machine;
#   dsa-trec-shuffled: the same with labels permuted (seed 1), exactly 616 steps, the last weights kept.
# Then: python -m disan sanity --model pretrained-or-run.safetensors --shuffled RUN.safetensors --limit N --json
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
RUNS=${RUNS:-$HOME/disan-runs/57}
TREC="--task trec --epochs 60 --eval-every 77 --patience 8 --unk-zero --seed 0 --threads 1"
declare -A CMD=(
  [disan-trec-shuffled]="--model disan $TREC --optimizer adam --lr 0.001 --dropout-mode authors --activation relu --no-output-bias --shuffle-labels 1 --min-steps 2002 --max-steps 2002"
  [dsa-trec]="--model dsa $TREC --max-steps 616"
  [dsa-trec-shuffled]="--model dsa $TREC --shuffle-labels 1 --min-steps 616 --max-steps 616"
)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(disan-trec-shuffled dsa-trec dsa-trec-shuffled)
for name in "${names[@]}"; do
  if [ -z "${CMD[$name]:-}" ]; then echo "error: unknown run '$name'; use ${!CMD[*]}" >&2; exit 2; fi
  mkdir -p "$RUNS/$name"
  echo "== $name: python -m disan train ${CMD[$name]} --out $RUNS/$name/$name"
  OMP_NUM_THREADS=1 nice -n 10 $PY -m disan train ${CMD[$name]} --out "$RUNS/$name/$name" >> "$RUNS/$name.stdout.log" 2>&1
done
