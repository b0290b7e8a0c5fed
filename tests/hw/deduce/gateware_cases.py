"""The deduction engine's gateware against its golden model: the inputs shared by the
Amaranth tests (test_gateware.py) and the cocotb bench on the generated Verilog
(test_cocotb_deduce.py) - the model's states in a build's geometry, the label
registers as the LabelArray saves them, and the inputs of ``Engine.propagate`` and
``Engine.deduce`` recorded from real searches of corpus puzzles."""

import random

from slitherlink.host.puzzle import parse_plain
from slitherlink.model.deduce import Geometry
from slitherlink.spec.deduce import VARS, island_free
from tests.conftest import load


def remap(geo_m, geo_b, board):
    """A model bitboard (puzzle geometry) in the build geometry (same framed (r, c))."""
    out = 0
    wm, wb = geo_m.width, geo_b.width
    while board:
        low = board & -board
        q = low.bit_length() - 1
        r, c = divmod(q, wm)
        out |= 1 << (r * wb + c)
        board ^= low
    return out


def to_build(geo_m, geo_b, state):
    """The build's state for a model state: variables the puzzle lacks are S."""
    out = []
    for i, board in enumerate(state):
        var = VARS[i // 2]
        mapped = remap(geo_m, geo_b, board)
        if i % 2 == 0:
            mapped |= geo_b.valid[var] & ~remap(geo_m, geo_b, geo_m.valid[var])
        out.append(mapped)
    return out


def puzzle_inputs(puzzle, geo_b):
    geo_m = Geometry(puzzle.rows, puzzle.cols)
    grid = remap(geo_m, geo_b, geo_m.grid)
    clue = [0, 0, 0, 0]
    for r, row in enumerate(puzzle.clues):
        for c, v in enumerate(row):
            if v is not None:
                clue[v] |= 1 << ((r + 1) * geo_b.width + c + 1)
    return grid, clue, int(island_free(puzzle))


def puzzle_of(name):
    if "\n" in name:
        puzzle = parse_plain(name, name=name.replace("\n", "/"))
        return puzzle
    return load(name)[0]


def label_registers(geo_m, dut_labels, registers):
    """The LabelArray's saved vector for the model's label registers."""
    from tests.model.test_deduce_model import naive_labels
    from slitherlink.model.deduce import H1, V1
    geo_b = dut_labels.geometry
    h, v = registers[1]
    state = [0] * 10
    state[H1], state[V1] = h, v
    settled, _ = naive_labels(geo_m, state) if (h or v) else ({}, 0)
    value, offset = 0, 0
    wm, wb = geo_m.width, geo_b.width
    for q in dut_labels.points:
        r, c = divmod(q, wb)
        label = q
        if c < wm:
            mq = r * wm + c
            if mq in settled:
                lr, lc = divmod(settled[mq], wm)
                label = lr * wb + lc
        value |= label << offset
        offset += dut_labels.label_bits
    value |= remap(geo_m, geo_b, h) << offset
    value |= remap(geo_m, geo_b, v) << (offset + geo_b.cells)
    return value


def propagate_jobs(names, per_puzzle):
    """Inputs of Engine.propagate met while solving (probes and decisions included)."""
    import slitherlink.model.deduce as D
    jobs = []
    for i, name in enumerate(names):
        puzzle = puzzle_of(name)
        engine = D.Engine(puzzle)
        seen = []
        real = engine.propagate

        def spy(state, real=real, seen=seen, engine=engine):
            seen.append((list(state), engine.registers))
            return real(state)
        engine.propagate = spy
        engine.deduce(engine.initial_state())
        rng = random.Random(i)
        jobs.append((puzzle, engine, rng.sample(seen, min(per_puzzle, len(seen)))))
    return jobs


def deduce_jobs(names, per_puzzle):
    """Inputs of Engine.deduce during whole searches (the root and every branch)."""
    import slitherlink.model.deduce as D
    jobs = []
    for i, name in enumerate(names):
        puzzle = puzzle_of(name)
        seen = []
        real = D.Engine.deduce

        def spy(self, state, real=real, seen=seen):
            seen.append((list(state), self.registers))
            return real(self, state)
        D.Engine.deduce = spy
        try:
            D.solve(puzzle, max_solutions=2, max_decisions=30)
        finally:
            D.Engine.deduce = real
        rng = random.Random(i)
        rng.shuffle(seen)
        # wrong guesses: one cell of the initial state coloured against a solution
        # (any colour when there is none)
        engine = D.Engine(puzzle)
        solutions = D.solve(puzzle).solutions
        for r, c in rng.sample([(r, c) for r in range(puzzle.rows) for c in range(puzzle.cols)],
                               min(6, puzzle.rows * puzzle.cols)):
            inside = solutions[0][r][c] if solutions else rng.random() < 0.5
            wrong = engine.initial_state()
            wrong[D.C0 if inside else D.C1] |= engine.geo.bit(r, c)
            seen.append((wrong, engine.registers))

        def fails(job):
            fresh = D.Engine(puzzle)
            fresh.registers = job[1]
            return real(fresh, job[0])[1]
        failing = [job for job in seen if fails(job)][:per_puzzle]
        passing = [st for st in seen if st not in failing][:per_puzzle]
        jobs.append((puzzle, failing + passing))
    return jobs
