"""The golden model (model/paper.py) against the corpus, exhaustive search and its own blocks."""

import itertools
import random
from collections import deque
from functools import cache

import pytest
from hypothesis import given, settings, strategies as st

from slitherlink.host.check import check
from slitherlink.host.puzzle import Puzzle, parse_plain
from slitherlink.spec.combinations import Attribute, combinations
from slitherlink.model.paper import FloodMode, Geometry, flood, partial_condition, pick, search
from tests.conftest import REPO, load, manifest

#: Per-puzzle budget of the corpus test; the rest is run by the benchmark.
CI_MAX_CHECKS = 4_000_000

SMALL = [row["name"] for row in manifest() if row["cells"] <= 100]


def expected_verdict(row):
    return {"yes": "unique", "no": "several", "unsat": "none"}[row["unique"]]


@pytest.mark.parametrize("name", SMALL)
def test_corpus_up_to_10x10(name, corpus):
    row = next(r for r in corpus if r["name"] == name)
    puzzle, solution = load(name)
    result = search(puzzle, max_solutions=2, max_checks=CI_MAX_CHECKS)
    for found in result.solutions:
        assert check(puzzle, found).ok
    if result.limit_reached:
        assert len(result.solutions) <= 1 and result.solutions in ([], [solution])
        pytest.skip(f"beyond the CI budget of {CI_MAX_CHECKS} checks (see make bench)")
    verdict = {0: "none", 1: "unique", 2: "several"}[len(result.solutions)]
    assert verdict == expected_verdict(row)
    if verdict == "unique":
        assert result.solutions[0] == solution
    if verdict == "several" and row["cells"] <= 12:
        # the corpus's solution is one of them (enumerating all is cheap only when small)
        assert solution in search(puzzle, max_solutions=None).solutions


@pytest.mark.slow
@pytest.mark.parametrize("name", [row["name"] for row in manifest() if 100 < row["cells"] <= 400])
def test_corpus_larger(name, corpus):
    row = next(r for r in corpus if r["name"] == name)
    puzzle, solution = load(name)
    result = search(puzzle, max_solutions=2, max_checks=50_000_000)
    if result.limit_reached:
        pytest.skip("beyond 50M checks")
    assert len(result.solutions) == 1 and row["unique"] == "yes"
    assert result.solutions[0] == solution


# -- exhaustive search: every colouring of a small grid, judged by the rules checker --

@cache
def loops(rows, cols):
    """All colourings of an empty rows x cols puzzle that satisfy rules 2-4."""
    blank = Puzzle([[None] * cols] * rows)
    found = []
    for bits in itertools.product((False, True), repeat=rows * cols):
        colouring = tuple(bits[r * cols:(r + 1) * cols] for r in range(rows))
        if check(blank, colouring).ok:
            found.append(colouring)
    return found


def brute_force(puzzle):
    return sorted(c for c in loops(puzzle.rows, puzzle.cols) if check(puzzle, c).ok)


@st.composite
def small_puzzles(draw):
    rows = draw(st.integers(1, 4))
    cols = draw(st.integers(1, 4 if rows < 4 else 3))
    density = draw(st.sampled_from([0.0, 0.2, 0.4, 0.7]))
    rng = random.Random(draw(st.integers(0, 2**32)))
    if draw(st.booleans()):
        # clues read off a real loop, so that most puzzles have solutions
        colouring = rng.choice(loops(rows, cols))
        inside = lambda r, c: 0 <= r < rows and 0 <= c < cols and colouring[r][c]
        clues = [[sum(inside(r + dr, c + dc) != inside(r, c)
                      for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)))
                  if rng.random() < density else None for c in range(cols)]
                 for r in range(rows)]
        clues = [[None if v is None or v > 3 else v for v in row] for row in clues]
    else:
        clues = [[rng.randrange(4) if rng.random() < density else None for _ in range(cols)]
                 for _ in range(rows)]
    return Puzzle(clues)


@settings(max_examples=150, deadline=None)
@given(small_puzzles())
def test_same_solutions_as_exhaustive_search(puzzle):
    result = search(puzzle, max_solutions=None)
    assert result.exhausted
    assert sorted(result.solutions) == brute_force(puzzle)
    assert len(set(result.solutions)) == len(result.solutions)


@settings(max_examples=60, deadline=None)
@given(small_puzzles())
def test_first_solution_and_uniqueness_modes(puzzle):
    everything = brute_force(puzzle)
    one = search(puzzle, max_solutions=1)
    two = search(puzzle, max_solutions=2)
    assert len(one.solutions) == min(1, len(everything))
    assert len(two.solutions) == min(2, len(everything))
    assert one.solutions == two.solutions[:1]
    assert one.counters.checks <= two.counters.checks


# -- the blocks, against independent computations --

def bfs(geo, seed_cells, region):
    seen, queue = set(seed_cells), deque(seed_cells)
    while queue:
        r, c = queue.popleft()
        for cell in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if cell in region and cell not in seen:
                seen.add(cell)
                queue.append(cell)
    return seen


def random_state(rng, rows, cols):
    """Random s0/s1 over a framed grid: each grid cell outside, inside, both or neither."""
    geo = Geometry(rows, cols)
    s0, s1 = geo.frame, 0
    for r in range(rows):
        for c in range(cols):
            pick_ = rng.random()
            if pick_ < 0.35:
                s1 |= geo.bit(r, c)
            elif pick_ < 0.7:
                s0 |= geo.bit(r, c)
    return geo, s0, s1


def test_flood_matches_breadth_first_search():
    rng = random.Random(33)
    for _ in range(400):
        geo, s0, s1 = random_state(rng, rng.randint(1, 7), rng.randint(1, 7))
        inside = geo.grid_cells(s1)
        # REACH: from the first inside cell through cells not required outside
        reach = flood(geo, FloodMode.REACH, s0, s1)
        region = set(geo.grid_cells(geo.grid & ~s0))
        expect = not inside or set(inside) <= bfs(geo, inside[:1], region)
        assert reach.complete == expect
        # ESCAPE: from the frame through cells not required inside
        escape = flood(geo, FloodMode.ESCAPE, s0, s1)
        border = [(r, c) for r, c in region_all(geo) if r in (0, geo.rows - 1)
                  or c in (0, geo.cols - 1)]
        free = set(geo.grid_cells(geo.grid & ~s1))
        reached = bfs(geo, [cell for cell in border if cell in free], free)
        assert escape.complete == (set(geo.grid_cells(s0 & geo.grid)) <= reached)


def region_all(geo):
    return [(r, c) for r in range(geo.rows) for c in range(geo.cols)]


def test_flood_iterations_are_distance_plus_one():
    # a 1x5 corridor seeded at its left end grows one cell per cycle
    geo = Geometry(1, 5)
    s1 = sum(geo.bit(0, c) for c in range(5))
    result = flood(geo, FloodMode.REACH, geo.frame, s1)
    assert result.complete and result.iterations == 5
    # undetermined cells are part of the REACH region: from (0, 2) both ends are 2 away
    single = flood(geo, FloodMode.REACH, geo.frame, geo.bit(0, 2))
    assert single.complete and single.iterations == 3
    walled = geo.frame | geo.bit(0, 1) | geo.bit(0, 3)
    alone = flood(geo, FloodMode.REACH, walled, geo.bit(0, 2))
    assert alone.complete and alone.iterations == 1
    empty = flood(geo, FloodMode.REACH, geo.frame, 0)
    assert empty.complete and empty.iterations == 1


def test_pick_agrees_with_hole_rule_on_connected_crossing_free_colourings():
    rng = random.Random(7)
    blank = {}
    tried = 0
    while tried < 300:
        rows, cols = rng.randint(1, 6), rng.randint(1, 6)
        colouring = tuple(tuple(rng.random() < 0.6 for _ in range(cols)) for _ in range(rows))
        puzzle = blank.setdefault((rows, cols), Puzzle([[None] * cols] * rows))
        verdict = check(puzzle, colouring)
        if verdict.rule not in ("", "hole"):
            continue  # Pick decides holes given rules 2 and 3
        tried += 1
        geo = Geometry(rows, cols)
        assert pick(geo, geo.from_rows(colouring)).ok == verdict.ok


def test_pick_counts_a_single_cell_and_a_ring():
    geo = Geometry(3, 3)
    one = pick(geo, geo.bit(1, 1))
    assert (one.S, one.I, one.B, one.ok) == (1, 0, 4, True)
    ring = geo.from_rows([[True] * 3, [True, False, True], [True] * 3])
    result = pick(geo, ring)
    assert (result.S, result.I, result.B, result.ok) == (8, 0, 16, False)


def test_partial_condition_of_a_solution_is_consistent(corpus):
    """Assigning every clue cell the combination its solution shows gives no conflict,
    and everything required agrees with the solution."""
    for row in [r for r in corpus if r["unique"] == "yes"][:80]:
        puzzle, solution = load(row["name"])
        inside = lambda r, c: (0 <= r < puzzle.rows and 0 <= c < puzzle.cols
                               and solution[r][c])
        assignment = {}
        for r, c in puzzle.clue_cells():
            me = Attribute.INSIDE if inside(r, c) else Attribute.OUTSIDE
            lined = {s for s, (dr, dc) in enumerate(((0, -1), (-1, 0), (0, 1), (1, 0)))
                     if inside(r + dr, c + dc) != inside(r, c)}
            from slitherlink.spec.combinations import patterns
            pattern = patterns(puzzle.clues[r][c]).index(frozenset(lined))
            assert (pattern, me) in combinations(puzzle.clues[r][c])
            assignment[(r, c)] = (pattern, me)
        state = partial_condition(puzzle, assignment)
        assert state.ok
        geo = state.geometry
        truth = geo.from_rows(solution)
        assert state.s1 & ~truth == 0
        assert state.s0 & truth == 0


def test_partial_condition_flags_conflict_and_checkerboard():
    puzzle = parse_plain("1.\n.1\n")
    # a line on the west side of a border cell would need the frame inside
    assert partial_condition(puzzle, {(0, 0): (0, Attribute.OUTSIDE)}).conflict
    ok = partial_condition(puzzle, {(0, 0): (2, Attribute.OUTSIDE)})  # line on the east
    assert ok.ok
    clash = partial_condition(puzzle, {(0, 0): (2, Attribute.INSIDE), (1, 1): (0, Attribute.OUTSIDE)})
    assert clash.conflict or clash.checkerboard
    board = partial_condition(parse_plain("..\n..\n"),
                              {(0, 0): Attribute.INSIDE, (1, 1): Attribute.INSIDE,
                               (0, 1): Attribute.OUTSIDE, (1, 0): Attribute.OUTSIDE})
    assert board.checkerboard and not board.conflict


def test_counters_of_the_demo_puzzle_are_stable():
    """The step order is the specification the firmware reproduces: any change to
    these numbers is a change of that specification (docs/design.md section 3)."""
    puzzle = parse_plain((REPO / "examples" / "loopy_7x7.txt").read_text())
    result = search(puzzle, max_solutions=2)
    assert result.exhausted and len(result.solutions) == 1
    assert result.counters.as_dict() == {"checks": 1734, "backtracks": 207, "candidates": 1,
                                         "floods": 3, "flood_iterations": 33}


def test_check_limit():
    puzzle = parse_plain((REPO / "examples" / "loopy_7x7.txt").read_text())
    result = search(puzzle, max_checks=100)
    assert result.limit_reached and not result.exhausted
    assert result.counters.checks == 100


def test_model_engine_time_limit_ends_in_limit_status():
    from slitherlink.host.engines.model import solve
    from slitherlink.host.result import Status
    puzzle, _ = load("loopy_20x20_hard_01")
    result = solve(puzzle, unique=True, time_limit=0.2, mode="paper")
    assert result.status is Status.LIMIT and result.solution is None
    assert "time limit of 0.2 s reached" in result.message and result.mode == "paper"
