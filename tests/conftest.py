import os

import pytest
import torch

os.environ["LENGTHGEN_DEVICE"] = "cpu"  # tests are deterministic on the CPU, whatever the machine has


@pytest.fixture(autouse=True)
def _deterministic_threads():
    """Tests run single-threaded so float results are bit-for-bit repeatable."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def runs_frame():
    """Tidy run rows from tuples (task, variant, seed, length or split name as stored, metric, value): the frame that
    collected runs make, with `split` and integer `length` as the store reads them."""
    import pandas as pd

    from lengthgen.results.store import split_and_length

    def make(rows):
        return split_and_length(pd.DataFrame(rows, columns=["task", "variant", "seed", "length", "metric", "value"]))

    return make


@pytest.fixture
def model_and_task():
    """An untrained GRU seq2seq model (in eval mode) and its task, built as the MLA experiments build them."""
    from lengthgen.models.gru_seq2seq import Seq2SeqConfig
    from lengthgen.papers.mla.experiments import Seq2SeqRun, build_run

    def make(attention="onestep", task="copy"):
        task, model = build_run(Seq2SeqRun(task=task, seed=0, model=Seq2SeqConfig(attention=attention)))
        return model.eval(), task

    return make
