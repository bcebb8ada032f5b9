import pytest
import torch


@pytest.fixture(autouse=True)
def _deterministic_threads():
    """Tests run single-threaded so float results are bit-for-bit repeatable."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
