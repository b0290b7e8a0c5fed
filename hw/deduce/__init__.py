"""Gateware of the deduction engine (docs/deduce.md; golden model :mod:`model.deduce`)."""
