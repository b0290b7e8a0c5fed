"""The whole SoC (PicoRV32 + firmware + UART + accelerator) under cocotb and Verilator.

The SoC of a target (paper mode only, the UART starting at clock/8 per bit) is compiled by
:func:`sim.cocotb.runner.build_target` and the tests of ``cocotb_soc.py`` drive its pins
through a UART model.  Answers must equal
the .sol files and every counter must equal model.paper.search's; malformed
frames get ERROR frames and the next request is served; SOLVEs queue behind a running
search; SET_BAUD switches both ends to a rate of a fractional bit time.  One Verilator build
(4x4, the smallest grid the puzzles need: it builds in about half the CPU time of an 8x8)
is shared by the default tests of this module; the slow tests use a 10x10 build (the
paper's size), whose long searches also run the queue, BUSY and ABORT of
``modes_and_limits`` (no 4x4 search runs long enough for them: a few hundred checks).
"""

import json

import pytest

from slitherlink.hw.soc import TOP_NAME
from slitherlink.sim.cocotb import runner
from slitherlink.spec.target import DEFAULT_TARGET, get_board
from slitherlink.spec.uart import max_baud
from tests.conftest import PUZZLES

#: Small puzzles for the default run: no solution, two solutions, no clues, 1x2 .. 4x4.
PUZZLE_SET = ["edge_1x2_3", "edge_2x4_global_unsat", "edge_1x3_two_solutions",
              "edge_3x3_noclues", "edge_2x2_22_22", "janko_0008", "janko_0002", "janko_0003"]
#: More puzzles (slow, 10x10 build): up to a few thousand checks each.
SLOW_SET = ["edge_5x5_noclues", "edge_2x5_local_unsat", "janko_0005", "janko_0032",
            "janko_1165", "janko_0751", "janko_0454", "janko_0891", "loopy_7x7_normal_03",
            "janko_0748", "janko_1142", "janko_0921", "janko_0071"]
#: a puzzle of the default build whose search runs past a check limit of 37 (542 checks)
LIMITED = "janko_0003"
#: a puzzle whose search runs for more than 300k checks (for the queue and ABORT): 10x10
LONG = "janko_0101"
#: the SoC under test: the paper's accelerator alone, the UART starting at clock/8 per bit
TARGET = DEFAULT_TARGET.replace(deduce=False, max_rows=4, max_cols=4, clock_hz=50_000_000,
                                baud=6_250_000)
BENCH = "tests.sim.cocotb_soc"


class SocSim:
    """A target's SoC built for cocotb: :meth:`run` runs one test of ``cocotb_soc.py``."""

    def __init__(self, target):
        self.target = target
        self.directory = runner.build_target(target)

    def run(self, testcase, **env):
        t = self.target
        result = runner.run(self.directory, BENCH, top=TOP_NAME, testcase=testcase,
                            name=testcase, env={"SOC_CLOCK_HZ": t.clock_hz, "SOC_BAUD": t.baud,
                                                "SOC_MAX_BAUD": max_baud(
                                                    t.uart_clock_hz,
                                                    get_board(t.board).bridge_max_baud, t.baud),
                                                "SOC_MAX_ROWS": t.max_rows,
                                                "SOC_MAX_COLS": t.max_cols, **env})
        return result.passed, result.failed, result.log


@pytest.fixture(scope="module")
def sim():
    return SocSim(TARGET)


@pytest.fixture(scope="module")
def sim10():
    return SocSim(TARGET.replace(max_rows=10, max_cols=10))


def run(sim, testcase, **env):
    passed, failed, log = sim.run(testcase, **env)
    assert failed == 0 and passed == 1, f"cocotb test {testcase} failed; see {log}"
    return log


def test_version(sim):
    run(sim, "version")


def test_solve_puzzles(sim, tmp_path):
    report = tmp_path / "report.json"
    run(sim, "solve_puzzles", SOC_PUZZLES=",".join(PUZZLE_SET), SOC_REPORT=report,
        SLK_PUZZLES=PUZZLES)
    rows = json.loads(report.read_text())
    assert [r["name"] for r in rows] == PUZZLE_SET
    statuses = {r["name"]: r["status"] for r in rows}
    assert statuses["edge_2x4_global_unsat"] == "NO_SOLUTION"
    assert statuses["edge_1x3_two_solutions"] == "MULTIPLE"
    assert statuses["janko_0003"] == "SOLVED_UNIQUE"


def test_modes_and_limits(sim):
    """Unique off and on, the check limit.  The queue, BUSY and ABORT during a long search
    run on the 10x10 build under slow, and in every run on the virtual board's default
    build (tests/sim/test_link_vboard.py: test_the_queue_full_and_empty,
    test_abort_empties_the_queue_and_forgets_the_answers, whose aborted search's counters
    equal the model's)."""
    run(sim, "modes_and_limits", SLK_PUZZLES=PUZZLES, SOC_LIMITED_PUZZLE=LIMITED)


def test_malformed_frames(sim):
    run(sim, "malformed_frames", SLK_PUZZLES=PUZZLES)


def test_set_baud(sim):
    run(sim, "set_baud", SLK_PUZZLES=PUZZLES)


@pytest.mark.slow
def test_solve_more_puzzles_10x10(sim10, tmp_path):
    report = tmp_path / "report.json"
    run(sim10, "solve_puzzles", SOC_PUZZLES=",".join(SLOW_SET), SOC_REPORT=report,
        SLK_PUZZLES=PUZZLES, SOC_TIMEOUT_MS=20000)
    assert len(json.loads(report.read_text())) == len(SLOW_SET)


@pytest.mark.slow
def test_modes_and_limits_10x10(sim10):
    run(sim10, "modes_and_limits", SLK_PUZZLES=PUZZLES, SOC_LIMITED_PUZZLE=LONG,
        SOC_LONG_PUZZLE=LONG)


@pytest.mark.slow
def test_malformed_frames_10x10(sim10):
    run(sim10, "malformed_frames", SLK_PUZZLES=PUZZLES)
