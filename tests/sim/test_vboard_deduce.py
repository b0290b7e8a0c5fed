"""Deduce mode on the virtual board: the SoC's firmware drives the deduction engine
(hw/deduce/engine.py, firmware/src/deduce.c), and every DEDUCE_RESULT counter equals the
band model's (:func:`model.band.band_solve`: the search of :func:`model.deduce.solve`, the
flood and label iterations counted as passes), on corpus puzzles up to the build's 10x10:
unique, several solutions, none, a decision bound, and branching, through both of the
firmware's paths (deduce_run's short one and deduce_search()).  On the default board (band
1, the Arty's build) and, marked slow (two more SoC builds; the engine's own tests cover
both variants against the model in every run), on two other builds: band 4 (three words
at 10x10) and band 1 with the ECP5 builds' fast label network.  A build without the engine refuses deduce mode
(ERROR NO_DEDUCE) and keeps serving."""

import pytest

from slitherlink.host import device as B
from slitherlink.host import protocol as P
from slitherlink.host.engines.board import solve_on
from slitherlink.host.result import Status
from slitherlink.model.band import band_solve
from slitherlink.sim.vboard import VirtualBoard, build_design
from slitherlink.spec.protocol import DEDUCE_COUNTERS
from tests.conftest import load
from tests.sim import builds

#: the builds besides the default one: (band, label network)
BUILDS = {"default": None, "band4": {"band": 4}, "fast": {"label_network": "fast"}}


def band_model(puzzle, *, band=1, unique, max_decisions=None):
    """``(outcome, {counter: value})``: what a build's DEDUCE_RESULT must carry."""
    want = band_solve(puzzle, band=band, max_solutions=2 if unique else 1,
                      max_decisions=max_decisions)
    counters = want.counters()
    return want.outcome, {key: counters[key] for key in DEDUCE_COUNTERS}


@pytest.fixture(scope="module", params=[
    pytest.param(name, marks=() if name == "default" else pytest.mark.slow)
    for name in sorted(BUILDS)])
def build(request):
    """``(band, virtual board)`` of a build: the default one, or one of :data:`BUILDS`."""
    params = BUILDS[request.param]
    with VirtualBoard("soc", build=build_design("soc", params=params, quiet=True)) as vboard:
        yield (params or {}).get("band", 1), vboard


@pytest.fixture
def connection(build):
    band, vboard = build
    # at the start rate (--baud): see tests/sim/test_vboard.py's connection
    board = B.connect_to(vboard, rate=vboard.baud)
    try:
        yield band, board
    finally:
        board.close()


@pytest.fixture(scope="module")
def default_board():
    """The default virtual board (the Arty's 10x10 build, both modes)."""
    with VirtualBoard("soc", build=build_design("soc", quiet=True)) as vboard:
        with B.connect_to(vboard) as board:
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
def test_deduce_mode_counts_like_the_band_model(connection, name, unique, status,
                                                max_decisions):
    band, board = connection
    puzzle, solution = load(name)
    version = board.connect()
    assert version.deduce_ok and (version.max_rows, version.max_cols) == (10, 10)
    result = solve_on(board, puzzle, unique=unique, mode="deduce", max_decisions=max_decisions)
    model, counters = band_model(puzzle, band=band, unique=unique,
                                 max_decisions=max_decisions)
    check_result(result, status, model.solutions, counters, solution)


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


def test_both_modes_on_one_board(default_board):
    """A paper-mode SOLVE after a deduce-mode one, and back: each gets its own reply."""
    puzzle, solution = load("puzzleloop_5x5_medium_8118588")
    default_board.connect()
    for mode in ("deduce", "paper", "deduce"):
        result = solve_on(default_board, puzzle, unique=True, mode=mode)
        assert result.status is Status.SOLVED_UNIQUE and result.solution == solution
        assert ("decisions" in result.counters) == (mode == "deduce")
        assert ("checks" in result.counters) == (mode == "paper")


def test_a_build_without_the_engine_refuses_deduce_mode():
    """The firmware reads the engine's ID: 0 in a paper-only build (the small one,
    tests/sim/builds.py), so ERROR NO_DEDUCE."""
    puzzle, solution = load("edge_1x2_3")
    with VirtualBoard("soc", build=builds.small()) as vboard:
        with B.connect_to(vboard) as board:
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
def test_a_puzzle_solved_transposed_on_a_non_square_build():
    """A 12x10 build and the 10x12 pzpr_penpa_1: the host sends its transpose, the band
    engine solves that (every counter the band model's on the transposed puzzle), and the
    answer comes back transposed: the corpus's solution, checked on the puzzle asked."""
    from slitherlink.host.engines import get_engine
    build = build_design("soc", params={"max_rows": 12, "max_cols": 10},
                         quiet=True)
    puzzle, solution = load("pzpr_penpa_1")
    with VirtualBoard("soc", build=build) as vboard:
        result = get_engine("board")(puzzle, unique=True, port=vboard.port,
                                     baud=vboard.baud, mode="deduce")
    assert result.status is Status.SOLVED_UNIQUE and result.solution == solution
    assert result.counters["transposed"] is True
    _, counters = band_model(puzzle.transposed(), unique=True)
    assert {key: result.counters[key] for key in counters} == counters


@pytest.mark.slow  # a SoC build of its own; the clocks are equal in test_propagator.py too
def test_the_fast_label_network_takes_the_same_cycles():
    """The two label row networks compute the same labels in the same clocks
    (docs/deduce.md): every counter and the solve's exact cycles are
    equal on the two builds, on puzzles whose label runs end before, with and after
    their flood runs."""
    names = ["janko_0103", "janko_0285", "loopy_10x10_hard_01"]
    seen = {}
    for network in ("small", "fast"):
        build = build_design("soc", params={"label_network": network}, quiet=True)
        with VirtualBoard("soc", build=build) as vboard:
            with B.connect_to(vboard) as board:
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


@pytest.mark.slow
def test_every_corpus_puzzle_up_to_the_build_in_deduce_mode(corpus, record_property):
    """Every corpus puzzle up to 10x10, unique mode, on the default virtual board at 1
    Mbaud: the status agrees with the manifest's ``unique`` column, a unique solution is
    the ``.sol``, and every counter equals the band model's."""
    from slitherlink.spec.uart import FAST_BAUD
    from slitherlink.spec.target import PAPER_CLOCK_HZ
    wanted = {"yes": Status.SOLVED_UNIQUE, "no": Status.MULTIPLE, "unsat": Status.NO_SOLUTION}
    rows = [r for r in corpus if r["rows"] <= 10 and r["cols"] <= 10]
    assert len(rows) > 300
    build = build_design("soc", params={"clock_hz": PAPER_CLOCK_HZ, "baud": FAST_BAUD},
                         quiet=True)
    cycles = []
    with VirtualBoard("soc", build=build) as vboard:
        with B.connect_to(vboard) as board:
            board.connect()
            for row in rows:
                puzzle, solution = load(row["name"])
                result = solve_on(board, puzzle, unique=True, mode="deduce")
                _, counters = band_model(puzzle, unique=True)
                assert result.status is wanted[row["unique"]], row["name"]
                if result.status is Status.SOLVED_UNIQUE:
                    assert result.solution == solution, row["name"]
                for key in DEDUCE_COUNTERS:
                    assert result.counters[key] == counters[key], (row["name"], key)
                cycles.append(result.counters["cycles"])
    cycles.sort()
    record_property("deduce_cycles", {"puzzles": len(cycles), "median": cycles[len(cycles) // 2],
                                      "max": cycles[-1]})
    print(f"{len(cycles)} puzzles, solve cycles median "
          f"{cycles[len(cycles) // 2]}, max {cycles[-1]}")
