"""Golden-model glue for the gateware benches (Amaranth simulator and cocotb).

* :func:`to_build` maps a bitboard of :mod:`model.paper` (run-time size R x C)
  onto the framed bitboard of a build of size max_rows x max_cols
  (:mod:`hw.cells`), and :func:`expected_s0` adds the build's extra frame;
* :func:`random_state` draws a random puzzle and partial assignment;
* :func:`replay` re-runs the golden model's search (:func:`model.paper.search`,
  same step order) and yields every check with its full assignment, and every
  flood and Pick test the search performs, so a bench can drive the gateware
  through the states a real search visits.  :func:`check_replay` proves the
  replay equal to the model's own trace.

Pure Python; no simulator imported here.
"""


from slitherlink.host import corpus
from slitherlink.host.puzzle import Puzzle

from slitherlink.spec.combinations import Attribute, combinations
from slitherlink.model.paper import FloodMode, Geometry, flood, partial_condition, pick, search

__all__ = ["to_build", "expected_s0", "random_puzzle", "random_state", "replay",
           "check_replay", "load_puzzle", "PUZZLES", "cell_word"]

PUZZLES = corpus.root()


def load_puzzle(name):
    return corpus.puzzle(name)


def to_build(board, rows, cols, max_rows, max_cols):
    """A model bitboard of an R x C puzzle as a bitboard of a max_rows x max_cols build."""
    w, bw = cols + 2, max_cols + 2
    out = 0
    while board:
        low = board & -board
        i = low.bit_length() - 1
        out |= 1 << ((i // w) * bw + i % w)
        board ^= low
    return out


def expected_s0(s0, rows, cols, max_rows, max_cols):
    """The build's s0 for a model s0: remapped, plus every cell beyond the model's frame."""
    build = Geometry(max_rows, max_cols)
    model_frame = to_build(Geometry(rows, cols).all, rows, cols, max_rows, max_cols)
    return to_build(s0, rows, cols, max_rows, max_cols) | (build.all & ~model_frame)


def cell_word(clue, assignment):
    """(clue, pattern, attribute) of the CELL register for a model cell and assignment."""
    code = 4 if clue is None else clue
    if assignment is None:
        return code, 0, 0
    if clue is None:
        return code, 0, int(Attribute(assignment))
    pattern, attribute = assignment
    return code, pattern, int(attribute)


def random_puzzle(rng, rows, cols, density=None):
    density = rng.random() if density is None else density
    return Puzzle(tuple(tuple(rng.randrange(4) if rng.random() < density else None
                              for _ in range(cols)) for _ in range(rows)))


def random_state(rng, rows, cols):
    """A random puzzle and a random partial assignment of it."""
    puzzle = random_puzzle(rng, rows, cols)
    p_assign = rng.choice((0.1, 0.3, 0.6, 1.0))
    assignment = {}
    for r in range(rows):
        for c in range(cols):
            if rng.random() >= p_assign:
                continue
            clue = puzzle.clues[r][c]
            if clue is None:
                assignment[r, c] = rng.choice((Attribute.OUTSIDE, Attribute.INSIDE))
            else:
                assignment[r, c] = rng.choice(combinations(clue))
    return puzzle, assignment


def replay(puzzle, *, max_checks=None, max_solutions=1):
    """The events of :func:`model.paper.search`, in order, with full assignments.

    Yields ``("check", assignment, state)`` for every check (``state`` is the
    model's :class:`model.paper.CellState`), ``("flood", mode, s0, s1, result)``
    for every flood and ``("pick", s1, result)`` for every Pick test.
    """
    geo = Geometry(puzzle.rows, puzzle.cols)
    cells = puzzle.clue_cells()
    clue_levels = len(cells)
    options = [list(combinations(puzzle.clues[r][c])) for r, c in cells]
    checks = solutions = 0

    def completion(state):
        del cells[clue_levels:], options[clue_levels:]
        for rc in geo.grid_cells(state.undetermined):
            cells.append(rc)
            options.append([Attribute.OUTSIDE, Attribute.INSIDE])

    def run(mode, s0, s1):
        result = flood(geo, mode, s0, s1)
        return result

    states = [partial_condition(puzzle, {})]
    assigned = [{}]
    choice = [0]
    k = 0
    if clue_levels == 0:
        completion(states[0])
    while True:
        if k == len(cells):
            s = states[k]
            if s.s1:
                f = run(FloodMode.REACH, s.s0, s.s1)
                yield ("flood", FloodMode.REACH, s.s0, s.s1, f)
                if f.complete:
                    p = pick(geo, s.s1)
                    yield ("pick", s.s1, p)
                    if p.ok:
                        solutions += 1
                        if max_solutions is not None and solutions >= max_solutions:
                            return
            k -= 1
            choice[k] += 1
            continue
        if choice[k] == len(options[k]):
            if k == 0:
                return
            k -= 1
            choice[k] += 1
            continue
        if max_checks is not None and checks >= max_checks:
            return
        assignment = dict(assigned[k])
        assignment[cells[k]] = options[k][choice[k]]
        state = partial_condition(puzzle, assignment)
        checks += 1
        yield ("check", assignment, state)
        ok = state.ok
        if ok and k >= clue_levels:
            f = run(FloodMode.REACH, state.s0, state.s1)
            yield ("flood", FloodMode.REACH, state.s0, state.s1, f)
            ok = f.complete
            if ok:
                f = run(FloodMode.ESCAPE, state.s0, state.s1)
                yield ("flood", FloodMode.ESCAPE, state.s0, state.s1, f)
                ok = f.complete
        if not ok:
            choice[k] += 1
            continue
        k += 1
        del states[k:], assigned[k:], choice[k:]
        states.append(state)
        assigned.append(assignment)
        choice.append(0)
        if k == clue_levels:
            completion(state)


def check_replay(puzzle, events, max_checks=None):
    """Assert that ``events`` (a list from :func:`replay`) match the model's own trace."""
    result = search(puzzle, max_checks=max_checks, trace=True)
    checks = [(e[2].s0, e[2].s1) for e in events if e[0] == "check"]
    floods = [e for e in events if e[0] == "flood"]
    assert checks == result.states, f"{puzzle.name}: replay differs from the model's trace"
    assert len(floods) == result.counters.floods
    assert sum(e[4].iterations for e in floods) == result.counters.flood_iterations
