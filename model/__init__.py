"""Golden models of the solver, in plain Python (the host's model engine and fake device use them)."""
