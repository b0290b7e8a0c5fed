"""The accelerator's generated Verilog under cocotb + Verilator (sim/cocotb/accelerator/).

The bench drives the bus with the addresses and masks of the generated C
header and compares with the golden model: random states, then the states of
real searches.  One small build in the default run; bigger ones under slow.
"""


import pytest

from slitherlink.sim.cocotb.accelerator import runner


def test_cocotb_accelerator_5x6():
    passed, failed, log = runner.run(5, 6, states=300, seed=1,
                                     puzzles=("janko_0006", "edge_3x3_noclues", "edge_1x5_ends",
                                              "edge_2x4_global_unsat"),
                                     max_checks=400, name="default")
    assert (passed, failed) == (3, 0), f"see {log}"
    text = log.read_text()
    assert "300 random states, 600 floods" in text


def test_cocotb_bench_reports_failures():
    """A puzzle larger than the build must fail the bench (the harness can fail)."""
    passed, failed, log = runner.run(5, 6, states=1, puzzles=("loopy_7x7_normal_01",),
                                     name="must-fail")
    assert (passed, failed) == (2, 1), f"see {log}"


@pytest.mark.slow
def test_cocotb_accelerator_10x10():
    passed, failed, log = runner.run(10, 10, states=2000, seed=2,
                                     puzzles=("janko_0014", "loopy_7x7_normal_01",
                                              "pzpr_penpa_3", "edge_5x5_noclues",
                                              "edge_10x10_two_solutions"),
                                     max_checks=3000, name="slow")
    assert (passed, failed) == (3, 0), f"see {log}"
