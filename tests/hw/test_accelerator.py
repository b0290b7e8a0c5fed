"""The accelerator behind its register interface (hw/accelerator.py), in Amaranth's simulator.

Everything here goes through the bus with addresses and masks from spec/registers.py
(or, in test_c_header_drives_the_hardware, from the generated C header).
"""

import random
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gateware_sim import BusDriver, golden, run  # noqa: E402

from slitherlink.spec import registers as regmap  # noqa: E402
from slitherlink.hw.accelerator import Accelerator  # noqa: E402
from slitherlink.spec.combinations import Attribute  # noqa: E402
from slitherlink.model.paper import FloodMode, Geometry, flood, partial_condition, pick  # noqa: E402
from slitherlink.spec.registers import (Cell, Config, Control, FloodIterations, Id, PickB, PickI,  # noqa: E402
                       PickS, Size, Status, cell_address)


class Device:
    """The accelerator seen through the register map (what the firmware does)."""

    def __init__(self, ctx, dut):
        self.bus = BusDriver(ctx, dut.bus)
        self.rows = self.cols = None
        self.cells = {}  # (r, c) -> (clue, pattern, attribute) last written

    async def read(self, register):
        return register.unpack(await self.bus.read(register.address))

    async def size(self, rows, cols):
        await self.bus.write(Size.address, Size.pack(rows=rows, cols=cols))
        self.rows, self.cols = rows, cols

    async def control(self, **fields):
        await self.bus.write(Control.address, Control.pack(**fields))

    async def write_cell(self, r, c, clue, pattern, attribute):
        await self.bus.write(cell_address(r, c),
                             Cell.pack(clue=clue, pattern=pattern, attribute=attribute))
        self.cells[r, c] = (clue, pattern, attribute)

    async def read_cell(self, r, c):
        return Cell.unpack(await self.bus.read(cell_address(r, c)))

    async def load(self, puzzle):
        """SIZE, CONTROL.clear, then one CELL write per clue."""
        await self.size(puzzle.rows, puzzle.cols)
        await self.control(clear=1)
        self.cells = {}
        for r, c in puzzle.clue_cells():
            await self.write_cell(r, c, puzzle.clues[r][c], 0, 0)

    async def assign(self, puzzle, assignment):
        """Write the cells whose word differs from ``assignment`` (unassigned ones too).

        Returns the number of CELL writes."""
        writes = 0
        for r in range(puzzle.rows):
            for c in range(puzzle.cols):
                word = golden.cell_word(puzzle.clues[r][c], assignment.get((r, c)))
                if self.cells.get((r, c), (4, 0, 0)) != word:
                    await self.write_cell(r, c, *word)
                    writes += 1
        return writes

    async def flood(self, mode):
        await self.control(flood=1, flood_mode=int(mode))
        polls = 0
        while True:
            status = await self.read(Status)
            polls += 1
            if not status["flood_busy"]:
                break
            assert polls < 10_000
        iterations = (await self.read(FloodIterations))["count"]
        return status["flood_complete"], iterations


def compare_state(status, state):
    assert status["conflict"] == state.conflict
    assert status["checkerboard"] == state.checkerboard


async def compare_cells(dev, puzzle, state, max_rows, max_cols):
    geo = state.geometry
    for r in range(puzzle.rows):
        for c in range(puzzle.cols):
            got = await dev.read_cell(r, c)
            bit = geo.bit(r, c)
            assert (got["s0"], got["s1"]) == (int(bool(state.s0 & bit)),
                                              int(bool(state.s1 & bit))), (r, c)
            clue, pattern, attribute = dev.cells.get((r, c), (4, 0, 0))
            assert (got["clue"], got["pattern"], got["attribute"]) == (clue, pattern, attribute)


def test_identity_config_and_size():
    dut = Accelerator(4, 6)

    async def bench(ctx):
        dev = Device(ctx, dut)
        assert await dev.read(Id) == {"version": regmap.VERSION, "magic": regmap.ID_MAGIC}
        assert await dev.read(Config) == {"max_rows": 4, "max_cols": 6}
        assert await dev.read(Size) == {"rows": 4, "cols": 6}
        await dev.size(2, 3)
        assert await dev.read(Size) == {"rows": 2, "cols": 3}
        for rows, cols in ((0, 3), (5, 3), (2, 0), (2, 7), (255, 255)):
            await dev.bus.write(Size.address, Size.pack(rows=rows, cols=cols))
            assert await dev.read(Size) == {"rows": 2, "cols": 3}, (rows, cols)
        # a byte write to the cols lane leaves rows alone
        await dev.bus.write(Size.address, Size.pack(rows=1, cols=5), wstrb=0b0010)
        assert await dev.read(Size) == {"rows": 2, "cols": 5}
        # read-only registers ignore writes; CONTROL reads as 0; unknown addresses read 0
        await dev.bus.write(Config.address, 0xFFFFFFFF)
        assert await dev.read(Config) == {"max_rows": 4, "max_cols": 6}
        assert await dev.bus.read(Control.address) == 0
        for addr in (0x024, 0x0FFC, 0x0800, regmap.WINDOW_SIZE, 0xFFFC):
            assert await dev.bus.read(addr) == 0, hex(addr)
            await dev.bus.write(addr, 0xFFFFFFFF)
        assert await dev.read(Size) == {"rows": 2, "cols": 5}

    run(dut, bench)


def test_cells_window_clear_and_unassign():
    dut = Accelerator(3, 4)

    async def bench(ctx):
        dev = Device(ctx, dut)
        await dev.size(2, 3)
        # cell (0, 0): clue 3, pattern 1, INSIDE; (1, 2): blank OUTSIDE
        await dev.write_cell(0, 0, 3, 1, Attribute.INSIDE)
        await dev.write_cell(1, 2, 4, 0, Attribute.OUTSIDE)
        got = await dev.read_cell(0, 0)
        assert (got["clue"], got["pattern"], got["attribute"], got["s1"]) == (3, 1, 2, 1)
        assert (await dev.read_cell(1, 2))["s0"] == 1
        # cells outside the run-time size ignore writes and read as frame (s0, not s1)
        await dev.bus.write(cell_address(2, 3), Cell.pack(clue=3, attribute=2))
        got = await dev.read_cell(2, 3)
        assert (got["clue"], got["attribute"], got["s0"], got["s1"]) == (4, 0, 1, 0)
        # shrinking the size unassigns the cells that fall outside, keeping clues
        await dev.size(2, 1)
        got = await dev.read_cell(1, 2)
        assert (got["clue"], got["attribute"], got["s0"], got["s1"]) == (4, 0, 1, 0)
        got = await dev.read_cell(0, 0)
        assert (got["clue"], got["attribute"]) == (3, 2)
        await dev.size(2, 3)
        assert (await dev.read_cell(1, 2))["s0"] == 0
        # outside the build (but inside the 64x64 window): reads 0, writes ignored
        await dev.bus.write(cell_address(3, 0), Cell.pack(clue=1, attribute=1))
        await dev.bus.write(cell_address(0, 4), Cell.pack(clue=1, attribute=1))
        assert await dev.bus.read(cell_address(3, 0)) == 0
        assert await dev.bus.read(cell_address(0, 4)) == 0
        assert await dev.bus.read(cell_address(63, 63)) == 0
        # a write without byte 0 enabled does nothing; s0/s1 are read-only
        await dev.bus.write(cell_address(1, 1), Cell.pack(clue=2, attribute=1) | 0x300, 0b1110)
        got = await dev.read_cell(1, 1)
        assert (got["clue"], got["attribute"], got["s0"], got["s1"]) == (4, 0, 0, 0)
        # unassign keeps clues
        await dev.control(unassign=1)
        got = await dev.read_cell(0, 0)
        assert (got["clue"], got["pattern"], got["attribute"]) == (3, 0, 0)
        status = await dev.read(Status)
        assert status["inside_empty"] == 1 and status["conflict"] == 0
        # clear blanks everything
        await dev.control(clear=1)
        for r in range(3):
            for c in range(4):
                got = await dev.read_cell(r, c)
                assert (got["clue"], got["pattern"], got["attribute"]) == (4, 0, 0)

    run(dut, bench)


@pytest.mark.parametrize("build,seed", [((5, 6), 1), ((3, 3), 2)])
def test_status_reflects_every_write(build, seed):
    """A STATUS read right after a CELL write shows the new partial condition."""
    max_rows, max_cols = build
    dut = Accelerator(*build)
    rng = random.Random(seed)

    async def bench(ctx):
        dev = Device(ctx, dut)
        for _ in range(12):
            rows, cols = rng.randint(1, max_rows), rng.randint(1, max_cols)
            puzzle, target = golden.random_state(rng, rows, cols)
            await dev.load(puzzle)
            assignment = {}
            for cell in rng.sample(sorted(target), len(target)):
                assignment[cell] = target[cell]
                await dev.assign(puzzle, assignment)
                status = await dev.read(Status)
                state = partial_condition(puzzle, assignment)
                compare_state(status, state)
                p = pick(state.geometry, state.s1)
                assert status["pick_ok"] == p.ok and status["inside_empty"] == (p.S == 0)
            state = partial_condition(puzzle, assignment)
            await compare_cells(dev, puzzle, state, max_rows, max_cols)
            p = pick(state.geometry, state.s1)
            assert [(await dev.read(reg))["count"] for reg in (PickS, PickI, PickB)] == \
                [p.S, p.I, p.B]

    run(dut, bench)


@pytest.mark.parametrize("build", [(1, 1), (10, 10),
                                   pytest.param((20, 36), marks=pytest.mark.slow)])
def test_cell_write_status_read_cycles(build):
    """The per-step cost the firmware pays: a CELL write then a STATUS read."""
    dut = Accelerator(*build)
    assert dut.settle == {(1, 1): 3, (10, 10): 4, (20, 36): 5}[build]

    async def bench(ctx):
        dev = Device(ctx, dut)
        await dev.bus.idle(dut.settle)
        await dev.write_cell(0, 0, 1, 2, Attribute.INSIDE)
        assert dev.bus.last_cycles == 1  # accepted at once, ready in the next cycle
        status = await dev.read(Status)
        # the read waits until the pipelines hold the new state: settle + 1 cycles
        assert dev.bus.last_cycles == dut.settle + 1
        assert status["conflict"] == 1  # clue 1, pattern 2, INSIDE: W and N must be inside
        # a read that does not follow a write is not held
        await dev.bus.idle(1)
        await dev.read(Status)
        assert dev.bus.last_cycles == 1

    run(dut, bench)


@pytest.mark.parametrize("build,seed", [((4, 5), 3), ((1, 6), 4), ((6, 1), 5)])
def test_flood_through_control(build, seed):
    max_rows, max_cols = build
    dut = Accelerator(*build)
    rng = random.Random(seed)

    async def bench(ctx):
        dev = Device(ctx, dut)
        for i in range(25):
            rows, cols = rng.randint(1, max_rows), rng.randint(1, max_cols)
            puzzle, assignment = golden.random_state(rng, rows, cols)
            await dev.load(puzzle)
            await dev.assign(puzzle, assignment)
            state = partial_condition(puzzle, assignment)
            for mode in (FloodMode.REACH, FloodMode.ESCAPE):
                ref = flood(state.geometry, mode, state.s0, state.s1)
                assert await dev.flood(mode) == (ref.complete, ref.iterations), (i, mode)
        # clear and flood in one write: the flood runs on the cleared state
        await dev.control(clear=1, flood=1, flood_mode=int(FloodMode.ESCAPE))
        status = await dev.read(Status)
        assert status["flood_busy"] == 1
        while (await dev.read(Status))["flood_busy"]:
            pass
        geo = Geometry(dev.rows, dev.cols)
        ref = flood(geo, FloodMode.ESCAPE, geo.frame, 0)
        assert (await dev.read(FloodIterations))["count"] == ref.iterations

    run(dut, bench)


def test_writes_wait_while_flood_runs():
    """A CELL write issued during a flood is held off until the flood is done."""
    dut = Accelerator(1, 8)

    async def bench(ctx):
        dev = Device(ctx, dut)
        await dev.write_cell(0, 0, 4, 0, Attribute.INSIDE)
        for c in range(1, 8):
            await dev.write_cell(0, c, 4, 0, Attribute.INSIDE)
        await dev.control(flood=1, flood_mode=int(FloodMode.REACH))
        await dev.write_cell(0, 3, 4, 0, Attribute.OUTSIDE)
        # held for 1 pending + 1 seed + 8 iteration cycles, then accepted, ready next cycle
        assert dev.bus.last_cycles == 11
        status = await dev.read(Status)
        assert status["flood_busy"] == 0 and status["flood_complete"] == 1
        assert (await dev.read(FloodIterations))["count"] == 8

    run(dut, bench)


def parse_header(text):
    defines = {}
    for name, value in re.findall(r"^#define (SLK_\w+) (0x[0-9A-Fa-f]+|\d+)u$", text, re.M):
        defines[name] = int(value, 0)
    return defines


def test_c_header_drives_the_hardware():
    """Addresses and masks parsed from the generated C header work on the gateware."""
    h = parse_header(regmap.c_header() + regmap.build_header(max_rows=3, max_cols=4, ram_size=4096))
    dut = Accelerator(3, 4)

    def cell(r, c):
        return h["SLK_CELL_BASE"] + 4 * (r * h["SLK_CELL_STRIDE"] + c)

    def put(name, field, value):
        return (value << h[f"SLK_{name}_{field}_SHIFT"]) & h[f"SLK_{name}_{field}_MASK"]

    def get(name, field, word):
        return (word & h[f"SLK_{name}_{field}_MASK"]) >> h[f"SLK_{name}_{field}_SHIFT"]

    async def bench(ctx):
        bus = BusDriver(ctx, dut.bus)
        ident = await bus.read(h["SLK_ID"])
        assert get("ID", "MAGIC", ident) == h["SLK_ID_MAGIC"]
        assert get("ID", "VERSION", ident) == h["SLK_REGMAP_VERSION"]
        config = await bus.read(h["SLK_CONFIG"])
        assert (get("CONFIG", "MAX_ROWS", config), get("CONFIG", "MAX_COLS", config)) == \
            (h["SLK_MAX_ROWS"], h["SLK_MAX_COLS"])
        await bus.write(h["SLK_SIZE"], put("SIZE", "ROWS", 2) | put("SIZE", "COLS", 2))
        await bus.write(h["SLK_CONTROL"], put("CONTROL", "CLEAR", 1))
        # a 2x2 puzzle "3. / .." : clue 3 at (0, 0), its pattern 0 INSIDE
        await bus.write(cell(0, 0), put("CELL", "CLUE", 3) | put("CELL", "PATTERN", 0)
                        | put("CELL", "ATTRIBUTE", h["SLK_ATTR_INSIDE"]))
        status = await bus.read(h["SLK_STATUS"])
        from slitherlink.host.puzzle import Puzzle
        puzzle = Puzzle(((3, None), (None, None)))
        state = partial_condition(puzzle, {(0, 0): (0, Attribute.INSIDE)})
        assert get("STATUS", "CONFLICT", status) == state.conflict
        assert get("STATUS", "CHECKERBOARD", status) == state.checkerboard
        for r in range(2):
            for c in range(2):
                word = await bus.read(cell(r, c))
                bit = state.geometry.bit(r, c)
                assert get("CELL", "S0", word) == bool(state.s0 & bit)
                assert get("CELL", "S1", word) == bool(state.s1 & bit)
        await bus.write(h["SLK_CONTROL"], put("CONTROL", "FLOOD", 1)
                        | put("CONTROL", "FLOOD_MODE", h["SLK_FLOOD_ESCAPE"]))
        while get("STATUS", "FLOOD_BUSY", await bus.read(h["SLK_STATUS"])):
            pass
        ref = flood(state.geometry, FloodMode.ESCAPE, state.s0, state.s1)
        status = await bus.read(h["SLK_STATUS"])
        assert get("STATUS", "FLOOD_COMPLETE", status) == ref.complete
        assert get("FLOOD_ITERATIONS", "COUNT",
                   await bus.read(h["SLK_FLOOD_ITERATIONS"])) == ref.iterations
        p = pick(state.geometry, state.s1)
        assert get("PICK_S", "COUNT", await bus.read(h["SLK_PICK_S"])) == p.S
        assert get("PICK_B", "COUNT", await bus.read(h["SLK_PICK_B"])) == p.B
        assert get("STATUS", "PICK_OK", status) == p.ok

    run(dut, bench)


def replay_through_bus(dut, puzzle, max_rows, max_cols, max_checks, *, cells_every=50):
    """Drive the accelerator through the golden search of ``puzzle`` and compare."""
    events = list(golden.replay(puzzle, max_checks=max_checks))
    golden.check_replay(puzzle, events, max_checks=max_checks)
    counts = {"check": 0, "flood": 0, "pick": 0}

    async def bench(ctx):
        dev = Device(ctx, dut)
        await dev.load(puzzle)
        for event in events:
            kind = event[0]
            counts[kind] += 1
            if kind == "check":
                _, assignment, state = event
                await dev.assign(puzzle, assignment)
                compare_state(await dev.read(Status), state)
                if counts["check"] % cells_every == 0:
                    await compare_cells(dev, puzzle, state, max_rows, max_cols)
            elif kind == "flood":
                _, mode, s0, s1, ref = event
                assert await dev.flood(mode) == (ref.complete, ref.iterations)
            else:
                _, s1, ref = event
                status = await dev.read(Status)
                assert status["pick_ok"] == ref.ok
                assert [(await dev.read(reg))["count"] for reg in (PickS, PickI, PickB)] == \
                    [ref.S, ref.I, ref.B]

    run(dut, bench)
    return counts


def test_search_replay_through_bus():
    """The states a real search visits, on a build larger than the puzzle."""
    dut = Accelerator(6, 7)
    total = {"check": 0, "flood": 0, "pick": 0}
    for name, limit in (("janko_0006", None), ("janko_0003", None),
                        ("edge_3x3_noclues", None), ("edge_1x3_two_solutions", None),
                        ("edge_2x4_global_unsat", None), ("edge_1x1_blank", None),
                        ("edge_1x1_0", None)):
        counts = replay_through_bus(dut, golden.load_puzzle(name), 6, 7, limit)
        for k in total:
            total[k] += counts[k]
    assert total["check"] > 300 and total["flood"] > 30 and total["pick"] >= 5


@pytest.mark.slow
@pytest.mark.parametrize("name", ["janko_0011", "loopy_5x5_easy_03", "pzpr_cspuz_example",
                                  "edge_3x3_noclues", "edge_2x5_local_unsat"])
def test_search_replay_through_bus_slow(name):
    dut = Accelerator(7, 8)
    counts = replay_through_bus(dut, golden.load_puzzle(name), 7, 8, 3000, cells_every=20)
    assert counts["check"] > 0


def test_invalid_cell_words_force_nothing():
    """Through the bus (the Requirements decoder at the write port): attribute 0b11,
    patterns beyond the digit's, clue codes 5..7 and a blank cell's pattern."""
    rng = random.Random(61)
    dut = Accelerator(4, 5)
    n_patterns = {0: 1, 1: 4, 2: 6, 3: 4}

    async def bench(ctx):
        dev = Device(ctx, dut)
        for i in range(30):
            rows, cols = rng.randint(1, 4), rng.randint(1, 5)
            puzzle, assignment = golden.random_state(rng, rows, cols)
            await dev.load(puzzle)
            await dev.assign(puzzle, assignment)
            valid = dict(assignment)
            for _ in range(4):
                r, c = rng.randrange(rows), rng.randrange(cols)
                clue = puzzle.clues[r][c]
                kind = rng.randrange(3)
                if kind == 0:
                    word = (4 if clue is None else clue, rng.randrange(8), 0b11)
                elif kind == 1 and clue is not None:
                    word = (clue, rng.randrange(n_patterns[clue], 8), rng.choice((1, 2)))
                else:
                    word = (rng.randrange(5, 8), rng.randrange(8), rng.randrange(4))
                await dev.write_cell(r, c, *word)
                valid.pop((r, c), None)
                state = partial_condition(puzzle, valid)
                compare_state(await dev.read(Status), state)
                got = await dev.read_cell(r, c)
                assert (got["clue"], got["pattern"], got["attribute"]) == word  # stored as written
            await compare_cells(dev, puzzle, partial_condition(puzzle, valid), 4, 5)

    run(dut, bench)
