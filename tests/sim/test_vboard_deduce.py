"""Deduce mode on the virtual board: the SoC's firmware drives the deduction engine
(hw/deduce/engine.py, firmware/src/deduce.c), and every counter of its DEDUCE_RESULT
equals the golden model's (model.deduce.solve), on corpus puzzles up to the build's
10x10, unique and not, with no solution, several, and a decision bound.  A build
without the engine refuses deduce mode (ERROR NO_DEDUCE) and keeps serving."""

import pytest

from slitherlink.host import device as B
from slitherlink.host import protocol as P
from slitherlink.host.engines.board import solve_on
from slitherlink.host.result import Status
from slitherlink.model.deduce import solve
from slitherlink.sim.vboard import VirtualBoard, build_design
from slitherlink.spec.protocol import DEDUCE_COUNTERS
from tests.conftest import load


@pytest.fixture(scope="module")
def soc_board():
    """The default virtual board (the Arty's 10x10 at 50 MHz, with the deduction engine)."""
    with VirtualBoard("soc", build=build_design("soc", quiet=True)) as board:
        yield board


@pytest.fixture
def connection(soc_board):
    board = B.Connection(soc_board.port, baud=soc_board.baud, virtual=True)
    try:
        yield board
    finally:
        board.close()


@pytest.mark.parametrize("name, unique, status, max_decisions", [
    ("edge_1x2_3", True, Status.SOLVED_UNIQUE, None),
    ("edge_1x3_two_solutions", True, Status.MULTIPLE, None),
    ("edge_2x4_global_unsat", True, Status.NO_SOLUTION, None),
    ("edge_5x5_noclues", True, Status.MULTIPLE, None),        # decisions and backtracks
    ("edge_5x5_noclues", False, Status.LIMIT, 1),             # the decision bound
    ("puzzleloop_5x5_medium_8118588", True, Status.SOLVED_UNIQUE, None),
    ("edge_10x10_two_solutions", True, Status.MULTIPLE, None),
    ("janko_1165", True, Status.SOLVED_UNIQUE, None),        # 10x10, the build's largest
    ("janko_0751", False, Status.SOLVED, None),
])
def test_deduce_mode_counts_like_the_model(connection, name, unique, status, max_decisions):
    puzzle, solution = load(name)
    version = connection.connect()
    assert version.deduce_ok and (version.max_rows, version.max_cols) == (10, 10)
    result = solve_on(connection, puzzle, unique=unique, mode="deduce",
                              max_decisions=max_decisions)
    model = solve(puzzle, max_solutions=2 if unique else 1, max_decisions=max_decisions)
    check_result(result, status, model.solutions, model.counters.as_dict(), solution)


def check_result(result, status, solutions, counters, solution):
    """A DEDUCE_RESULT against the golden model's search: the status, every counter
    (``counters`` by DEDUCE_COUNTERS name), the first solution, the ``.sol`` of a unique
    puzzle, and the engine's own clocks within the solve's cycles."""
    assert result.status is status, result.message
    for key in DEDUCE_COUNTERS:
        assert result.counters[key] == counters[key], key
    if status.solved:
        assert result.solution == solutions[0]
    if status is Status.SOLVED_UNIQUE:
        assert result.solution == solution
    assert 0 < result.counters["engine_clocks"] < result.counters["cycles"]


def test_both_modes_on_one_board(connection):
    """A paper-mode SOLVE after a deduce-mode one, and back: each gets its own reply."""
    puzzle, solution = load("puzzleloop_5x5_medium_8118588")
    connection.connect()
    for mode in ("deduce", "paper", "deduce"):
        result = solve_on(connection, puzzle, unique=True, mode=mode)
        assert result.status is Status.SOLVED_UNIQUE and result.solution == solution
        assert ("decisions" in result.counters) == (mode == "deduce")
        assert ("checks" in result.counters) == (mode == "paper")


def test_a_build_without_the_engine_refuses_deduce_mode():
    """The firmware reads the engine's ID: 0 in a paper-only build, so ERROR NO_DEDUCE."""
    build = build_design("soc", params={"max_rows": 4, "max_cols": 4, "deduce": 0},
                         quiet=True)
    puzzle, solution = load("edge_1x2_3")
    with VirtualBoard("soc", build=build) as vboard:
        with B.Connection(vboard.port, baud=vboard.baud, virtual=True) as board:
            assert not board.connect().deduce_ok
            # asked directly, past the host's own check
            board.send(P.encode_solve(puzzle, mode="deduce"))
            reply = board.receive(lambda r: r if isinstance(r, P.ErrorReply) else None, 60)
            assert reply is not None and reply.code == P.ErrorCode.NO_DEDUCE
            with pytest.raises(B.NoDeduceEngine, match="no deduction engine"):
                solve_on(board, puzzle, mode="deduce")
            # and it keeps serving paper mode
            result = solve_on(board, puzzle, unique=True, mode="paper")
            assert result.status is Status.SOLVED_UNIQUE and result.solution == solution


@pytest.mark.slow
@pytest.mark.parametrize("band", [0, 1])
def test_every_corpus_puzzle_up_to_the_build_in_deduce_mode(corpus, record_property, band):
    """Every corpus puzzle up to 10x10, unique mode, on the virtual board at 1 Mbaud, with
    the fully parallel engine (band 0) and the band engine (band 1): the status agrees
    with the manifest's ``unique`` column, a unique solution is the ``.sol``, and every
    counter equals the golden model's (``model.deduce.solve``; ``model.band.band_solve``
    for the band engine)."""
    from slitherlink.spec.board import FAST_BAUD, PAPER_CLOCK_HZ
    from tests.sim.test_vboard_band import band_model
    wanted = {"yes": Status.SOLVED_UNIQUE, "no": Status.MULTIPLE, "unsat": Status.NO_SOLUTION}
    rows = [r for r in corpus if r["rows"] <= 10 and r["cols"] <= 10]
    assert len(rows) > 300
    build = build_design("soc", params={"clock_hz": PAPER_CLOCK_HZ, "baud": FAST_BAUD,
                                        "band": band}, quiet=True)
    cycles = []
    with VirtualBoard("soc", build=build) as vboard:
        with B.Connection(vboard.port, baud=vboard.baud, virtual=True) as board:
            board.connect()
            for row in rows:
                puzzle, solution = load(row["name"])
                result = solve_on(board, puzzle, unique=True, mode="deduce")
                if band:
                    _, counters = band_model(puzzle, band=band, unique=True)
                else:
                    counters = solve(puzzle, max_solutions=2).counters.as_dict()
                assert result.status is wanted[row["unique"]], row["name"]
                if result.status is Status.SOLVED_UNIQUE:
                    assert result.solution == solution, row["name"]
                for key in DEDUCE_COUNTERS:
                    assert result.counters[key] == counters[key], (row["name"], key)
                cycles.append(result.counters["cycles"])
    cycles.sort()
    record_property("deduce_cycles", {"puzzles": len(cycles), "median": cycles[len(cycles) // 2],
                                      "max": cycles[-1]})
    print(f"band {band}: {len(cycles)} puzzles, solve cycles median "
          f"{cycles[len(cycles) // 2]}, max {cycles[-1]}")
