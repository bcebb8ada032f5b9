"""Names of the metrics that runs store (the `metric` column of every tidy results table)."""

ACCURACY = "accuracy"  # %: exact match of greedy outputs (sequences) or correct class (sets)
ACCURACY_NUMBER = "accuracy_number"  # %, arithmetic with a fixed width: right as the public code compares answers, as
# numbers (<eos> and the number's leading zeros ignored: `tasks.arithmetic.ArithmeticTask.same_number`)
ACCURACY_ADAPTIVE = "accuracy_adaptive"  # %, sets: with the test-time adaptive-temperature softmax
EDIT_DISTANCE = "edit_distance"  # mean token Levenshtein distance between greedy output and target
FIRST_ERROR = "first_error"  # median index of the first wrong output token over the wrong outputs (if any)
FIRST_WRONG_ZERO = f"{FIRST_ERROR} zero"  # %: of the wrong answers, those whose first wrong token is a 0
DIRECTION_GATE = "direction_gate"  # mean direction gate, mechanisms with direction mixing (1: reads forward)
COURSE = "course"  # %: exact match at the longest training length along training (rows carry the step)
FINAL_TRAIN_LOSS = "final_train_loss"  # sets: running mean training loss at the last step
EPOCHS, BEST_EPOCH, BEST_DEV = "epochs", "best_epoch", "best_dev"  # sequences, at split "train"
GLOBAL_MEAN, GLOBAL_VAR = "global_mean", "global_var"  # probe: mean over sets of each normed output's feature mean
# and (biased) feature variance (`analysis.variance.global_stats`, Fig. 3)
COMPONENT_VAR = "component_var"  # probe: variance across sets of each normed output feature, mean over features
MAX_WEIGHT = "max_weight"  # probe: mean over sets of the largest attention weight (Fig. 4)
OPEN_SHARE = "open_share"  # %: of the source's cells (cross-attention, every decoder step and head of the first
# cross-attention layer) a calibrated bias leaves open, at the longest training length (the leaderboard's ABC)
OPEN_KEYS = "open_keys"  # arithmetic: keys a bias leaves open per decoder step (`papers.abc.readings.bias_reading`),
# by_construction "self" / "cross"
BIAS_ANTI_DIAGONAL = "bias_anti_diagonal"  # arithmetic: the weight a bias alone puts on cross-attention's
# anti-diagonal (`papers.abc.readings.bias_reading`)
ANTI_DIAGONAL = "anti_diagonal"  # arithmetic: the last layer's cross-attention weight on the reversed output's
# anti-diagonal (`papers.abc.readings.anti_diagonal_mass`), by_construction "inside" / "beyond" the training digits
LINE_OPERANDS = "line_operands"  # arithmetic: the operands whose digit a run's readings of the line (ANTI_DIAGONAL,
# BIAS_ANTI_DIAGONAL) read per step (`tasks.arithmetic.ArithmeticTask.operand_lines_from_end`); runs stored before it
# read one operand's, the one `line_from_end` names
LINE_TAIL = "line_tail"  # arithmetic: the source tokens after the line's first digit that a run's readings of the
# line (ANTI_DIAGONAL, BIAS_ANTI_DIAGONAL) skipped (`tasks.arithmetic.ArithmeticTask.tail`)

PPC_PARTS = ("tokens", "ids", "oracle")  # a PPC model's exact match in parts ("accuracy tokens", ...): its tokens
# alone, its predicted ids alone, its tokens when the true ids are fed in (`evaluate.answer_accuracy_by_length`)
LOOKUP = "lookup mass"  # a PPC model's attention, from the position predicting an answer token, on the prompt keys
# that share that token's position id (those its coupled id points to), teacher-forced (`readings.lookup_by_length`)


def by_construction(metric: str, construction: str) -> str:
    """The name of `metric` measured over one construction's examples only, e.g. "direction_gate:after"."""
    return f"{metric}:{construction}"
PERPLEXITY = "perplexity"  # language models: exp of the mean next-token NLL over test windows of `length` tokens
NLL = "nll"  # nats: one next-token loss (the language study's "nll full", "nll recent", "nll recent+k")
