"""Benchmarks (not tests), each run as ``python -m slitherlink.bench.<name>``.

``bench.hardware`` (``make bench``) runs the SoC on virtual boards, the mode a
parameter (:mod:`bench.modes`), a build per size class (:mod:`bench.builds`), and
writes its summary (:mod:`bench.summary`, :mod:`bench.plot`) beside the paper's
figures (:mod:`bench.paper`); ``bench.peers`` runs the software peers (its
sampling, judging and process pool serve the others); ``bench.band_model`` the
deduction engine's golden model, no hardware; ``bench.soc_cycles`` the paper
mode's cycles per check; ``bench.lossy`` the host over a lossy link.
"""
