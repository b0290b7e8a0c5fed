"""Simulation: cocotb benches and the virtual board (:mod:`sim.vboard`)."""
