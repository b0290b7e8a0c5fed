"""The deduction engine's gateware against its golden model: the inputs the block tests
share - the model's states in a build's geometry, the puzzle's inputs as a build takes
them, states recorded from real searches of corpus puzzles (and corruptions of them) and
random states."""

import random

from slitherlink.host.puzzle import parse_plain
from slitherlink.model.deduce import Engine, Geometry
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


def recorded_states(puzzle, count, seed):
    """States the model sweeps while solving ``puzzle`` (a sample), and corruptions."""
    engine = Engine(puzzle)
    seen = []
    real = engine._sweep

    def spy(state, anchors):
        seen.append(list(state))
        return real(state, anchors)
    engine._sweep = spy
    engine.deduce(engine.initial_state())
    rng = random.Random(seed)
    picked = rng.sample(seen, min(count, len(seen)))
    geo = engine.geo
    for state in list(picked):
        s = list(state)
        for b in range(10):
            for _ in range(rng.randrange(3)):
                q = rng.randrange(geo.cells)
                if geo.valid[VARS[b // 2]] >> q & 1 and not s[b ^ 1] >> q & 1:
                    s[b] |= 1 << q
        picked.append(s)
    return engine, picked


def random_states(engine, count, seed):
    """Fully random states (frame cells OUT): each variable S, D, unknown, or both."""
    rng = random.Random(seed)
    geo = engine.geo
    out = []
    for _ in range(count):
        s = engine.initial_state()
        density = rng.choice([0.05, 0.15, 0.3])
        for i in range(10):
            valid = geo.valid[VARS[i // 2]] & (geo.grid if i < 2 else geo.all)
            for q in range(geo.cells):
                if valid >> q & 1 and rng.random() < density / 2:
                    s[i] |= 1 << q
        if rng.random() < 0.7:  # mostly without conflicts
            for i in range(0, 10, 2):
                s[i + 1] &= ~s[i]
        out.append(s)
    return out


async def run_command(dut, ctx, limit, what="the command"):
    """Pulse ``dut.start`` and wait for ``dut.done``, ``dut.busy`` high meanwhile and at most
    ``limit`` clocks; returns the clocks it was busy."""
    ctx.set(dut.start, 1)
    await ctx.tick()
    ctx.set(dut.start, 0)
    busy = 0
    while not ctx.get(dut.done):
        assert ctx.get(dut.busy)
        await ctx.tick()
        busy += 1
        assert busy <= limit, f"{what} does not end"
    return busy
