"""What each task's model card says in words: the task, its data and protocol, and why we differ from the paper.

Counts are those the loaders give on the shipped data (``load_task``): SUBJ 10,000; MPQA 10,603 of the file's
10,606 lines and CR 3,771 of 3,775 (lines with no sentence are dropped, ``disan.data.senteval``); SICK
4,500 / 500 / 4,927.
"""

FOLD_PROTOCOL = ("10-fold cross-validation on a seeded, stratified fold assignment (disan.data.folds, seed 13): "
                 "each fold trains on 8/10 of the data, picks its checkpoint on a stratified dev slice of 1/10 taken "
                 "from its training part, and is scored once on its own test fold (1/10); "
                 "scripts/train_tasks.sh {task} runs the ten folds with seed 0.")

DESCRIPTIONS = {
    "sst5": "Fine-grained sentiment (SST-5): very negative … very positive, one sentence in.",
    "nli": "Natural language inference: premise + hypothesis → entailment / neutral / contradiction.",
    "trec": "Question type (TREC, Li & Roth 2002): one question in → its coarse class, ABBR (abbreviation), DESC "
    "(description), ENTY (entity), HUM (human), LOC (location) or NUM (numeric).",
    "subj": "Subjectivity (SUBJ, Pang & Lee 2004): one sentence from a movie review or plot summary in → "
    "subjective or objective.",
    "mpqa": "Opinion polarity (MPQA, Wiebe, Wilson & Cardie 2005): one short opinion phrase in → negative or positive.",
    "cr": "Customer-review polarity (CR, Hu & Liu 2004): one product-review sentence in → negative or positive.",
    "sick": "Semantic relatedness (SICK, Marelli et al. 2014): two sentences in → how related they are, a score "
    "from 1 (unrelated) to 5 (very related).",
}

DATA_NOTES = {
    "sst5": "Trained on every labelled phrase of the SST train trees (318,582 nodes, as the authors' "
    "released code does with only_sentence=False), with the authors' class balancing (--balance: every "
    "non-neutral phrase and whole sentence 4 times, 619,836 examples); model selection on the 1,101 SST "
    "dev sentences; scored once on the 2,210 SST test sentences.",
    "nli": "SNLI train (549,367 pairs) is not available here. Trained on SNLI dev (9,842 labelled pairs) "
    "plus SICK (9,927 pairs) minus a 5% held-out slice (seed 13) used for model selection; scored once "
    "on the full SNLI test set (9,824 pairs).",
    "trec": "The official TREC train set (5,452 questions) minus a 10% dev slice held out for model selection "
    "(545 questions, seed 13: disan.data.tasks); scored once on the official 500-question test set. Five runs, "
    "seeds 0–4, identical but for the seed (scripts/train_tasks.sh trec).",
    "subj": "SUBJ's 10,000 sentences (5,000 subjective, 5,000 objective); " + FOLD_PROTOCOL.format(task="subj"),
    "mpqa": "MPQA's 10,603 phrases (3 of the file's 10,606 lines hold no phrase and are dropped); "
    + FOLD_PROTOCOL.format(task="mpqa"),
    "cr": "CR's 3,771 sentences (4 of the file's 3,775 lines hold no sentence and are dropped); "
    + FOLD_PROTOCOL.format(task="cr"),
    "sick": "The official SemEval-2014 split of SICK: trained on its 4,500 train pairs, checkpoint picked on dev "
    "Pearson's r over the 500 trial pairs, scored once on the 4,927 test pairs. Five runs, seeds 0–4, identical "
    "but for the seed (scripts/train_tasks.sh sick).",
}

_CV_WHY = ("the paper does not say how it picked a checkpoint within a fold (ours: a dev slice of the training part, "
           "so each fold trains on 8/10 of the data rather than 9/10); our folds are our own seeded, stratified "
           "assignment, not the paper's; 50-d GloVe 6B instead of 300-d; no hyper-parameter search.")

WHY = {
    "sst5": "50-d GloVe 6B instead of 300-d; no hyper-parameter search.",
    "nli": "About 19k training pairs (SNLI dev + SICK) instead of SNLI's 549k, half of them from SICK's "
    "different domain; 50-d GloVe instead of 300-d.",
    "trec": "The paper's 94.2 is a mean of dev accuracies (Shen Table 5's note), ours are test accuracies on the "
    "official 500 questions, a different and smaller set; 50-d GloVe 6B instead of 300-d; 4,907 training "
    "questions after our dev slice is held out; no hyper-parameter search.",
    "subj": _CV_WHY[0].upper() + _CV_WHY[1:],
    "mpqa": _CV_WHY[0].upper() + _CV_WHY[1:],
    "cr": _CV_WHY[0].upper() + _CV_WHY[1:],
    "sick": "50-d GloVe 6B instead of 300-d; Shen does not give the regression module's hidden size (ours: the "
    "300 units of the other heads; Tai et al. used 50) nor its training details (ours: Adam and the recipe of "
    "the other DiSAN models); no hyper-parameter search.",
}

#: Said of DiSAN runs only: they deviate from Shen's optimizer.
ADAM_NOTE = (" DiSAN uses Adam (lr 1e-3) instead of Shen's Adadelta (lr 0.5): in a 2,000-step trial Adadelta "
             "reached only 35-36% SST-5 dev accuracy.")
