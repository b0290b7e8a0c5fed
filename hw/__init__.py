"""Gateware of the Slitherlink solver (Amaranth 0.5); its interfaces are declared in :mod:`spec`."""
