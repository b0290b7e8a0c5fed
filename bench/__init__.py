"""Benchmarks (not tests): ``python -m bench.peers`` runs the software peers on the corpus."""
