"""Rules on the package's source. Imports point down only: cli -> lab -> book/bench -> scorecard -> papers ->
leaderboard -> analysis -> train/results -> models/tasks -> data/seeding/config/display/snapshots/errors; function-level
imports count too, so no cycle hides inside a function. Random generators are made and seeded in `lengthgen.seeding`
only, in the package and in the chapters' code cells."""

import ast
from pathlib import Path

import lengthgen
from lengthgen.book import CHAPTERS, cell_sources

PACKAGE = Path(lengthgen.__file__).parent
LAYERS = [
    ("__init__", "errors"),
    ("config", "registry", "seeding", "data", "device", "metrics", "display", "snapshots"),
    ("tasks", "models", "pretrained"),
    ("train", "results", "export"),
    ("analysis",),
    ("leaderboard",),
    ("papers",),
    ("scorecard",),
    ("book", "bench"),
    ("lab",),
    ("cli",),
]
RANK = {unit: rank for rank, units in enumerate(LAYERS) for unit in units}
SEEDING_CALLS = {"Generator", "manual_seed", "seed", "set_rng_state"}


def unit(module: str) -> str:
    """The layer unit of a dotted module name inside the package: its first component below `lengthgen`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports(path: Path) -> set[str]:
    """Every lengthgen module that the file imports, at any depth of its code."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "lengthgen":
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "lengthgen"}
    return found


def test_every_module_is_in_a_layer():
    units = {p.relative_to(PACKAGE).parts[0].removesuffix(".py") for p in PACKAGE.rglob("*.py")}
    assert units == set(RANK)


def test_imports_point_down_only():
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        here = unit("lengthgen." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts))
        for target in imports(path):
            there = unit(target)
            if there != here and RANK[there] >= RANK[here]:
                wrong.append(f"{path.relative_to(PACKAGE)} imports {target}")
    assert not wrong, "imports that do not point down:\n" + "\n".join(wrong)


def test_the_rule_catches_an_upward_import(tmp_path):
    (tmp_path / "m.py").write_text("def f():\n    from lengthgen.papers import EXPERIMENTS\n")
    assert imports(tmp_path / "m.py") == {"lengthgen.papers"}
    assert RANK[unit("lengthgen.papers")] > RANK[unit("lengthgen.results.sweep")]


def seeding_calls(source: str) -> list[int]:
    """Lines of the code that make or seed a torch random generator (`torch.Generator()`, `.manual_seed(...)`, ...)."""
    return sorted({node.lineno for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)
                   and isinstance(node.func, ast.Attribute) and node.func.attr in SEEDING_CALLS})




def test_generators_are_made_in_seeding_only():
    outside = [f"{p.relative_to(PACKAGE)}:{line}" for p in PACKAGE.rglob("*.py") if p.name != "seeding.py"
               for line in seeding_calls(p.read_text())]
    outside += [f"{chapter}, code cell {i}, line {line}" for chapter, source in CHAPTERS.items()
                for i, cell in enumerate(cell_sources(PACKAGE.parent / source, "code")) for line in seeding_calls(cell)]
    assert not outside, "random generators made outside lengthgen.seeding:\n" + "\n".join(outside)
    assert seeding_calls((PACKAGE / "seeding.py").read_text()), "the rule must see seeding.py's own generators"
    assert len(CHAPTERS) >= 4, "the rule must see the chapters"


def test_the_rule_catches_a_generator(tmp_path):
    assert seeding_calls("import torch\n\ndef f(n):\n    return torch.Generator().manual_seed(n)\n") == [4]
    (tmp_path / "c.md").write_text("# C\n\n```{code-cell}\ngen = torch.Generator().manual_seed(0)\nx = 1\n```\n")
    assert [seeding_calls(c) for c in cell_sources(tmp_path / "c.md", "code")] == [[1]]
