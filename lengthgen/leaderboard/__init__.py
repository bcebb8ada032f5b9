"""Beyond the papers: one length-generalization leaderboard, every mechanism of the four papers and of their peers on
every task under one protocol (`protocol`)."""
