"""The solver accelerator behind its register interface (paper sections 3.2-3.3, Fig. 7).

``Accelerator(max_rows, max_cols)`` joins the cell register array
(:mod:`hw.cells`), the partial-condition checker (:mod:`hw.checker`), the flood
register array (:mod:`hw.flood`) and the hole detector (:mod:`hw.holes`), and
decodes its bus (:mod:`hw.bus`, PicoRV32's native interface, byte addresses
within the accelerator's window) from the register classes of
:mod:`spec.registers`: every address, field offset and width below comes from
them, so the generated C header matches the hardware by construction.

Bus timing (see also the timing contract in :mod:`spec.registers`):

* an access is accepted in the first cycle in which ``valid`` is high and it
  may proceed; ``ready`` (with ``rdata``) follows in the next cycle: an
  access without wait states takes 2 cycles (3 from the CPU: the SoC puts a
  register stage before the engines, docs/soc.md "The bus");
* wait states: every access waits while the pipelines settle after a state
  change (``settle`` cycles after a CELL, SIZE or CONTROL clear/unassign
  write), so a read always reflects every earlier write; writes also wait
  while a flood is pending or running, so the flood sees a stable state;
* a CONTROL write with ``flood`` marks the flood pending; it starts once the
  pipelines have settled (immediately unless the same write cleared cells);
  STATUS.flood_busy is set from the cycle after that write;
* unknown addresses read as 0 and ignore writes; read-only registers ignore
  writes; write-only CONTROL reads as 0.  A field is written only when
  ``wstrb`` enables every byte it occupies (a CELL write needs byte 0).
"""

from amaranth import Cat, Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In

from slitherlink.spec import registers as regmap
from slitherlink.spec.registers import ADDR_WIDTH

from . import bus
from .bus import field_lanes, field_of, pack
from .cells import CELL_FIELDS, CellArray, CellLayout, check_build_size, grid_index
from .checker import Checker, Requirements
from .flood import Flood
from .holes import Holes

__all__ = ["Accelerator"]


class Accelerator(wiring.Component):
    """The memory-mapped solver accelerator; ``bus`` is a target port.

    ``max_rows`` x ``max_cols`` is the largest puzzle the build accepts (up to
    the 64x64 CELL window); the puzzle's own size is set at run time in SIZE.
    ``settle`` is the number of wait-state cycles after a state change.
    """

    bus: In(bus.Signature(addr_width=ADDR_WIDTH))

    def __init__(self, max_rows, max_cols, *, register_every=4):
        check_build_size(max_rows, max_cols)
        self.max_rows, self.max_cols = max_rows, max_cols
        self.cells = CellArray(max_rows, max_cols)
        self.requirements = Requirements()
        self.checker = Checker(max_rows, max_cols)
        self.flood = Flood(max_rows, max_cols)
        self.holes = Holes(max_rows, max_cols, register_every=register_every)
        self.settle = max(self.checker.latency, self.checker.s_latency + self.holes.latency)
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.cells = cells = self.cells
        m.submodules.requirements = requirements = self.requirements
        m.submodules.checker = checker = self.checker
        m.submodules.flood = flood = self.flood
        m.submodules.holes = holes = self.holes
        geo = cells.geometry

        m.d.comb += [
            requirements.state.eq(cells.data), cells.need.eq(requirements.need),
            checker.needs.eq(cells.needs), checker.grid.eq(cells.grid),
            flood.s0.eq(checker.s0), flood.s1.eq(checker.s1), flood.grid.eq(cells.grid),
            holes.inside.eq(checker.inside),
        ]

        # --- settling and the flood start ----------------------------------
        settle = Signal(range(self.settle + 1), init=self.settle)
        settled = settle == 0
        changed = Signal()  # the accepted access changes the cell state
        with m.If(changed):
            m.d.sync += settle.eq(self.settle)
        with m.Elif(~settled):
            m.d.sync += settle.eq(settle - 1)

        flood_pending = Signal()
        flood_mode = Signal(len(flood.mode))
        m.d.comb += flood.mode.eq(flood_mode)
        with m.If(flood_pending & settled):
            m.d.comb += flood.start.eq(1)
            m.d.sync += flood_pending.eq(0)
        flood_busy = flood_pending | flood.busy

        # --- bus decode ------------------------------------------------------
        b = self.bus
        ready = Signal()
        rdata = Signal(32)
        m.d.comb += [b.ready.eq(ready), b.rdata.eq(rdata)]
        m.d.sync += ready.eq(0)

        is_write = b.wstrb.any()
        word = b.addr[2:]
        accept = b.valid & ~ready & settled & ~(is_write & flood_busy)

        # the cell window: CELL(row, col) at CELL_BASE + 4 * (row * CELL_STRIDE + col)
        stride_bits = (regmap.CELL_STRIDE - 1).bit_length()
        assert 1 << stride_bits == regmap.CELL_STRIDE, "CELL_STRIDE must be a power of two"
        assert regmap.CELL_BASE % (4 * regmap.CELL_STRIDE) == 0
        cell_offset = (b.addr - regmap.CELL_BASE)[2:]
        cell_col = cell_offset[:stride_bits]
        cell_row = cell_offset[stride_bits:stride_bits + (regmap.CELL_ROWS_MAX - 1).bit_length()]
        in_window = (b.addr >= regmap.CELL_BASE) & (b.addr < regmap.WINDOW_SIZE)
        in_build = in_window & (cell_row < self.max_rows) & (cell_col < self.max_cols)

        # read values, each packed from its register class
        # the CELL read mux: one word per cell (state, s0, s1), rows padded to a power
        # of two so that the index is just {row, col} (no multiplier)
        col_bits = max(1, (self.max_cols - 1).bit_length())
        row_bits = max(1, (self.max_rows - 1).bit_length())
        words = []
        for r in range(1 << row_bits):
            for c in range(1 << col_bits):
                if r < self.max_rows and c < self.max_cols:
                    framed = (r + 1) * geo.width + c + 1
                    words.append(Cat(cells.cells[grid_index(self.max_cols, r, c)].as_value(),
                                     checker.s0[framed], checker.s1[framed]))
                else:
                    words.append(Const(0, CellLayout.size + 2))
        cell_word = Cat(*words).word_select(Cat(cell_col[:col_bits], cell_row[:row_bits]),
                                            CellLayout.size + 2)
        cell_fields = {f.name: cell_word[CellLayout[f.name].offset:][:f.width] for f in CELL_FIELDS}
        reads = {
            regmap.Id: pack(regmap.Id, version=Const(regmap.VERSION, 8),
                            magic=Const(regmap.ID_MAGIC, 24)),
            regmap.Config: pack(regmap.Config, max_rows=Const(self.max_rows, 8),
                                max_cols=Const(self.max_cols, 8)),
            regmap.Size: pack(regmap.Size, rows=cells.rows, cols=cells.cols),
            regmap.Status: pack(regmap.Status, conflict=checker.conflict,
                                checkerboard=checker.checkerboard, flood_busy=flood_busy,
                                flood_complete=flood.complete, pick_ok=holes.ok,
                                inside_empty=holes.empty),
            regmap.FloodIterations: pack(regmap.FloodIterations, count=flood.iterations),
            regmap.PickS: pack(regmap.PickS, count=holes.S),
            regmap.PickI: pack(regmap.PickI, count=holes.I),
            regmap.PickB: pack(regmap.PickB, count=holes.B),
        }
        cell_read = pack(regmap.Cell, **cell_fields, s0=cell_word[CellLayout.size],
                         s1=cell_word[CellLayout.size + 1])

        with m.If(accept):
            m.d.sync += [ready.eq(1), rdata.eq(0)]
            with m.If(~is_write):
                with m.If(in_build):
                    m.d.sync += rdata.eq(cell_read)
                with m.Else():
                    with m.Switch(word):
                        for register, value in reads.items():
                            if "r" in register.access:
                                with m.Case(register.address >> 2):
                                    m.d.sync += rdata.eq(value)
            with m.Else():
                wstrb, wdata = b.wstrb, b.wdata
                with m.If(in_build):
                    lanes = Cat(*(field_lanes(regmap.Cell, f.name, wstrb) for f in CELL_FIELDS))
                    with m.If(lanes.all()):
                        m.d.comb += [
                            cells.write.eq(1), cells.row.eq(cell_row), cells.col.eq(cell_col),
                            changed.eq(1),
                        ]
                        for f in CELL_FIELDS:
                            m.d.comb += cells.data[f.name].eq(field_of(regmap.Cell, f.name, wdata))
                with m.Elif(word == regmap.Size.address >> 2):
                    for name, current, port in (("rows", cells.rows, cells.size_rows),
                                                ("cols", cells.cols, cells.size_cols)):
                        with m.If(field_lanes(regmap.Size, name, wstrb)):
                            m.d.comb += port.eq(field_of(regmap.Size, name, wdata))
                        with m.Else():
                            m.d.comb += port.eq(current)
                    m.d.comb += [cells.size_write.eq(1), changed.eq(1)]
                with m.Elif(word == regmap.Control.address >> 2):
                    def command(name):
                        return field_lanes(regmap.Control, name, wstrb) & \
                            field_of(regmap.Control, name, wdata).any()
                    m.d.comb += [cells.clear.eq(command("clear")),
                                 cells.unassign.eq(command("unassign"))]
                    with m.If(command("clear") | command("unassign")):
                        m.d.comb += changed.eq(1)
                    with m.If(command("flood")):
                        m.d.sync += flood_pending.eq(1)
                        with m.If(field_lanes(regmap.Control, "flood_mode", wstrb)):
                            m.d.sync += flood_mode.eq(field_of(regmap.Control, "flood_mode", wdata))
                        with m.Else():
                            m.d.sync += flood_mode.eq(0)
        return m
