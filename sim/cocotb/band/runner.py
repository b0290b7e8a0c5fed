"""Build the band deduction engine's Verilog with Verilator and run the cocotb bench on it.

The Verilog is :func:`amaranth.back.verilog.convert` of
:class:`hw.deduce.band_engine.BandDeduceEngine` (the DEDUCE register file, the band
memories, the trail and the prober; docs/deduce.md section 12.7) at a build size, band
height and trail depth.  :func:`build` compiles it as ``sim/cocotb/deduce/runner.py``
does the parallel engine's (:func:`sim.cocotb.deduce.runner.compile_verilog`), into
``build/gateware/cocotb/band-<R>x<C>-b<band>-<key>/``.

:func:`run` hands the cases to the bench (``band_bench``, this folder) as a JSON file
(``BAND_CASES``) and reads back its report (``BAND_REPORT``).  A case is a dict::

    {"name": str, "rows": int, "cols": int, "clues": [[code, ...], ...],
     "island": 0 | 1, "max_solutions": int}

with ``clues`` the DEDUCE_CLUE codes (0-3, or ``CLUE_BLANK``).  The bench plays the
firmware's search and reports, per case, what the registers said; the golden model
runs in the pytest process, which compares (tests/hw/deduce/test_cocotb_band.py).
"""

from dataclasses import dataclass
from pathlib import Path

from slitherlink.sim.cocotb.deduce import runner as deduce_runner
from slitherlink.sim.cocotb.deduce.runner import Result

TOP = "band_engine"
BENCH = "slitherlink.sim.cocotb.band.band_bench"

__all__ = ["Build", "Result", "build", "run"]


@dataclass
class Build:
    engine: object      # the BandDeduceEngine the Verilog was converted from
    directory: Path     # Verilator's build directory


def build(max_rows, max_cols, *, band=1, trail_depth=32):
    """Convert ``BandDeduceEngine(max_rows, max_cols, band=, trail_depth=)`` to Verilog
    (top module :data:`TOP`) and compile it (only if this Verilog was never compiled)."""
    from amaranth.back import verilog

    from slitherlink.hw.deduce.band_engine import BandDeduceEngine
    engine = BandDeduceEngine(max_rows, max_cols, band=band, trail_depth=trail_depth)
    text = verilog.convert(engine, name=TOP, emit_src=False)
    return Build(engine, deduce_runner.compile_verilog(
        text, f"band-{max_rows}x{max_cols}-b{band}", TOP))


def run(built, cases, *, name="bench"):
    """Run the bench on a :class:`Build` with ``cases`` (dicts as in the module docstring);
    the :class:`Result`'s report has ``id``, ``config`` and one ``results`` entry a case."""
    return deduce_runner.run(built, cases, name=name, bench=BENCH, top=TOP, env="BAND")
