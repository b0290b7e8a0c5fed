"""Golden models: the paper's search and the deduction engine."""
