"""Random streams: every generator of the package is made in `lengthgen.seeding`, named streams of one seed are
independent and repeatable, and a fixed generator keeps the plain integer seeding that stored readings were drawn
with."""

import ast
from pathlib import Path

import torch

import lengthgen
from lengthgen.seeding import fixed_generator, generator

PACKAGE = Path(lengthgen.__file__).parent
SEEDING_CALLS = {"Generator", "manual_seed", "seed", "set_rng_state"}


def seeding_calls(path: Path) -> list[int]:
    """Lines of the file that make or seed a torch random generator (`torch.Generator()`, `.manual_seed(...)`, ...)."""
    return [node.lineno for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SEEDING_CALLS]


def test_generators_are_made_in_seeding_only():
    outside = [f"{p.relative_to(PACKAGE)}:{line}" for p in PACKAGE.rglob("*.py") if p.name != "seeding.py"
               for line in seeding_calls(p)]
    assert not outside, "random generators made outside lengthgen.seeding:\n" + "\n".join(outside)
    assert seeding_calls(PACKAGE / "seeding.py"), "the rule must see seeding.py's own generators"


def test_the_rule_catches_a_generator(tmp_path):
    (tmp_path / "m.py").write_text("import torch\n\ndef f(n):\n    return torch.Generator().manual_seed(n)\n")
    assert seeding_calls(tmp_path / "m.py") == [4, 4]


def test_named_streams_are_independent_and_repeatable():
    draw = lambda g: torch.randint(2**31, (8,), generator=g).tolist()  # noqa: E731
    assert draw(generator(3, "train")) == draw(generator(3, "train"))
    assert draw(generator(3, "train")) != draw(generator(3, "init"))
    assert draw(generator(3, "train")) != draw(generator(4, "train"))


def test_a_fixed_generator_is_seeded_with_the_number_itself():
    expected = torch.Generator()
    expected.manual_seed(17)
    assert torch.equal(torch.rand(5, generator=fixed_generator(17)), torch.rand(5, generator=expected))
    assert not torch.equal(torch.rand(5, generator=fixed_generator(17)), torch.rand(5, generator=generator(17, "17")))
