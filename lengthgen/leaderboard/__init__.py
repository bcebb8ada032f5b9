"""Beyond the papers: one length-generalization leaderboard, every mechanism of the four papers and of their peers on
every task under one protocol (`protocol`), its grid of runs (`grid`). Below `papers` in the import layers, so that
the papers' registry of experiments can hold the leaderboard's."""
