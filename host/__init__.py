"""Host side of the Slitherlink solver: puzzles, rules checker, engines, UART client."""
