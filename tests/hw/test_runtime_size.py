"""Why a build may run any smaller puzzle with the model's exact results.

The gateware holds a (max_rows+2) x (max_cols+2) array; a puzzle of R x C
uses its top-left corner and every other cell is frame (s0 = 1, never inside,
no requirement of its own).  The extra frame cells (a) are outside the REACH
region and never inside, so REACH and Pick's counts do not see them; (b) are
all seeded by ESCAPE when not required inside, so they never grow, and they
touch the model's frame only where the model's frame is itself seeded or
outside the region, so growth inside the model's array is unchanged step by
step; (c) are never the s1 diagonal of a checkerboard: a 2x2 block straddling
the model's frame edge has a whole extra row or column, two s1 = 0 cells side
by side.  So iteration counts and verdicts are the same for every build size
>= the puzzle size.  This test checks the argument in pure Python on
thousands of random states (``framed_flood`` is the model's flood with the
gateware's notion of frame); the gateware tests then compare the gateware
itself with the model on builds bigger than the puzzle.
"""

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gateware_sim import golden  # noqa: E402

from slitherlink.model.paper import FloodMode, Geometry, _checkerboard, flood, partial_condition, pick  # noqa: E402


def framed_flood(geo, grid, mode, s0, s1):
    """model.paper.flood with the grid replaced by ``grid`` (the run-time grid inside a build):
    every other cell of the build is frame.  This is what the gateware computes."""
    if mode == FloodMode.REACH:
        region, inside = grid & ~s0, s1 & grid
        seed, target = inside & -inside, inside
    else:
        region = geo.all & ~s1
        seed, target = ~grid & region, s0 & grid
    p, iterations = seed & region, 0
    while True:
        iterations += 1
        q = p | (geo.neighbours(p) & region)
        if q == p:
            return not (target & ~p), iterations, p
        p = q


def embed(state, rows, cols, max_rows, max_cols):
    s0 = golden.expected_s0(state[0], rows, cols, max_rows, max_cols)
    s1 = golden.to_build(state[1], rows, cols, max_rows, max_cols)
    return s0, s1


def test_model_is_invariant_under_a_bigger_frame():
    rng = random.Random(41)
    for i in range(3000):
        rows, cols = rng.randint(1, 7), rng.randint(1, 7)
        max_rows, max_cols = rows + rng.randint(0, 3), cols + rng.randint(0, 3)
        puzzle, assignment = golden.random_state(rng, rows, cols)
        state = partial_condition(puzzle, assignment)
        small, big = Geometry(rows, cols), Geometry(max_rows, max_cols)
        s0, s1 = embed((state.s0, state.s1), rows, cols, max_rows, max_cols)
        assert bool(s0 & s1) == state.conflict
        assert bool(_checkerboard(big, s0, s1)) == state.checkerboard, i
        # Pick's counts see the run-time grid only (what the gateware feeds them)
        grid = golden.to_build(small.grid, rows, cols, max_rows, max_cols)
        assert pick(big, s1 & grid) == pick(small, state.s1)
        for mode in FloodMode:
            a = flood(small, mode, state.s0, state.s1)
            complete, iterations, reached = framed_flood(big, grid, mode, s0, s1)
            assert (a.iterations, a.complete) == (iterations, complete), (i, mode)
            model_cells = golden.to_build(small.all, rows, cols, max_rows, max_cols)
            assert reached & model_cells == golden.to_build(a.reached, rows, cols,
                                                            max_rows, max_cols)
            if max_rows == rows and max_cols == cols:  # framed_flood is the model itself
                assert framed_flood(small, small.grid, mode, state.s0, state.s1) == \
                    (a.complete, a.iterations, a.reached)
