"""Build the band deduction engine's Verilog with Verilator and run the cocotb bench on it.

The Verilog is :func:`amaranth.back.verilog.convert` of
:class:`hw.deduce.band_engine.BandDeduceEngine` (the DEDUCE register file, the band
memories, the trail and the prober; docs/deduce.md section 12.7) at a build size, band
height and trail depth.  :func:`build` compiles it as ``sim/cocotb/deduce/runner.py``
does the parallel engine's - the same Verilator arguments, make flags, cache key (the
Verilog text, the arguments, the tool versions) and file lock - into
``build/gateware/cocotb/band-<R>x<C>-b<band>-<key>/``, with two differences: the
Verilog has no ``src`` attributes, so that an edit that only moves lines of ``hw/``
rebuilds nothing, and the precompiled headers (140 MB) are deleted after the build.

:func:`run` hands the cases to the bench (``band_bench``, this folder) as a JSON file
(``BAND_CASES``) and reads back its report (``BAND_REPORT``).  A case is a dict::

    {"name": str, "rows": int, "cols": int, "clues": [[code, ...], ...],
     "island": 0 | 1, "max_solutions": int}

with ``clues`` the DEDUCE_CLUE codes (0-3, or ``CLUE_BLANK``).  The bench plays the
firmware's search and reports, per case, what the registers said; the golden model
runs in the pytest process, which compares (tests/deduce/test_cocotb_band.py).
"""

import fcntl
import os
from dataclasses import dataclass
from pathlib import Path

from slitherlink.sim.cocotb.deduce import runner as deduce_runner
from slitherlink.sim.cocotb.deduce.runner import (BUILD_ARGS, BUILD_ROOT, MAKE_FLAGS, Result,
                                                  _key)
from slitherlink.sim.soc.build import verilator_environment

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
    from cocotb_tools.runner import get_runner

    from slitherlink.hw.deduce.band_engine import BandDeduceEngine
    engine = BandDeduceEngine(max_rows, max_cols, band=band, trail_depth=trail_depth)
    text = verilog.convert(engine, name=TOP, emit_src=False)
    build_dir = BUILD_ROOT / f"band-{max_rows}x{max_cols}-b{band}-{_key(text)}"
    build_dir.mkdir(parents=True, exist_ok=True)
    done = build_dir / "built"
    with open(build_dir / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            source = build_dir / f"{TOP}.v"
            source.write_text(text)
            verilator_environment()
            saved = os.environ.get("MAKEFLAGS")
            os.environ["MAKEFLAGS"] = MAKE_FLAGS  # the runner's make reads them
            try:
                get_runner("verilator").build(
                    sources=[source], hdl_toplevel=TOP, build_dir=build_dir, always=True,
                    build_args=BUILD_ARGS, log_file=build_dir / "build.log")
            finally:
                if saved is None:
                    del os.environ["MAKEFLAGS"]
                else:
                    os.environ["MAKEFLAGS"] = saved
            for header in build_dir.glob("*.gch"):   # only the compilation needs them
                header.unlink()
            done.touch()
    return Build(engine, build_dir)


def run(built, cases, *, name="bench"):
    """Run the bench on a :class:`Build` with ``cases`` (dicts as in the module docstring);
    the :class:`Result`'s report has ``id``, ``config`` and one ``results`` entry a case."""
    return deduce_runner.run(built, cases, name=name, bench=BENCH, top=TOP, env="BAND")
