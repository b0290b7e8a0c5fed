"""Partial-condition checker (hw/checker.py) against model.paper.partial_condition.

Random states (seeded) and the states real searches visit, on several build
sizes with run-time sizes up to the build size; driven through the block's
ports with Amaranth's simulator.
"""

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gateware_sim import (golden, grid_board, pack_needs, pack_words, puzzle_words,  # noqa: E402
                          run, word_key)

from slitherlink.hw.cells import CellLayout, NeedLayout  # noqa: E402
from slitherlink.hw.checker import Checker, Requirements, requirement_table  # noqa: E402
from slitherlink.spec.combinations import Attribute  # noqa: E402
from slitherlink.model.paper import partial_condition  # noqa: E402


def check_states(build, states):
    """Drive ``(puzzle, assignment)`` pairs into a Checker of size ``build``.

    The cells' requirements are what hw.cells.CellArray stores: the
    Requirements lookup of each cell inside the run-time size, nothing outside.
    """
    max_rows, max_cols = build
    dut = Checker(max_rows, max_cols)
    seen = {"conflict": 0, "checkerboard": 0, "ok": 0}

    async def bench(ctx):
        for i, (puzzle, assignment) in enumerate(states):
            rows, cols = puzzle.rows, puzzle.cols
            state = partial_condition(puzzle, assignment)
            ctx.set(dut.needs.as_value(),
                    pack_needs(puzzle_words(puzzle, assignment), max_rows, max_cols))
            ctx.set(dut.grid, grid_board(rows, cols, max_rows, max_cols))
            await ctx.tick()
            # s0/s1 after one cycle, the flags after two (Checker.latency)
            assert ctx.get(dut.s0) == golden.expected_s0(state.s0, rows, cols, max_rows, max_cols), i
            assert ctx.get(dut.s1) == golden.to_build(state.s1, rows, cols, max_rows, max_cols), i
            assert ctx.get(dut.inside) == golden.to_build(state.s1 & state.geometry.grid,
                                                          rows, cols, max_rows, max_cols), i
            await ctx.tick()
            assert ctx.get(dut.conflict) == state.conflict, i
            assert ctx.get(dut.checkerboard) == state.checkerboard, i
            seen["conflict"] += state.conflict
            seen["checkerboard"] += state.checkerboard
            seen["ok"] += state.ok

    run(dut, bench)
    return seen


BUILDS = [((1, 1), 200), ((1, 7), 400), ((7, 1), 400), ((3, 5), 800), ((6, 6), 1000),
          ((10, 10), 1500)]


@pytest.mark.parametrize("build,count", BUILDS, ids=[f"{r}x{c}" for (r, c), _ in BUILDS])
def test_random_states(build, count):
    rng = random.Random(hash(build) & 0xFFFF)
    max_rows, max_cols = build
    states = []
    for i in range(count):
        # a quarter of the states at the build size, the rest smaller (1xN, Nx1, odd shapes)
        if i % 4 == 0:
            rows, cols = max_rows, max_cols
        else:
            rows, cols = rng.randint(1, max_rows), rng.randint(1, max_cols)
        states.append(golden.random_state(rng, rows, cols))
    seen = check_states(build, states)
    # the random states must exercise every verdict
    assert all(seen.values()) or build == (1, 1), seen


def test_invalid_states_force_nothing():
    """Unassigned, attribute 0b11, patterns beyond a digit's, clue codes 5..7: no requirement."""
    rng = random.Random(7)
    max_rows, max_cols = 4, 5
    dut = Checker(max_rows, max_cols)
    n_patterns = {0: 1, 1: 4, 2: 6, 3: 4}

    async def bench(ctx):
        for i in range(300):
            rows, cols = rng.randint(1, max_rows), rng.randint(1, max_cols)
            puzzle, assignment = golden.random_state(rng, rows, cols)
            words = {}
            for r in range(max_rows):
                for c in range(max_cols):
                    if r < rows and c < cols and (r, c) in assignment and rng.random() < 0.7:
                        words[r, c] = golden.cell_word(puzzle.clues[r][c], assignment[r, c])
                        continue
                    assignment.pop((r, c), None)
                    if not (r < rows and c < cols):
                        continue  # CellArray keeps cells outside the size requirement-free
                    clue = puzzle.clues[r][c]
                    if rng.random() < 0.2:
                        clue = rng.randrange(5, 8)
                    code = 4 if clue is None else clue
                    choice = rng.randrange(4)
                    if code > 4:  # reserved clue codes: anything
                        words[r, c] = (code, rng.randrange(8), rng.randrange(4))
                    elif choice == 1:
                        words[r, c] = (code, rng.randrange(8), 0b11)
                    elif choice == 2 and code < 4:
                        words[r, c] = (code, rng.randrange(n_patterns[code], 8),
                                       rng.choice((1, 2)))
                    else:
                        words[r, c] = (code, rng.randrange(8), 0)
            state = partial_condition(puzzle, assignment)
            ctx.set(dut.needs.as_value(), pack_needs(words, max_rows, max_cols))
            ctx.set(dut.grid, grid_board(rows, cols, max_rows, max_cols))
            await ctx.tick().repeat(2)
            assert ctx.get(dut.s0) == golden.expected_s0(state.s0, rows, cols, max_rows, max_cols)
            assert ctx.get(dut.s1) == golden.to_build(state.s1, rows, cols, max_rows, max_cols)
            assert ctx.get(dut.conflict) == state.conflict
            assert ctx.get(dut.checkerboard) == state.checkerboard

    run(dut, bench)


def search_states(names, max_checks):
    """(puzzle, assignment) of every check of the golden search on these puzzles."""
    states = []
    for name in names:
        puzzle = golden.load_puzzle(name)
        events = list(golden.replay(puzzle, max_checks=max_checks))
        golden.check_replay(puzzle, events, max_checks=max_checks)
        states += [(puzzle, e[1]) for e in events if e[0] == "check"]
    return states


def test_search_states():
    """The states the golden search visits on real puzzles, on a bigger build."""
    states = search_states(["janko_0006", "janko_0011", "janko_0014", "edge_1x5_ends",
                            "edge_3x3_noclues",
                            "loopy_5x5_easy_03", "edge_2x5_local_unsat"], 600)
    assert len(states) > 1000
    seen = check_states((6, 7), states)
    assert seen["ok"] and seen["conflict"] and seen["checkerboard"]


@pytest.mark.slow
def test_search_states_slow():
    names = [n for n in ("janko_0014", "janko_0039", "loopy_7x7_normal_01",
                         "puzzleloop_7x7_hard_6395376", "pzpr_penpa_3")]
    states = search_states(names, 5000)
    check_states((10, 10), states)
    check_states((7, 12), [s for s in states if s[0].rows <= 7])


@pytest.mark.slow
@pytest.mark.parametrize("build", [(16, 16), (20, 36)])
def test_random_states_large(build):
    rng = random.Random(13)
    states = [golden.random_state(rng, rng.randint(1, build[0]), rng.randint(1, build[1]))
              for _ in range(400)]
    check_states(build, states)


def test_attribute_alone_is_required():
    """s0/s1 include the cell's own attribute (model/paper.py's documented deviation)."""
    from slitherlink.host.puzzle import Puzzle
    puzzle = Puzzle(((None, None), (None, None)))
    dut = Checker(2, 2)

    async def bench(ctx):
        for attribute in (Attribute.OUTSIDE, Attribute.INSIDE):
            assignment = {(1, 1): attribute}
            ctx.set(dut.needs.as_value(), pack_needs(puzzle_words(puzzle, assignment), 2, 2))
            ctx.set(dut.grid, grid_board(2, 2, 2, 2))
            await ctx.tick()
            bit = 1 << (2 * 4 + 2)
            assert bool(ctx.get(dut.s1) & bit) == (attribute is Attribute.INSIDE)
            assert bool(ctx.get(dut.s0) & bit) == (attribute is Attribute.OUTSIDE)

    run(dut, bench)


def test_requirements_decoder_exhaustive():
    """The Requirements block equals requirement_table() on all 256 cell states."""
    dut = Requirements()
    table = requirement_table()

    async def bench(ctx):
        for key in range(1 << CellLayout.size):
            ctx.set(dut.state.as_value(), key)
            s0, s1 = table.get(key, (0, 0))
            assert (ctx.get(dut.need.s0), ctx.get(dut.need.s1)) == (s0, s1), key

    run(dut, bench, clock=False)
