"""The deduction engine behind its register interface (docs/deduce.md section 5; DESIGN.md
section 6).

:class:`DeduceEngine` joins the probing sequencer (:class:`~hw.deduce.prober.Prober`, which
holds the state and runs propagation and probing) with what the search around it needs, so
that the firmware only *chooses*: one register write per step of
:func:`model.deduce.solve`:

* the puzzle: the clue registers (DEDUCE_CLUE) and the run-time size and island flag
  (DEDUCE_SIZE), decoded into the clue bitboards and the grid the rule array takes;
* LOAD: the initial state (cells beyond the grid OUT, variables the puzzle lacks S,
  the rest unknown), the label registers cleared, the trail emptied, the counters zeroed;
* DEDUCE: :meth:`model.deduce.Engine.deduce`;
* DECIDE: the branch picker takes a cell: the prober's ``best_cell`` (the cell whose
  weaker probe deduced the most, :meth:`model.deduce.Engine.deduce`), or, if it has
  none, the first unknown grid cell with a known neighbour in row-major order; the state, the label registers and
  the cell are pushed on the **trail**; the cell is set IN; deduce;
* BACKTRACK: the trail's top entry is popped, its state and label registers restored,
  its cell set OUT; deduce.

The trail lives in block RAM (an Amaranth :class:`~amaranth.lib.memory.Memory`): one
entry is the snapshot vector (the 10 state bitboards, the label registers and the
decision's cell, one-hot) cut into ``words`` words, by default one per framed row of the
build, moved one word per clock (a push costs ``words`` clocks, a pop ``words + 1``),
as DESIGN.md section 6's cost model assumes.  ``trail_depth`` entries; DECIDE with a full
trail is ignored (STATUS.trail_full), and the firmware reports LIMIT.

Counters (DEDUCE_* counter registers, :data:`spec.registers.DEDUCE_HW_COUNTERS`), zeroed by
LOAD: the prober's totals (sweeps, floods, flood_iterations, label_runs,
label_iterations, probes, probe_hits, saves, restores) plus one save per DECIDE and one
restore per BACKTRACK, ``decisions``, ``backtracks`` (equal to the model's counters of
the same search) and ``clocks``, every clock a command kept the engine busy.

Bus timing (:mod:`hw.bus`): reads answer in 2 cycles, always (STATUS.busy tells whether a
command runs); writes wait (no ``ready``) while a command runs, so a command written
while another runs starts after it.  Unknown addresses read 0 and ignore writes.  Every
address and field comes from :mod:`spec.registers`.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In

from slitherlink.spec import registers as regmap
from slitherlink.spec.deduce import C0, C1, VARS

from .. import bus
from ..accelerator import ADDR_WIDTH, field_lanes, field_of, pack
from .prober import PROPAGATOR_COUNTERS, Prober
from .sweep import BOARDS, runtime_valid, shift

__all__ = ["DeduceEngine", "register_file"]

#: the prober's per-run counters, added to the totals when a run ends
_RUN_COUNTERS = ("probes", "probe_hits", "saves", "restores") + PROPAGATOR_COUNTERS
_TOTAL_WIDTH = 32


class DeduceEngine(wiring.Component):
    """The memory-mapped deduction engine; ``bus`` is a target port.

    ``max_rows`` x ``max_cols``: the largest puzzle the build takes; ``trail_depth``: the
    decisions the trail holds; ``words``: words per trail entry (default: the framed rows
    of the build, ``max_rows + 2``).
    """

    bus: In(bus.Signature(addr_width=ADDR_WIDTH))

    def __init__(self, max_rows, max_cols, *, trail_depth=64, words=None):
        regmap.check_build_size(max_rows, max_cols)
        if not isinstance(trail_depth, int) or not 1 <= trail_depth < 1 << 16:
            raise ValueError(f"trail_depth must be an integer from 1 to 65535, "
                             f"not {trail_depth!r}")
        words = max_rows + 2 if words is None else words
        if not isinstance(words, int) or words < 1:
            raise ValueError(f"words must be a positive integer, not {words!r}")
        self.max_rows, self.max_cols = max_rows, max_cols
        self.trail_depth, self.words = trail_depth, words
        self.prober = Prober(max_rows, max_cols)
        self.geometry = self.prober.geometry
        n = self.geometry.cells
        self.snapshot_bits = BOARDS * n + len(self.prober.labels_in) + n
        self.word_bits = -(-self.snapshot_bits // words)
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.prober = prober = self.prober
        geo, n, w = self.geometry, self.geometry.cells, self.geometry.width
        R, C = self.max_rows, self.max_cols

        # --- the puzzle: size, island flag, clues -----------------------------------
        rows = Signal(8, init=R)
        cols = Signal(8, init=C)
        island = Signal()
        clue_code = [[Signal(3, name=f"clue_{r}_{c}", init=regmap.CLUE_BLANK)
                      for c in range(C)] for r in range(R)]
        grid = Signal(n)
        row_on = [Signal(name=f"row_on_{r}") for r in range(R)]
        col_on = [Signal(name=f"col_on_{c}") for c in range(C)]
        m.d.comb += [row_on[r].eq(r < rows) for r in range(R)]
        m.d.comb += [col_on[c].eq(c < cols) for c in range(C)]
        grid_bits = [Const(0, 1)] * n
        clue_bits = [[Const(0, 1)] * n for _ in range(4)]
        for r in range(R):
            for c in range(C):
                p = (r + 1) * w + c + 1
                grid_bits[p] = row_on[r] & col_on[c]
                for d in range(4):
                    clue_bits[d][p] = grid_bits[p] & (clue_code[r][c] == d)
        m.d.comb += grid.eq(Cat(*grid_bits))
        m.d.comb += [prober.grid.eq(grid), prober.island.eq(island)]
        m.d.comb += [prober.clue[d].eq(Cat(*clue_bits[d])) for d in range(4)]

        # --- the state as the search sees it -------------------------------------------
        s = prober.state
        known = s[C0] | s[C1]
        unknown = grid & ~known
        near = shift(known, 1, n) | shift(known, -1, n) | shift(known, w, n) | shift(known, -w, n)
        candidates = Signal(n)
        pick = Signal(n)   # the branch picker: the prober's best cell, else the first candidate
        m.d.comb += [candidates.eq(unknown & near),
                     pick.eq(Mux(prober.best_cell.any(), prober.best_cell,
                                 candidates & (~candidates + 1)))]
        complete = ~unknown.any()

        initial = Signal(data.ArrayLayout(n, BOARDS))
        valid = runtime_valid(grid, w, n)
        for i in range(BOARDS):
            var = VARS[i // 2]
            if i == C0:
                m.d.comb += initial[i].eq(~grid)
            elif i % 2 == 0:
                m.d.comb += initial[i].eq(Const(geo.valid[var], n) & ~valid[var])
            else:
                m.d.comb += initial[i].eq(0)

        # --- the trail ----------------------------------------------------------------
        k_words, width = self.words, self.word_bits
        m.submodules.trail = trail = Memory(shape=width, depth=self.trail_depth * k_words,
                                            init=[])
        trail_w = trail.write_port()
        trail_r = trail.read_port(transparent_for=())
        cell = Signal(n)                    # the decision being pushed / popped, one-hot
        snapshot = Cat(s.as_value(), prober.labels_saved, cell)
        padded = Cat(snapshot, Const(0, width * k_words - len(snapshot)))
        staging = Signal(width * k_words)   # a popped entry, word by word
        st_state = staging[:BOARDS * n]
        st_labels = staging[BOARDS * n:BOARDS * n + len(prober.labels_in)]
        st_cell = staging[BOARDS * n + len(prober.labels_in):][:n]
        depth = Signal(range(self.trail_depth + 1))     # entries on the trail
        base = Signal(range(self.trail_depth * k_words + 1))  # depth * words
        word = Signal(range(k_words + 1))
        arrived = Signal(range(k_words + 1))   # the word the read port delivers now
        m.d.comb += [trail_w.data.eq(padded.word_select(word, width)),
                     trail_w.addr.eq(base + word),
                     trail_r.addr.eq(base + word)]
        trail_empty = depth == 0
        trail_full = depth == self.trail_depth

        # --- counters -------------------------------------------------------------------
        totals = {name: Signal(_TOTAL_WIDTH, name=f"total_{name}")
                  for name in regmap.DEDUCE_HW_COUNTERS}
        conflict = Signal()

        def load_with(value, colour_board, colour_cell):
            """Load ``value`` into the state with ``colour_cell`` added to ``colour_board``."""
            m.d.comb += [prober.load.eq(1), prober.state_in.eq(value)]
            m.d.comb += prober.state_in[colour_board].eq(
                value[colour_board * n:(colour_board + 1) * n] | colour_cell)

        # --- the command sequencer -------------------------------------------------------
        command = {name: Signal(name=f"cmd_{name}") for name in ("load", "deduce", "decide",
                                                                  "backtrack")}
        busy = Signal()
        with m.FSM(name="engine"):
            with m.State("IDLE"):
                with m.If(command["load"]):
                    m.d.comb += [prober.load.eq(1), prober.state_in.eq(initial),
                                 prober.clear_labels.eq(1)]
                    m.d.sync += [t.eq(0) for t in totals.values()]
                    m.d.sync += [depth.eq(0), base.eq(0), conflict.eq(0)]
                with m.Elif(command["deduce"]):
                    m.d.comb += prober.start.eq(1)
                    m.next = "RUN"
                with m.Elif(command["decide"] & ~trail_full & ~complete):
                    m.d.sync += [cell.eq(pick), word.eq(0)]
                    m.next = "PUSH"
                with m.Elif(command["backtrack"] & ~trail_empty):
                    m.d.sync += [depth.eq(depth - 1), base.eq(base - k_words), word.eq(0)]
                    m.next = "POP"
            with m.State("PUSH"):           # one word of the snapshot per clock
                m.d.comb += [busy.eq(1), trail_w.en.eq(1)]
                m.d.sync += word.eq(word + 1)
                with m.If(word == k_words - 1):
                    m.d.sync += [depth.eq(depth + 1), base.eq(base + k_words),
                                 totals["decisions"].eq(totals["decisions"] + 1),
                                 totals["saves"].eq(totals["saves"] + 1)]
                    m.next = "ASSUME_IN"
            with m.State("ASSUME_IN"):
                m.d.comb += busy.eq(1)
                load_with(s.as_value(), C1, cell)
                m.next = "START"
            with m.State("POP"):            # read word k while word k-1 arrives
                m.d.comb += busy.eq(1)
                m.d.sync += [word.eq(word + 1), arrived.eq(word)]
                with m.If(word != 0):
                    m.d.sync += staging.word_select(arrived, width).eq(trail_r.data)
                with m.If(word == k_words):
                    m.d.sync += [totals["backtracks"].eq(totals["backtracks"] + 1),
                                 totals["restores"].eq(totals["restores"] + 1)]
                    m.next = "ASSUME_OUT"
            with m.State("ASSUME_OUT"):
                m.d.comb += [busy.eq(1), prober.restore_labels.eq(1),
                             prober.labels_in.eq(st_labels)]
                load_with(st_state, C0, st_cell)
                m.next = "START"
            with m.State("START"):
                m.d.comb += [busy.eq(1), prober.start.eq(1)]
                m.next = "RUN"
            with m.State("RUN"):
                m.d.comb += busy.eq(1)
                with m.If(prober.done):
                    m.d.sync += conflict.eq(prober.conflict)
                    for name in _RUN_COUNTERS:
                        m.d.sync += totals[name].eq(totals[name] + getattr(prober, name))
                    m.next = "IDLE"
        with m.If(busy):
            m.d.sync += totals["clocks"].eq(totals["clocks"] + 1)

        # --- the registers --------------------------------------------------------------
        # DEDUCE_ROW(r, half): the IN bits of grid row r, 32 columns a word
        rows_read = []
        for r in range(R):
            inside = s[C1][(r + 1) * w + 1:(r + 1) * w + 1 + C]
            rows_read += [(regmap.deduce_row_address(r, half), inside[32 * half:32 * half + 32])
                          for half in range((C + 31) // 32)]
        regs = register_file(m, self.bus, config=(R, C, self.trail_depth),
                             size=dict(rows=rows, cols=cols, island=island),
                             status=dict(busy=busy, conflict=conflict, complete=complete,
                                         trail_empty=trail_empty, trail_full=trail_full),
                             totals=totals, command=command, words=rows_read)
        with m.If(regs.clue_write):
            value = field_of(regmap.DeduceClue, "clue", self.bus.wdata)
            for r in range(R):
                for c in range(C):
                    with m.If((regs.clue_row == r) & (regs.clue_col == c)):
                        m.d.sync += clue_code[r][c].eq(value)
        return m


class RegisterAccess:
    """What :func:`register_file` leaves to the engine: a clue write (``clue_write`` for
    one clock, at ``clue_row``, ``clue_col``; the value is in the bus's ``wdata``) and a
    read of DEDUCE_ROW (``row_read`` for one clock, at ``row``, ``row_half``; the engine
    may drive the bus's ``rdata`` in the clock after it, when ``ready`` is high)."""

    def __init__(self, **signals):
        self.__dict__.update(signals)


def register_file(m, b, *, config, size, status, totals, command, words=()):
    """The DEDUCE register decode shared by the engines (:mod:`spec.registers`).

    ``b``: the engine's bus (:mod:`hw.bus`; reads answer in 2 cycles, writes wait while
    STATUS.busy; unknown addresses read 0 and ignore writes); ``config``: the build's
    ``(max_rows, max_cols, trail_depth)``; ``size``: the DEDUCE_SIZE fields' registers by
    name, written here; ``status``: the DEDUCE_STATUS fields' values by name; ``totals``:
    the counter registers' values by :data:`~spec.registers.DEDUCE_HW_COUNTERS` name;
    ``command``: a signal per DEDUCE_CONTROL field, high for the clock its write is
    accepted; ``words``: further ``(byte address, value)`` reads.  Returns a
    :class:`RegisterAccess`."""
    max_rows, max_cols, trail_depth = config
    busy = status["busy"]
    reads = [(regmap.DeduceConfig, dict(max_rows=Const(max_rows, 8), max_cols=Const(max_cols, 8),
                                        trail_depth=Const(trail_depth, 16))),
             (regmap.DeduceSize, size), (regmap.DeduceStatus, status)]
    ready = Signal()
    rdata = Signal(32)
    m.d.comb += [b.ready.eq(ready), b.rdata.eq(rdata)]
    m.d.sync += ready.eq(0)
    is_write = b.wstrb.any()
    addr_word = b.addr[2:]
    accept = b.valid & ~ready & ~(is_write & busy)

    stride_bits = (regmap.CELL_STRIDE - 1).bit_length()
    row_bits = (regmap.CELL_ROWS_MAX - 1).bit_length()
    clue_offset = (b.addr - regmap.DEDUCE_CLUE_BASE)[2:]
    in_clues = (b.addr >= regmap.DEDUCE_CLUE_BASE) & (b.addr < regmap.WINDOW_SIZE)
    row_offset = (b.addr - regmap.DEDUCE_ROW_BASE)[2:]
    in_rows = ((b.addr >= regmap.DEDUCE_ROW_BASE)
               & (b.addr < regmap.DEDUCE_ROW_BASE + 8 * regmap.CELL_ROWS_MAX))
    access = RegisterAccess(clue_write=Signal(), clue_row=clue_offset[stride_bits:][:row_bits],
                            clue_col=clue_offset[:stride_bits], row_read=Signal(),
                            row=row_offset[1:][:row_bits], row_half=row_offset[0])

    reads_at = [(regmap.DeduceId.address,
                 pack(regmap.DeduceId, version=Const(regmap.DEDUCE_VERSION, 8),
                      magic=Const(regmap.DEDUCE_ID_MAGIC, 24)))]
    reads_at += [(register.address, pack(register, **fields)) for register, fields in reads]
    reads_at += [(register.address, pack(register, count=totals[name]))
                 for register, name in zip(regmap.DEDUCE_COUNTER_REGISTERS,
                                           regmap.DEDUCE_HW_COUNTERS)]
    reads_at += list(words)

    with m.If(accept):
        m.d.sync += [ready.eq(1), rdata.eq(0)]
        with m.If(~is_write):
            m.d.comb += access.row_read.eq(in_rows)
            with m.Switch(addr_word):
                for address, value in reads_at:
                    with m.Case(address >> 2):
                        m.d.sync += rdata.eq(value)
        with m.Else():
            wdata, wstrb = b.wdata, b.wstrb
            with m.If(in_clues):
                m.d.comb += access.clue_write.eq(field_lanes(regmap.DeduceClue, "clue", wstrb))
            with m.Elif(addr_word == regmap.DeduceSize.address >> 2):
                for name, target in size.items():
                    with m.If(field_lanes(regmap.DeduceSize, name, wstrb)):
                        m.d.sync += target.eq(field_of(regmap.DeduceSize, name, wdata))
            with m.Elif(addr_word == regmap.DeduceControl.address >> 2):
                for name, sig in command.items():
                    m.d.comb += sig.eq(field_lanes(regmap.DeduceControl, name, wstrb)
                                       & field_of(regmap.DeduceControl, name, wdata).any())
    return access
