"""What each stored grid's verdict is about, read from its profile against the paper's."""

from dataclasses import replace

from lengthgen.papers.sparsity.experiments import ASSIGNMENT_PROFILES, PARITY_PROFILES
from lengthgen.papers.sparsity.rows import READ_AT
from lengthgen.papers.sparsity.setups import SCALE, decoder_setup, setup_sentence, setups


def test_a_grid_that_differs_only_in_scale_is_about_the_papers_mechanism():
    paper = ASSIGNMENT_PROFILES["full"]
    ours = replace(paper.at(4, 128), steps=10_000, depths=(2,), seeds=(0,))
    assert decoder_setup(ours, paper) == {
        "smaller": "model 4x128 (the paper's 12x1024); steps 10,000 (the paper's 50,000)",
        "runs": f"depths 2 (the paper's 2-5); seeds 1 (the paper's {len(paper.seeds)})", "changed": ""}
    changed = decoder_setup(replace(ours, format="ours", train_lengths=(2, 6)), paper)["changed"]
    assert changed == "training lengths 2-6 (the paper's 20-60); format ours (the paper's paper)"


def test_the_table_names_what_each_verdict_is_about():
    table = setups(READ_AT, 360_000).set_index("figure")
    assert table.loc["Figs. 1, 7", "the verdicts are about"] == SCALE  # the paper's RoPE + PoSE, task and lengths
    assert table.loc["Figs. 1, 7", "runs"].startswith("bounds K 1-4 (the paper's 4, 6, 8, 10 and 12)")
    assert "4x256 for j = 3" in table.loc["Figs. 2, 8", "smaller"]
    assert table.loc["Table 1, Figs. 4-6", "the verdicts are about"].startswith("a change of ours: corpus")
    assert setup_sentence(table.reset_index()) == {
        "setup_scale": "Figs. 1, 7, Figs. 2, 8 and Fig. 3",
        "setup_changed": "Table 1, Figs. 4-6", "setup_changes": table.loc["Table 1, Figs. 4-6", "changed"]}
    assert PARITY_PROFILES["full"].train_lengths == PARITY_PROFILES[READ_AT["sparsity-parity"]].train_lengths
