"""Deduce mode on a virtual board with the band engine (hw/deduce/band_engine.py): the
same firmware and protocol as the fully parallel engine, and every DEDUCE_RESULT counter
equals the band golden model's (model.band.band_solve: the search of model.deduce.solve,
flood_iterations and label_iterations counted as band passes), on corpus puzzles up to
the build's 10x10 (bands 1 and 4): unique, several solutions, none, a decision bound, and
branching, through both of the firmware's paths (deduce_run's short one and
deduce_search())."""

import pytest

from slitherlink.host import device as B
from slitherlink.host.engines.board import solve_on
from slitherlink.host.result import Status
from slitherlink.model.band import band_solve
from slitherlink.sim.vboard import VirtualBoard, build_design
from slitherlink.spec.protocol import DEDUCE_COUNTERS
from tests.conftest import load
from tests.sim.test_vboard_deduce import check_result

#: the counters the band engine counts as passes, and the model's names for them
PASSES = {"flood_iterations": "flood_passes", "label_iterations": "label_passes"}


def band_model(puzzle, *, band, unique, max_decisions=None):
    """``(outcome, {counter: value})``: what a band build's DEDUCE_RESULT must carry."""
    want = band_solve(puzzle, band=band, max_solutions=2 if unique else 1,
                      max_decisions=max_decisions)
    counters = {key: getattr(want.outcome.counters, key) for key in DEDUCE_COUNTERS}
    counters.update({key: getattr(want.band, name) for key, name in PASSES.items()})
    return want.outcome, counters


@pytest.fixture(scope="module", params=[(1, "small"), (4, "small"), (1, "fast")],
                ids=["band1", "band4", "band1-fast"])
def band_build(request):
    """The band height of the build and its label row network: one framed row a word
    (the build that fits the XC7A35T), four (three words at 10x10: docs/deduce.md
    section 12.11), and one with the ECP5 builds' fast label network (section 12.17)."""
    return request.param


@pytest.fixture(scope="module")
def band(band_build):
    return band_build[0]


@pytest.fixture(scope="module")
def band_board(band_build):
    """A 10x10 build at 50 MHz with the band engine of ``band`` framed rows a word."""
    band, network = band_build
    build = build_design("soc", params={"band": band, "label_network": network}, quiet=True)
    with VirtualBoard("soc", build=build) as vboard:
        with B.Connection(vboard.port, baud=vboard.baud, virtual=True) as board:
            yield board


@pytest.mark.parametrize("name, unique, status, max_decisions", [
    ("edge_1x2_3", True, Status.SOLVED_UNIQUE, None),
    ("edge_1x3_two_solutions", True, Status.MULTIPLE, None),
    ("edge_2x4_global_unsat", True, Status.NO_SOLUTION, None),
    ("edge_5x5_noclues", True, Status.MULTIPLE, None),        # decisions and backtracks
    ("edge_5x5_noclues", False, Status.LIMIT, 1),             # the decision bound
    ("edge_10x10_two_solutions", True, Status.MULTIPLE, None),
    ("janko_0103", True, Status.SOLVED_UNIQUE, None),        # 10x10, 3 decisions
    ("janko_1165", True, Status.SOLVED_UNIQUE, None),
    ("janko_0285", True, Status.SOLVED_UNIQUE, None),        # no branch, but the first DEDUCE
                                                             # outlasts deduce_run's short path
    ("janko_0751", False, Status.SOLVED, None),
])
def test_band_engine_counts_like_the_band_model(band_board, band, name, unique, status,
                                                max_decisions):
    puzzle, solution = load(name)
    version = band_board.connect()
    assert version.deduce_ok and (version.max_rows, version.max_cols) == (10, 10)
    result = solve_on(band_board, puzzle, unique=unique, mode="deduce",
                              max_decisions=max_decisions)
    model, counters = band_model(puzzle, band=band, unique=unique,
                                 max_decisions=max_decisions)
    check_result(result, status, model.solutions, counters, solution)


def test_paper_mode_on_the_band_build(band_board):
    """The paper's accelerator beside the band engine still serves paper mode."""
    puzzle, solution = load("puzzleloop_5x5_medium_8118588")
    band_board.connect()
    for mode in ("deduce", "paper"):
        result = solve_on(band_board, puzzle, unique=True, mode=mode)
        assert result.status is Status.SOLVED_UNIQUE and result.solution == solution


@pytest.mark.slow
def test_a_puzzle_solved_transposed_on_a_non_square_build():
    """A 12x10 build and the 10x12 pzpr_penpa_1: the host sends its transpose, the band
    engine solves that (every counter the band model's on the transposed puzzle), and the
    answer comes back transposed: the corpus's solution, checked on the puzzle asked."""
    from slitherlink.host.engines import get_engine
    build = build_design("soc", params={"band": 1, "max_rows": 12, "max_cols": 10},
                         quiet=True)
    puzzle, solution = load("pzpr_penpa_1")
    with VirtualBoard("soc", build=build) as vboard:
        result = get_engine("board")(puzzle, unique=True, port=vboard.port,
                                     baud=vboard.baud, mode="deduce")
    assert result.status is Status.SOLVED_UNIQUE and result.solution == solution
    assert result.counters["transposed"] is True
    _, counters = band_model(puzzle.transposed(), band=1, unique=True)
    assert {key: result.counters[key] for key in counters} == counters


def test_the_fast_label_network_takes_the_same_cycles():
    """The two label row networks compute the same labels in the same clocks
    (docs/deduce.md section 12.17): every counter and the solve's exact cycles are
    equal on the two builds, on puzzles whose label runs end before, with and after
    their flood runs."""
    names = ["janko_0103", "janko_0285", "loopy_10x10_hard_01"]
    seen = {}
    for network in ("small", "fast"):
        build = build_design("soc", params={"band": 1, "label_network": network}, quiet=True)
        with VirtualBoard("soc", build=build) as vboard:
            with B.Connection(vboard.port, baud=vboard.baud, virtual=True) as board:
                board.connect()
                for name in names:
                    puzzle, solution = load(name)
                    result = solve_on(board, puzzle, unique=True, mode="deduce")
                    assert result.solution == solution
                    seen[network, name] = {key: result.counters[key] for key in
                                           ("cycles", "engine_clocks", *DEDUCE_COUNTERS)}
    for name in names:
        assert seen["fast", name] == seen["small", name]
        assert seen["small", name]["label_iterations"] > 0
