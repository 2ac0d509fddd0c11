"""A card says how its run ended, in steps, and how long dev accuracy had stayed below its best."""

from disan.cards import stopping_text


def _train(stopped_by, accs, min_steps=0, max_steps=None):
    history = [{"global_step": 1000 * (i + 1), "dev_acc": a} for i, a in enumerate(accs)]
    return {"total_steps": 1000 * len(accs), "eval_every": 1000, "best_step": 1000 * (accs.index(max(accs)) + 1),
            "stopped_by": stopped_by, "patience": 2, "history": history,
            "train_config": {"min_steps": min_steps, "max_steps": max_steps, "epochs": 10}}


def test_early_stopping_counts_the_evaluations_after_the_first_best():
    text = stopping_text(_train("patience", [0.40, 0.45, 0.44, 0.45]))
    assert "4,000 optimizer steps" in text and "best dev at step 2,000, followed by 2 evaluations" in text
    assert "early stopping: 2 evaluations in a row" in text


def test_a_run_resumed_to_its_partners_step_count_says_so():
    paired = stopping_text(_train("max_steps", [0.40, 0.45, 0.41], min_steps=3000, max_steps=3000))
    assert "pair protocol" in paired and "--min-steps 3000 --max-steps 3000" in paired
    budget = stopping_text(_train("max_steps", [0.40, 0.45, 0.41], max_steps=3000))
    assert "pair protocol" not in budget and "the step budget (--max-steps 3000)" in budget
    assert stopping_text({"epochs_run": 1}).startswith("a wall-clock budget")
