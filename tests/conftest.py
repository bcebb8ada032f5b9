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
