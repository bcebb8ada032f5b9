"""The numbers reported by Chowdhury & Caragea (2023), as data (shown beside ours, never used to tune anything).

Tables 2, 4, 6, 7: sequence accuracy in % (median of 5 seeds); Table 9: mean edit distance (median of 5 seeds);
Tables 3 and 8: SCAN length split accuracy, mean and std of 5 seeds. Rows list the splits in order.
"""

import pandas as pd

from lengthgen.metrics import ACCURACY

MEDIAN_RUNS = 5  # Tables 2, 4, 6, 7 and 9 report the median of this many runs (the tables' captions)
COPY_SPLITS = ("15", "30", "100")
LOOKUP_SPLITS = ("7", "9", "11")
TASK_ORDER = ("copy", "reverse_copy", "lookup", "reverse_lookup", "recopy", "reverse_recopy", "inv_recopy",
              "inv_reverse_recopy")


def splits_of(task: str) -> tuple[str, ...]:
    return LOOKUP_SPLITS if task.endswith("lookup") else COPY_SPLITS


def _rows(table: dict[str, str]) -> dict[str, dict[str, tuple[float, ...]]]:
    """'mechanism': 'copy x3 | reverse_copy x3 | ...' (24 numbers, TASK_ORDER) -> {mechanism: {task: 3 values}}."""
    out = {}
    for mechanism, text in table.items():
        values = [float(v) for v in text.split()]
        assert len(values) == 24, mechanism
        out[mechanism] = {t: tuple(values[3 * i: 3 * i + 3]) for i, t in enumerate(TASK_ORDER)}
    return out


TABLE2 = _rows({
    "content": "0 0 0  0 0 0  33.3 0 0  3.7 0 0  19.1 0 0  25 0 0  0.05 0 0  0 0 0",
    "relative": "100 100 100  0 0 0  100 100 100  78.2 0.8 0.4  43.1 0 0  0.1 0 0  75.9 0 0  0 0 0",
    "locattn": "99.8 0 0  0.7 0 0  100 9.4 0  13.3 0 0  79.6 0 0  19.7 0 0  99.4 58.8 0  97.9 0.3 0",
    "bi_relative": "100 100 100  100 100 100  100 100 100  100 100 100  33.4 0 0  35.3 0 0  69.8 0 0  71.3 0 0",
    "onestep": "100 100 100  100 100 100  100 100 100  100 100 100  100 100 100  100 100 100  0.1 0 0  0 0 0",
    "mono": "100 100 100  100 100 100  100 98 29.9  28.5 0 0  100 100 100  100 100 100  100 100 98.8  100 99.9 98.3",
})

TABLE4 = _rows({
    "onestep": "100 100 100  100 100 100  100 100 100  100 100 100  100 100 100  100 100 100  0.1 0 0  0 0 0",
    "onestep_no_step2": "100 1.4 0  100 98.6 0  99.2 2.34 0  99.8 0 0  15.9 0 0  16.9 0 0  95.5 0 0  96.2 0 0",
    "onestep_no_step3": "6.9 0 0  0 0 0  41.9 0 0  22.9 0 0  100 100 100  100 100 99.9  40.3 0 0  45 0 0",
    "onestep_no_sigmoid": "100 100 99.8  100 100 100  100 74.3 0.3  19.1 0 0  100 100 100  100 100 100  0 0 0  22 0 0",
})

TABLE7 = _rows({
    "bi_rope": "100 100 0  100 100 0  100 100 100  89.5 1.6 0.2  43.4 0 0  39 0 0  56.0 0 0  53.1 0 0",
    "mix_locattn": "99.8 0 0  1.5 0 0  8.6 0 0  7.5 0 0  36.1 0 0  30.4 0 0  99.6 65.1 0  98.6 24.1 0",
    "locattn_s": "100 26.6 0  100 74.1 0  100 46.3 0  99.6 0.1 0  98.7 5.2 0  99.9 1.4 0  100 99.3 91.1  "
                 "99.9 99.3 91.8",
    "mix_locattn_s": "99.7 0 0  85.9 0 0  33.5 0 0  3.5 0 0  99.7 0 0  99.6 0 0  98.9 66.6 0  98.8 57.7 0",
    "mix_locattn_s_pr": "83.6 0 0  99.7 10.5 0  32.9 0 0  1.1 0 0  99.6 0.4 0  100 61.4 0  99.8 98.6 88  "
                        "99.6 98.1 84.8",
    "mix_onestep": "2.6 0 0  0.4 0 0  100 71.7 1.6  100 79.1 8.1  43.5 0 0  87.1 0 0  10.4 0 0  5.45 0 0",
    "mix_onestep_pr": "100 100 100  100 100 100  100 100 47.8  57.5 0 0  99.9 88.4 30.2  100 100 100  0 0 0  0 0 0",
    "mix_mono": "99.95 5 0  100 50.8 0  94.5 0 0  53.5 0 0  7.09 0 0  99.85 0 0  99.8 82.4 0  100 82.2 0",
    "mix_mono_pr": "100 99.2 86.7  100 100 99.7  15.3 0 0  0 0 0  100 100 100  100 53 0.5  0 0 0  89.6 77.6 42.1",
    "rmono": "100 100 100  100 100 99.9  64.3 0 0  72.8 0 0  100 100 99.9  0 0 0  100 100 99.1  100 100 99",
    "mix_rmono": "31.1 0 0  100 66.3 0  99.8 0 0  41.4 0 0  98.1 0 0  23.4 0 0  99.85 70.5 0  100 83.8 0",
    "mix_rmono_pr": "0 0 0  100 100 100  39.2 0 0  4.3 0 0  100 90.8 51.2  100 100 100  0 0 0  40 0 0",
})

TABLE9 = _rows({
    "content": "6.1 21 90.7  6.8 21.9 91.7  1.4 4.6 6.5  1 3.8 5.4  8 53.4 249.2  8.1 53.7 249.3  4 19.7 90.1  "
               "4.3 20.1 90.4",
    "relative": "0 0 0  4.4 20.7 90.2  0 0 0  0.3 4.9 6.3  3.7 31.5 160  17.9 60.8 250.7  0.5 13.7 73.8  "
                "3.2 18.4 88.3",
    "locattn": "0 14.2 82  1.7 16.7 84.9  1.2 3 5.7  1.3 3.9 6.2  0.8 56.5 233  2.7 39.1 226.1  0 0.5 45.8  "
               "0 7.8 72.5",
    "bi_relative": "0 0 0  0 0 0  0 0 0  0 0 0  4.5 32.4 159.6  4.2 31.9 159.1  0.7 14.4 74  0.6 13.9 74",
    "onestep": "0 0 0  0 0 0  0 0 0  0 0 0  0 0 0  0 0 0  3 16.6 86  3.1 17.2 85.7",
    "mono": "0 0 0  0 0 0  0 0 0.9  0.7 3 4.9  0 0 0  0 0 0  0 0 0  0 0 0",
})

# Table 6: DeDupe and PosRetrieve, splits IID, 15, 30, 100.
TABLE6 = {
    "content": {"dedupe": (98.7, 37.1, 0, 0), "posretrieve": (100, 0, 0, 0)},
    "bi_relative": {"dedupe": (99.9, 68, 0, 0), "posretrieve": (100, 0, 0, 0)},
    "locattn": {"dedupe": (99.6, 96.9, 71.4, 0), "posretrieve": (96.3, 0, 0, 0)},
    "onestep": {"dedupe": (94.1, 51, 0, 0), "posretrieve": (70.6, 0, 0, 0)},
    "mono": {"dedupe": (99.7, 98.3, 94.3, 75), "posretrieve": (79, 0, 0, 0)},
}
TABLE6_SPLITS = ("iid", "15", "30", "100")

# Tables 3 and 8: SCAN length split, (mean, std) over SCAN_RUNS seeds. Table 8 lists LocAttn twice with the same
# numbers.
SCAN_RUNS = 5
SCAN = {
    "content": (17.61, 4.07), "relative": (19.21, 5.52), "mix_locattn": (20.74, 5.69), "bi_relative": (8.41, 1.21),
    "mix_onestep": (29.51, 9.46), "mix_mono": (21.08, 7.17),
    "bi_rope": (10.46, 3.78), "locattn": (24.56, 17.51), "locattn_s": (25.12, 6.30), "mix_locattn_s": (27.55, 10.10),
    "mix_locattn_s_pr": (19.8, 3.26), "onestep": (15.38, 0.42), "mix_onestep_pr": (17.67, 3.54),
    "mono": (14.98, 0.15), "mix_mono_pr": (26.68, 10.27), "rmono": (15.28, 1.47), "mix_rmono": (22.92, 6.39),
    "mix_rmono_pr": (27.99, 11.26),
}


def paper_table(table: dict, metric: str = ACCURACY) -> pd.DataFrame:
    """A probing-task table as tidy rows: variant, task, split (its name, "iid" or a length as text), metric,
    paper."""
    rows = [{"variant": m, "task": t, "split": s, "metric": metric, "paper": v}
            for m, tasks in table.items() for t, values in tasks.items()
            for s, v in zip(TABLE6_SPLITS if len(values) == 4 else splits_of(t), values, strict=True)]
    return pd.DataFrame(rows)
