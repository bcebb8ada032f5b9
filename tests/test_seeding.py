"""Random streams: named streams of one seed are independent and repeatable, and a fixed generator keeps the plain
integer seeding that stored readings were drawn with. (That the package makes its generators here only is a rule in
tests/test_imports.py.)"""

import torch

from lengthgen.seeding import fixed_generator, generator


def draws(g: torch.Generator) -> list[int]:
    return torch.randint(2**31, (8,), generator=g).tolist()


def test_named_streams_are_independent_and_repeatable():
    assert draws(generator(3, "train")) == draws(generator(3, "train"))
    assert draws(generator(3, "train")) != draws(generator(3, "init"))
    assert draws(generator(3, "train")) != draws(generator(4, "train"))


def test_a_fixed_generator_is_seeded_with_the_number_itself():
    expected = torch.Generator()
    expected.manual_seed(17)
    assert torch.equal(torch.rand(5, generator=fixed_generator(17)), torch.rand(5, generator=expected))
    assert not torch.equal(torch.rand(5, generator=fixed_generator(17)), torch.rand(5, generator=generator(17, "17")))
