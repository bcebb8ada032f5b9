"""What each stored grid's verdict is about, read from its profile against the paper's stated set-up."""

from dataclasses import replace

from lengthgen.papers.sparsity import paper
from lengthgen.papers.sparsity.experiments import ASSIGNMENT_PROFILES, PARITY_PROFILES
from lengthgen.papers.sparsity.rows import READ_AT
from lengthgen.papers.sparsity.setups import SCALE, UNITS, decoder_setup, setup_sentence, setups


def test_a_grid_that_differs_only_in_scale_is_about_the_papers_mechanism():
    theirs = paper.SETUPS["sparsity-assignment"]
    ours = replace(ASSIGNMENT_PROFILES["regime"], max_positions=theirs.max_id, steps=10_000, seeds=(0,))
    assert decoder_setup(ours, theirs, UNITS["sparsity-assignment"]) == {
        "smaller": "model 4x128 (the paper's 12x1024); steps 10,000 (the paper's 50,000)",
        "runs": "depths 2; models PPC; seeds 1 (the paper's 3)", "changed": ""}
    changed = decoder_setup(replace(ours, train_lengths=(2, 6)), theirs, UNITS["sparsity-assignment"])["changed"]
    assert changed == "training lengths 2-6 (the paper's 20-60)"


def test_lengths_are_compared_in_the_papers_unit():
    theirs = paper.SETUPS["sparsity-parity"]  # tokens; ours in (key, bit) pairs
    ours = replace(PARITY_PROFILES["cpu"], max_positions=theirs.max_id)
    assert ours.train_lengths == (10, 25) and decoder_setup(ours, theirs, UNITS["sparsity-parity"])["changed"] == ""
    assert "longest test 100 (the paper's 500)" in decoder_setup(
        replace(ours, eval_lengths=(10, 50)), theirs, UNITS["sparsity-parity"])["changed"]


def test_the_table_names_what_each_verdict_is_about():
    table = setups(READ_AT, 360_000).set_index("figure")
    assert table.loc["Figs. 2, 8", "the verdicts are about"] == SCALE  # Table 3's lengths and ids, learned positions
    assert "4x256 for j = 3" in table.loc["Figs. 2, 8", "smaller"]
    assert table.loc["Fig. 3", "changed"] == "largest position id 256 (the paper's 230)"
    assert table.loc["Table 1, Figs. 4-6", "the verdicts are about"] == f"{SCALE}, with a change of ours"
    assert table.loc["Table 1, Figs. 4-6", "changed"].startswith("corpus the Python standard library's")
    sentence = setup_sentence(table.reset_index())
    assert sentence["setup_scale"] == "Figs. 2, 8"
    assert sentence["setup_changes"].startswith("Figs. 1, 7: largest position id 512 (the paper's 510); Fig. 3: ")
