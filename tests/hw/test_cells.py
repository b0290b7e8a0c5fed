"""Cell state register array (hw/cells.py): writes, run-time size, clear, unassign."""

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gateware_sim import grid_board, run, word_key  # noqa: E402

from slitherlink.hw.cells import BLANK, CellArray, CellLayout, NeedLayout, grid_index  # noqa: E402


def test_cell_array_against_a_reference():
    """Random commands against a dictionary model of the array."""
    rng = random.Random(51)
    max_rows, max_cols = 4, 6
    dut = CellArray(max_rows, max_cols)
    blank = word_key(BLANK["clue"], 0, 0)

    async def bench(ctx):
        rows, cols = max_rows, max_cols
        state = {(r, c): blank for r in range(max_rows) for c in range(max_cols)}
        need = {rc: 0 for rc in state}
        for step in range(1500):
            for port in (dut.write, dut.size_write, dut.clear, dut.unassign):
                ctx.set(port, 0)
            op = rng.choices(("write", "size", "clear", "unassign", "idle"),
                             weights=(70, 10, 3, 5, 12))[0]
            if op == "write":
                r, c = rng.randrange(max_rows + 2), rng.randrange(max_cols + 2)
                word, bits = rng.getrandbits(8), rng.getrandbits(NeedLayout.size)
                ctx.set(dut.write, 1)
                ctx.set(dut.row, r)
                ctx.set(dut.col, c)
                ctx.set(dut.data.as_value(), word)
                ctx.set(dut.need.as_value(), bits)
                if r < rows and c < cols:  # ignored outside the run-time size
                    state[r, c], need[r, c] = word, bits
            elif op == "size":
                new_rows, new_cols = rng.randrange(max_rows + 2), rng.randrange(max_cols + 2)
                ctx.set(dut.size_write, 1)
                ctx.set(dut.size_rows, new_rows)
                ctx.set(dut.size_cols, new_cols)
                if 1 <= new_rows <= max_rows and 1 <= new_cols <= max_cols:
                    rows, cols = new_rows, new_cols
                    for (r, c) in state:  # cells falling outside are unassigned
                        if not (r < rows and c < cols):
                            state[r, c] &= ~(0b11111)  # pattern and attribute
                            need[r, c] = 0
            elif op == "clear":
                ctx.set(dut.clear, 1)
                ctx.set(dut.unassign, rng.getrandbits(1))
                state = {rc: blank for rc in state}
                need = {rc: 0 for rc in state}
            elif op == "unassign":
                ctx.set(dut.unassign, 1)
                state = {rc: w & ~0b11111 for rc, w in state.items()}
                need = {rc: 0 for rc in state}
            await ctx.tick()
            assert (ctx.get(dut.rows), ctx.get(dut.cols)) == (rows, cols)
            assert ctx.get(dut.grid) == grid_board(rows, cols, max_rows, max_cols)
            cells, needs = ctx.get(dut.cells.as_value()), ctx.get(dut.needs.as_value())
            for (r, c), word in state.items():
                i = grid_index(max_cols, r, c)
                assert (cells >> (i * CellLayout.size)) & 0xFF == word, (step, r, c)
                assert (needs >> (i * NeedLayout.size)) & ((1 << NeedLayout.size) - 1) == \
                    need[r, c], (step, r, c)
                if not (r < rows and c < cols):
                    assert need[r, c] == 0  # the invariant the checker relies on

    run(dut, bench)


def test_pattern_and_attribute_are_the_low_five_bits():
    assert CellLayout["pattern"].offset == 0 and CellLayout["attribute"].offset == 3
    assert CellLayout["clue"].offset == 5
