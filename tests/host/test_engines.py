"""The software peers (host/engines: sat, z3, ip, cpsat; and model, in both of its modes)
against the corpus, exhaustive search and each other; their limits and options."""

import itertools
import random
import time
from functools import cache

import pytest

from slitherlink.host.check import check
from slitherlink.host.engines import ENGINES, Status, get_engine
from slitherlink.host.engines._edges import MAX_SOLUTIONS_CAP, Lattice, loop_solutions
from slitherlink.host.engines.ip import starting_rule_cuts
from slitherlink.host.engines.sat import encode, exactly
from slitherlink.host.puzzle import Puzzle
from tests.conftest import load, manifest

PEERS = ("sat", "z3", "ip", "cpsat")
# the peers and the golden models: "model" in its default mode (the deduction engine's,
# also as its alias "deduce") and "model:paper", the paper's search (the board, registered
# too, has its own tests: tests/host/test_board_host.py, tests/sim/test_vboard.py)
ALL = tuple(name for name in ENGINES if name != "board") + ("model:paper",)
EDGE_CASES = [row["name"] for row in manifest() if row["name"].startswith("edge_")]
TENS = ["janko_0625", "janko_0853", "loopy_10x10_tricky_04"]
EXPECTED = {"yes": Status.SOLVED_UNIQUE, "no": Status.MULTIPLE, "unsat": Status.NO_SOLUTION}


def solver(spec):
    """The checked solve of engine ``name`` or ``name:mode``."""
    name, _, mode = spec.partition(":")
    return get_engine(name, mode=mode or None)


def row_of(name):
    return next(r for r in manifest() if r["name"] == name)


def assert_answer(engine, name, result):
    row = row_of(name)
    puzzle, solution = load(name)
    assert result.engine == engine.partition(":")[0]
    if ":" in engine:
        assert result.mode == engine.partition(":")[2]
    assert result.status is EXPECTED[row["unique"]], (name, result.status, result.message)
    if row["unique"] == "yes":
        assert result.solution == solution
    if row["unique"] == "no":
        assert len(result.solutions) == 2 and result.solutions[0] != result.solutions[1]
        assert all(check(puzzle, s).ok for s in result.solutions)
    if row["unique"] == "unsat":
        assert result.solution is None and result.solutions == []


# -- the corpus --------------------------------------------------------------------------

def test_the_sample_exists(corpus):
    names = {r["name"] for r in corpus}
    assert len(EDGE_CASES) == 18
    assert {r["unique"] for r in corpus if r["name"] in EDGE_CASES} == {"yes", "no", "unsat"}
    assert set(TENS) <= names


@pytest.mark.parametrize("engine", ALL)
def test_degenerate_cases(engine, corpus):
    """All 18 degenerate puzzles: no solution, one, several (manifest 'unique')."""
    solve = solver(engine)
    for name in EDGE_CASES:
        puzzle, _ = load(name)
        assert_answer(engine, name, solve(puzzle, unique=True, time_limit=60))


@pytest.mark.parametrize("engine", ALL)
@pytest.mark.parametrize("name", TENS)
def test_ten_by_ten(engine, name, corpus):
    puzzle, _ = load(name)
    assert_answer(engine, name, solver(engine)(puzzle, unique=True, time_limit=60))


@pytest.mark.parametrize("engine", PEERS)
def test_without_unique_a_solution_is_not_called_unique(engine, corpus):
    puzzle, solution = load("janko_0625")
    result = get_engine(engine)(puzzle, time_limit=60)
    assert result.status is Status.SOLVED and result.solution == solution
    assert result.seconds > 0 and result.counters


@pytest.mark.parametrize("engine", ["sat", "cpsat"])
def test_large_puzzles(engine, corpus):
    """The fast peers on the largest class (30x45) and a 20x36: unique and correct."""
    for name in ("janko_0100", "loopy_20x36_hard_01"):
        puzzle, _ = load(name)
        assert_answer(engine, name, get_engine(engine)(puzzle, unique=True, time_limit=60))


# -- time limits ---------------------------------------------------------------------------

#: (engine, puzzle, limit in seconds): each measured to need far more than the limit.
LIMITS = [
    ("sat", "loopy_60x60_hard_02", 0.001),   # ~0.6 s: the limit ends it before the first call
    ("z3", "loopy_20x36_hard_01", 0.5),      # tens of seconds
    ("ip", "janko_0742", 0.5),               # > 30 s
    ("cpsat", "loopy_60x60_hard_02", 0.05),  # ~4 s
]


@pytest.mark.parametrize("engine,name,limit", LIMITS)
def test_a_tiny_time_limit_ends_in_limit(engine, name, limit, corpus):
    puzzle, _ = load(name)
    start = time.perf_counter()
    result = get_engine(engine)(puzzle, unique=True, time_limit=limit)
    wall = time.perf_counter() - start
    assert result.status is Status.LIMIT, (result.status, result.message)
    assert "time limit" in result.message and result.solution is None
    assert wall < limit + 15, f"{engine} overran its {limit} s limit: {wall:.1f} s"


@pytest.mark.parametrize("engine", PEERS)
def test_time_limit_must_be_positive(engine):
    with pytest.raises(ValueError, match="time limit"):
        get_engine(engine)(Puzzle([[None]]), time_limit=0)


# -- enumeration -------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["edge_1x3_two_solutions", "edge_10x10_two_solutions"])
def test_sat_enumerates_exactly_the_two_solutions(name, corpus):
    puzzle, solution = load(name)
    result = get_engine("sat")(puzzle, max_solutions=100, time_limit=60)
    assert result.status is Status.MULTIPLE
    assert len(result.solutions) == 2 and len(set(result.solutions)) == 2
    assert solution in result.solutions
    assert all(check(puzzle, s).ok for s in result.solutions)


@pytest.mark.parametrize("engine", PEERS)
def test_enumeration_stops_at_max_solutions(engine, corpus):
    puzzle, _ = load("edge_3x3_noclues")
    result = get_engine(engine)(puzzle, max_solutions=5, time_limit=60)
    assert result.status is Status.MULTIPLE and len(set(result.solutions)) == 5
    assert all(check(puzzle, s).ok for s in result.solutions)
    one = get_engine(engine)(puzzle, max_solutions=1, time_limit=60)
    assert one.status is Status.SOLVED and len(one.solutions) == 1


@pytest.mark.parametrize("engine", PEERS)
def test_bad_max_solutions(engine):
    with pytest.raises(ValueError, match="max_solutions"):
        get_engine(engine)(Puzzle([[None]]), max_solutions=0)


def test_huge_max_solutions_is_capped():
    result = get_engine("sat")(Puzzle([[None] * 2]), max_solutions=10 ** 9, time_limit=60)
    assert f"capped at {MAX_SOLUTIONS_CAP}" in result.message
    assert result.status is Status.MULTIPLE and len(result.solutions) == 3   # 1x2: 3 loops


# -- exhaustive search as the oracle -----------------------------------------------------

def brute_force(puzzle):
    """Every solution, by checking all 2^(R*C) colourings with the rules checker."""
    rows, cols = puzzle.rows, puzzle.cols
    out = set()
    for bits in itertools.product((False, True), repeat=rows * cols):
        colouring = tuple(tuple(bits[r * cols:(r + 1) * cols]) for r in range(rows))
        if check(puzzle, colouring).ok:
            out.add(colouring)
    return out


@cache
def random_puzzles():
    """Small puzzles: clues revealed from a random solution, some made contradictory,
    plus the cases where the 'adjacent 3s' starting rule is false (seed 000 5.3)."""
    rng = random.Random(2020)
    puzzles = [Puzzle([[3, 3]]), Puzzle([[3], [3]]), Puzzle([[3, 3], [None, None]]),
               Puzzle([[None, 3, 3], [None, None, None]]), Puzzle([[3, 3, None]]),
               Puzzle([[2, 3], [3, 2]]), Puzzle([[3, None], [None, 3]]),
               Puzzle([[None] * 3] * 3), Puzzle([[None] * 4] * 2)]   # many solutions
    for size in [(1, 3), (2, 2), (2, 3), (3, 2), (3, 3), (2, 4), (1, 4), (3, 3), (2, 3)] * 3:
        rows, cols = size
        solutions = sorted(brute_force(Puzzle([[None] * cols] * rows)))
        target = rng.choice(solutions)
        share = rng.choice((0.3, 0.6, 0.9))
        clues = [[None] * cols for _ in range(rows)]
        for r in range(rows):
            for c in range(cols):
                if rng.random() < share:
                    me = target[r][c]
                    lines = sum(
                        (0 <= r + dr < rows and 0 <= c + dc < cols and target[r + dr][c + dc])
                        != me for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)))
                    clues[r][c] = lines if lines < 4 else None
        if rng.random() < 0.25:                       # perhaps make it contradictory
            r, c = rng.randrange(rows), rng.randrange(cols)
            clues[r][c] = rng.randrange(4)
        puzzles.append(Puzzle(clues))
    return [(p, frozenset(brute_force(p))) for p in puzzles]


@pytest.mark.parametrize("engine", PEERS)
def test_every_solution_of_small_puzzles(engine):
    """Enumerating finds exactly the solutions exhaustive search finds."""
    solve = get_engine(engine)
    cap = 20
    for puzzle, truth in random_puzzles():
        result = solve(puzzle, max_solutions=cap, time_limit=60)
        found = set(result.solutions)
        assert len(found) == len(result.solutions), "a solution was reported twice"
        assert found <= truth, (engine, str(puzzle))
        if len(truth) <= cap:
            assert found == truth, (engine, str(puzzle), len(found), len(truth))
        else:
            assert len(found) == cap
        expected = {0: Status.NO_SOLUTION, 1: Status.SOLVED_UNIQUE}.get(len(truth),
                                                                          Status.MULTIPLE)
        assert result.status is expected, (engine, str(puzzle))


def test_the_small_puzzles_cover_every_outcome():
    counts = [len(truth) for _, truth in random_puzzles()]
    assert 0 in counts and 1 in counts and max(counts) > 20
    assert sum(c >= 2 for c in counts) >= 5


# -- the shared geometry, the encodings and the starting rules ------------------------------

def test_lattice_numbering():
    lat = Lattice(2, 3)
    assert lat.num_points == 12 and lat.num_edges == 3 * 3 + 2 * 4
    assert {e for r in range(2) for c in range(3) for e in lat.cell_edges(r, c)} \
        == set(range(lat.num_edges))
    assert lat.ends[lat.h(1, 2)] == (lat.point(1, 2), lat.point(1, 3))
    assert lat.ends[lat.v(1, 3)] == (lat.point(1, 3), lat.point(2, 3))
    assert sorted(len(es) for es in lat.point_edges) == [2] * 4 + [3] * 6 + [4] * 2


def test_colourings_and_edges_round_trip(corpus):
    for row in corpus[::7]:
        puzzle, solution = load(row["name"])
        if solution is None:
            continue
        lat = Lattice(puzzle.rows, puzzle.cols)
        edges = lat.edges_of(solution)
        assert lat.colouring(edges) == solution
        assert len(lat.loops(edges)) == 1
        for r, c in puzzle.clue_cells():
            assert sum(e in edges for e in lat.cell_edges(r, c)) == puzzle.clues[r][c]


def test_loops_are_split_and_bad_degrees_refused():
    lat = Lattice(3, 3)
    a = lat.edges_of(((True, False, False), (False, False, False), (False, False, False)))
    b = lat.edges_of(((False, False, False), (False, False, False), (False, False, True)))
    loops = lat.loops(a | b)
    assert sorted(map(frozenset, loops), key=min) == sorted([a, b], key=min)
    assert lat.colouring(a | b) == ((True, False, False), (False, False, False),
                                    (False, False, True))
    with pytest.raises(ValueError, match="lines"):
        lat.loops({lat.h(0, 0), lat.h(0, 1)})


def test_loop_solutions_follows_seed_001():
    a, b, c = [1, 2], [3, 4], [5, 6]
    assert loop_solutions([a], frozenset()) == [a]
    assert loop_solutions([a, b, c], frozenset({3})) == [b]          # only b touches a clue
    assert loop_solutions([a, b, c], frozenset()) == [a, b, c]       # none does: each one
    assert loop_solutions([a, b, c], frozenset({1, 5})) == []        # two do: none


def test_sat_clue_encoding_is_exact():
    """The direct encoding admits exactly the side sets with d lines."""
    from pysat.solvers import Solver
    for d in range(4):
        with Solver(name="cadical195", bootstrap_with=exactly([1, 2, 3, 4], d)) as sat:
            models = [set(m) for m in sat.enum_models()]
        ones = sorted(sum(x > 0 for x in m) for m in models)
        assert ones == [d] * len(ones) and len(ones) == [1, 4, 6, 4][d]
    assert len(encode(Puzzle([[2]]))) == 8 + 4 * 2 + 1    # clue, 4 corners, "a loop"


def test_starting_rules_hold_on_every_corpus_solution(corpus):
    total = 0
    for row in corpus:
        puzzle, solution = load(row["name"])
        if solution is None:
            continue
        lat = Lattice(puzzle.rows, puzzle.cols)
        edges = lat.edges_of(solution)
        lines, empty = starting_rule_cuts(puzzle, lat)
        assert lines <= edges and not empty & edges, row["name"]
        total += len(lines) + len(empty)
    assert total > 10_000


def test_adjacent_threes_rule_is_skipped_for_the_domino():
    lat = Lattice(1, 2)
    lines, _ = starting_rule_cuts(Puzzle([[3, 3]]), lat)
    assert lat.v(0, 1) not in lines                  # the middle side is not drawn
    lat = Lattice(3, 2)
    lines, _ = starting_rule_cuts(Puzzle([[0, None], [3, 3], [None, None]]), lat)
    assert {lat.v(1, 0), lat.v(1, 1), lat.v(1, 2)} <= lines


# -- options -------------------------------------------------------------------------------

def test_engine_options(corpus):
    puzzle, solution = load("janko_0625")
    for engine, options in (("sat", {"solver": "glucose4"}), ("cpsat", {"workers": 2}),
                            ("cpsat", {"degree": False}), ("ip", {"starting_rules": False}),
                            ("ip", {"objective": "none"}), ("z3", {"seed": 7})):
        result = get_engine(engine)(puzzle, unique=True, time_limit=60, **options)
        assert result.status is Status.SOLVED_UNIQUE and result.solution == solution, \
            (engine, options)
    with pytest.raises(ValueError, match="SAT solver"):
        get_engine("sat")(puzzle, solver="nope")
    with pytest.raises(ValueError, match="objective"):
        get_engine("ip")(puzzle, objective="nope")
    with pytest.raises(ValueError, match="workers"):
        get_engine("cpsat")(puzzle, workers=0)


def test_glucose_is_interrupted_by_the_time_limit(corpus):
    puzzle, _ = load("loopy_60x60_hard_02")
    result = get_engine("sat")(puzzle, unique=True, time_limit=0.001, solver="glucose4")
    assert result.status is Status.LIMIT


@pytest.mark.parametrize("engine", PEERS)
def test_a_loop_that_avoids_row_1(engine):
    """The paper's SMT root sits in row 1 (section 4.4); here row 1 is all outside."""
    puzzle = Puzzle([[None, 0, None], [None, None, None], [None, 3, None]])
    result = get_engine(engine)(puzzle, unique=True, time_limit=60)
    assert result.status is Status.MULTIPLE
    assert all(not any(s[0]) for s in result.solutions)
    only = get_engine(engine)(Puzzle([[0, 0], [None, None], [3, 3]]), unique=True,
                              time_limit=60)
    assert only.status is Status.SOLVED_UNIQUE
    assert only.solution == ((False, False), (False, False), (True, True))


def test_the_model_engine_has_a_default_time_limit(monkeypatch):
    """Without ``time_limit`` the golden models stop at the model engine's default bound
    (a blank 60x60 runs for minutes in deduce mode), with a message that names it."""
    from slitherlink.host.engines import model as model_engine
    monkeypatch.setattr(model_engine, "DEFAULT_TIME_LIMIT", 0.001)
    blank = Puzzle([[None] * 60 for _ in range(60)])
    result = get_engine("model")(blank, unique=True)
    assert result.status is Status.LIMIT and result.solution is None
    assert "time limit of 0.001 s" in result.message and "default" in result.message
    # paper mode hands the same bound to the search as its deadline
    deadlines = []
    real_search = model_engine.search

    def search(puzzle, **options):
        deadlines.append(options["deadline"] - time.monotonic())
        return real_search(puzzle, **options)

    monkeypatch.setattr(model_engine, "search", search)
    get_engine("model", mode="paper")(Puzzle([[3, None], [None, None]]), unique=True)
    assert len(deadlines) == 1 and 0 < deadlines[0] <= 0.001
