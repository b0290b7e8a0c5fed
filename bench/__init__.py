"""Benchmarks (not tests), each run as ``python -m slitherlink.bench.<name>``.

``bench.peers`` runs the software peers (host/engines) on a sample of the
puzzle corpus; its sampling, judging and process pool are shared by the other
benchmarks of this package.
"""
