"""Slitherlink on an FPGA: a reproduction of Miyauchi & Tanaka (JIP 2020) in Amaranth HDL.

One namespace for the Python code; each part of the system is one top-level folder of the
repository, mapped into this package by ``pyproject.toml``:

* :mod:`slitherlink.spec` -- every interface, defined once (tables, registers, protocol);
* :mod:`slitherlink.model` -- the golden models (the paper's search, the deduction engine);
* :mod:`slitherlink.hw` -- the gateware (Amaranth);
* :mod:`slitherlink.firmware` -- the soft CPU's C firmware and its build;
* :mod:`slitherlink.host` -- puzzles, the rules checker, the engines, the board client, the CLI;
* :mod:`slitherlink.sim` -- cocotb benches and the virtual board;
* :mod:`slitherlink.boards` -- FPGA board builds;
* :mod:`slitherlink.bench` -- benchmarks.
"""
