"""Gateware of the Slitherlink solver (Amaranth 0.5) and its Python golden model."""
