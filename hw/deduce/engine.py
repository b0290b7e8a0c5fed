"""The deduction engine behind the DEDUCE registers (docs/design.md section 6; docs/deduce.md).

:class:`DeduceEngine` runs the search's steps that the firmware asks for, one register
write each (:mod:`spec.registers`; :func:`model.deduce.solve` is the search): the state
is in memories that a :class:`~hw.deduce.prober.Prober` streams ``band`` framed rows a
clock (:mod:`model.band` is its golden model, clock for clock).  Words and groups as
:mod:`hw.deduce.sweep`: ``groups = ceil((max_rows + 2) / band)`` words of ``band x
(max_cols + 2)`` cells; ``band = max_rows + 2`` is the whole grid in one word.

Commands (DEDUCE_CONTROL; each keeps STATUS.busy high until it ends):

* **DEDUCE_CLUE** writes (before LOAD) go straight into the clue memory: the word of the
  clue's row is read and written back with the cell's clue bits changed (2 clocks).
* **DEDUCE_CLUES** writes (before LOAD, after DEDUCE_SIZE) stream eight clues in the
  grid's row-major order, one cell a clock: a cursor (row, column, and the cell's bit in
  its group's word) starts at cell (0, 0) on every DEDUCE_SIZE write; the clues of the
  cursor's group collect in a word that is written to the clue memory with every cell
  (started empty in each new group: the cells it does not reach are blank).
* **LOAD**: for every group, the clue word is read and written back with the grid of the
  run-time size (DEDUCE_SIZE) and the clues masked by it, and the state word is written
  with the initial state (cells beyond the grid OUT, variables the puzzle lacks S, the
  rest unknown) - 2 clocks a group; then the label memory is cleared (``groups``
  clocks); the trail is emptied and the counters zeroed.
* **DEDUCE**: the prober runs :meth:`model.deduce.Engine.deduce`, its first sweep pass
  over every group of the grid (DEDUCE_SIZE's rows; a sweep pass never writes the groups
  below them); after DECIDE and BACKTRACK over the decision's group and
  one either side (:class:`~hw.deduce.prober.Prober`'s spans).
* **DECIDE**: the prober's best cell (the cell whose weaker probe deduced the most) is
  pushed on the trail with the state and label words and the labels' dirty bit, set IN,
  and deduced.  A push copies one word of state and labels a clock (``groups + 1``
  clocks; in its last clock the cell's word is written back with the cell IN).  When
  the prober has no best cell, DECIDE is ignored, like DECIDE on a full trail or a
  complete state: after a DEDUCE that ended without a conflict on an incomplete state
  there always is one (every unknown cell with a known neighbour was probed, both
  probes succeeded and scored; if there was none, the far pass probed the others).
* **BACKTRACK**: the top entry is popped, its words written back (``groups + 1``
  clocks, the decision's cell OUT in its word), its dirty bit restored, and deduced.

**The trail** is a :class:`~amaranth.lib.memory.Memory` of ``trail_depth x groups``
words of state and labels (block RAM) and a small memory of the decisions (cell and
dirty bit, ``trail_depth`` entries).

**Counters** (DEDUCE_* counter registers, zeroed by LOAD): ``sweeps``, ``floods``,
``label_runs``, ``probes``, ``probe_hits``, ``saves``, ``restores``, ``decisions``,
``backtracks`` equal :func:`model.deduce.solve`'s; ``flood_iterations`` and
``label_iterations`` count the flood and label *passes* over the memories
(:class:`model.band.BandCounters` ``flood_passes`` and ``label_passes``; the label
passes include those of label runs dropped beside a flood run that deduced something, see
:class:`~hw.deduce.propagator.Propagator`); ``clocks`` counts every clock a
DEDUCE, DECIDE or BACKTRACK kept the engine busy (not the clue writes or LOAD).  They are
a :class:`~hw.deduce.counters.CounterBank` with one adder: a push adds its decision and
save, a pop its backtrack and restore, in their first clocks, and a run's counts are added
one a clock in the ``len(_FROM_PROBER)`` clocks after it (COUNT), with STATUS.busy low.

**Reads** answer in 2 cycles (3 from the CPU, through the SoC's register stage,
docs/soc.md "The bus"), but a DEDUCE_COLOURING read, which waits for its word: the
:class:`~hw.deduce.colouring.ColouringPacker` makes the solution in the state memory
into the replies' colouring, a word at a time, while no command runs, and a counter's,
which waits while a command runs or COUNT adds.  Writes wait while a command runs or
COUNT adds.  The register decode is
:func:`hw.deduce.registers.register_file`'s.
"""

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In

from slitherlink.spec import registers as regmap
from slitherlink.spec.deduce import C0, C1, VARS

from .. import bus
from ..bus import field_of
from .colouring import ColouringPacker
from .counters import CounterBank
from .prober import PROPAGATOR_COUNTERS, Prober
from .propagator import span_around
from .registers import register_file
from .rules import BOARDS, runtime_valid, valid_reach
from .sweep import band_groups

__all__ = ["DeduceEngine", "LUT_RAM_DEPTH"]

#: Bits of a counter register (DeduceCounter's field)
_TOTAL_WIDTH = regmap.DEDUCE_COUNTER_REGISTERS[0].field("count").width

#: The deepest memories the engine leaves in LUT RAM by default: an XC7 LUT holds 32 words
#: of two bits (RAM32M), and a deeper memory takes twice the LUTs (RAM64M), more than the
#: block RAM it could have (the 36x20 build: 38 groups, about 1,200 LUTs of memory).
LUT_RAM_DEPTH = 32

#: DEDUCE counter register <- the prober's per-run counter added when a run ends
_FROM_PROBER = {"sweeps": "sweeps", "floods": "floods", "flood_iterations": "flood_passes",
                "label_runs": "label_runs", "label_iterations": "label_passes",
                "probes": "probes", "probe_hits": "probe_hits", "saves": "saves",
                "restores": "restores"}
assert set(PROPAGATOR_COUNTERS) <= set(_FROM_PROBER.values())


class DeduceEngine(wiring.Component):
    """The memory-mapped band deduction engine; ``bus`` is a target port.

    ``max_rows`` x ``max_cols``: the largest puzzle the build takes; ``band``: framed rows
    a word; ``trail_depth``: the decisions the trail holds; ``ram_style``: as
    :class:`~hw.deduce.sweep.Sweep`'s, for every memory of the prober; by default
    ``"block"`` when the memories are deeper than :data:`LUT_RAM_DEPTH` words
    (``groups``), else yosys's choice; ``label_network``: the label stage's row
    network (:data:`~hw.deduce.labels.NETWORKS`; the same results and clocks).
    """

    bus: In(bus.Signature(addr_width=regmap.ADDR_WIDTH))

    def __init__(self, max_rows, max_cols, *, band=1, trail_depth=32, ram_style=None,
                 label_network="small"):
        regmap.check_build_size(max_rows, max_cols)
        if not isinstance(trail_depth, int) or not 1 <= trail_depth < 1 << 16:
            raise ValueError(f"trail_depth must be an integer from 1 to 65535, "
                             f"not {trail_depth!r}")
        self.max_rows, self.max_cols, self.band = max_rows, max_cols, band
        self.trail_depth = trail_depth
        self.label_network = label_network
        if ram_style is None and band_groups(max_rows, max_cols, band)[1] > LUT_RAM_DEPTH:
            ram_style = "block"
        self.ram_style = ram_style
        self.prober = Prober(max_rows, max_cols, band=band, ram_style=ram_style,
                                 label_network=label_network)
        self.geometry = self.prober.geometry
        self.groups = self.prober.groups
        self.word_bits = self.prober.word_bits
        #: bits of one trail word: a state word and a label word
        self.trail_bits = self.prober.state_layout.size + self.prober.label_layout.size
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.prober = prober = self.prober
        geo, band, groups, bits = self.geometry, self.band, self.groups, self.word_bits
        w, R, C = geo.width, self.max_rows, self.max_cols

        # --- the puzzle's size ------------------------------------------------------------
        rows = Signal(8, init=R)
        cols = Signal(8, init=C)
        island = Signal()
        m.d.comb += prober.island.eq(island)

        # --- a group's grid and initial state, from the size alone -----------------------
        g = Signal(range(groups))               # the group LOAD writes
        col_mask = Signal(w)                     # the grid's columns
        m.d.comb += col_mask.eq(Cat(Const(0, 1), *(c < cols for c in range(C)), Const(0, 1)))
        # grid rows g*band - up .. g*band + band - 1 + down: all the run-time masks read
        up, down = valid_reach()
        halo = max(up, down)
        window = []
        for j in range(-halo, band + halo):
            r = Signal(range(-halo, groups * band + halo), name=f"load_row_{j + halo}")
            row = Signal(w, name=f"load_grid_{j + halo}")
            m.d.comb += [r.eq(g * band + j), row.eq(Mux((r >= 1) & (r <= rows), col_mask, 0))]
            window.append(row)
        nwin = len(window) * w
        valid = runtime_valid(Cat(*window), w, nwin)
        centre = slice(halo * w, (halo + band) * w)
        grid_word = Signal(bits)
        m.d.comb += grid_word.eq(Cat(*window)[centre])
        exists = {var: Signal(bits, name=f"exists_{var}") for var in VARS}
        with m.Switch(g):                       # the build's variables in the group's rows
            for k in range(groups):
                with m.Case(k):
                    m.d.comb += [exists[var].eq(geo.valid[var] >> (k * bits) & ((1 << bits) - 1))
                                 for var in VARS]
        initial = Signal(self.prober.state_layout)
        for i in range(0, BOARDS, 2):
            var = VARS[i // 2]
            if i == C0:
                m.d.comb += initial[i].eq(exists[var] & ~grid_word)
            else:
                m.d.comb += initial[i].eq(exists[var] & ~valid[var][centre])
        loaded_clues = Signal(self.prober.clue_layout)
        m.d.comb += loaded_clues.grid.eq(grid_word)
        m.d.comb += [loaded_clues.clue[d].eq(prober.clue_out.clue[d] & grid_word)
                     for d in range(4)]

        # --- a clue write: the word of the clue's row, its bits changed -------------------
        clue_group = Signal(range(groups))
        clue_bit = Signal(bits)                  # the cell, one-hot in its word
        clue_value = Signal(3)
        edited_clues = Signal(self.prober.clue_layout)
        m.d.comb += edited_clues.grid.eq(prober.clue_out.grid)
        for d in range(4):
            m.d.comb += edited_clues.clue[d].eq(
                prober.clue_out.clue[d] & ~clue_bit | Mux(clue_value == d, clue_bit, 0))

        # --- the clue stream (DEDUCE_CLUES): a cursor and its group's clues so far ---------
        codes = Signal(32)
        left = Signal(range(regmap.DEDUCE_STREAM_CELLS + 1))   # codes of `codes` to stream
        s_row = Signal(8)
        s_col = Signal(8)
        s_j = Signal(range(band))               # the cursor's framed row within its group
        s_group = Signal(range(groups))
        first_j = 1 % band                      # grid row 0 is framed row 1
        s_row_start = Signal(bits)              # the cursor's row's column 0, one-hot
        s_bit = Signal(bits)                    # the cursor's cell, one-hot
        s_fresh = Signal()                      # a new group: its clues start empty
        s_clues = Signal(self.prober.clue_layout)   # the group's clues streamed so far
        s_valid = (s_row < rows) & (s_row < R)
        s_code = codes[:4]
        streamed = Signal(self.prober.clue_layout)
        for d in range(4):
            m.d.comb += streamed.clue[d].eq(Mux(s_fresh, 0, s_clues.clue[d])
                                            | Mux((s_code == d) & (s_col < C), s_bit, 0))

        # --- the trail ----------------------------------------------------------------------
        depth_words = self.trail_depth * groups
        m.submodules.trail = trail = Memory(shape=self.trail_bits, depth=depth_words, init=[])
        trail_w, trail_r = trail.write_port(), trail.read_port(transparent_for=())
        decision_layout = data.StructLayout({"group": range(groups), "pos": range(bits),
                                             "dirty": 1})
        m.submodules.decisions = decisions = Memory(shape=decision_layout,
                                                    depth=self.trail_depth, init=[])
        dec_w, dec_r = decisions.write_port(), decisions.read_port(transparent_for=())
        depth = Signal(range(self.trail_depth + 1))
        base = Signal(range(depth_words + 1))   # depth * groups
        t = Signal(range(groups + 2))
        trail_empty = depth == 0
        trail_full = depth == self.trail_depth
        cell_group = Signal(range(groups))       # the decision pushed or popped
        cell_bit = Signal(bits)
        cell_pos = Signal(range(bits))
        cell_word = Signal(self.prober.state_layout)   # its word, as pushed
        m.d.comb += [trail_w.data.eq(Cat(prober.state_out, prober.label_out)),
                     trail_w.addr.eq(base + t - 1),
                     trail_r.addr.eq(base + t),
                     dec_r.addr.eq(depth)]
        popped_state = Signal(self.prober.state_layout)
        popped_labels = Signal(self.prober.label_layout)
        m.d.comb += Cat(popped_state, popped_labels).eq(trail_r.data)

        def with_cell(word, board):
            """``word`` (a state word) with the decision's cell set in ``board``."""
            view = Signal(self.prober.state_layout, name=f"cell_word_{board}")
            out = Signal(self.prober.state_layout, name=f"with_cell_{board}")
            m.d.comb += [view.eq(word), out.eq(view), out[board].eq(view[board] | cell_bit)]
            return out

        # --- the sweep spans of the prober's first propagation: the grid's groups 0 .. limit
        # for DEDUCE (a loaded state), the decision's group and one either side for DECIDE and
        # BACKTRACK (the state before the cell was set is a fixpoint)
        limit = Signal(range(groups))
        with m.Switch(rows):
            for r in range(1, R + 1):
                with m.Case(r):
                    m.d.comb += limit.eq((r + 1) // band)
            with m.Default():
                m.d.comb += limit.eq(groups - 1)
        m.d.comb += [prober.limit.eq(limit),
                     *(a.eq(b) for a, b in zip((prober.first, prober.last),
                                               span_around(cell_group, cell_group, limit)))]

        # --- counters -------------------------------------------------------------------------
        # the counter registers, in their order (a register's index is its bank index)
        m.submodules.counters = counters = CounterBank(
            regmap.DEDUCE_HW_COUNTERS, width=_TOTAL_WIDTH, ticked="clocks",
            amount_width=max(len(getattr(prober, source)) for source in _FROM_PROBER.values()))
        counting = Signal()     # a run's counts are being added (COUNT)
        step = Signal(range(len(_FROM_PROBER)))
        engine_index = Signal.like(counters.index)
        engine_adds = Signal()
        conflict = Signal()
        complete = Signal()

        # --- the command sequencer --------------------------------------------------------
        command = {name: Signal(name=f"cmd_{name}") for name in ("load", "deduce", "decide",
                                                                  "backtrack")}
        clue_write = Signal()
        regs_clues_write = Signal()
        busy = Signal()       # STATUS.busy: a command or a clue write runs
        counted = Signal()    # the clocks DEDUCE, DECIDE and BACKTRACK take
        m.d.comb += counters.tick.eq(counted)

        def count(name, amount=1):
            """Add ``amount`` to counter ``name`` in this clock (the bank's one adder)."""
            m.d.comb += [engine_adds.eq(1), engine_index.eq(counters.index_of(name)),
                         counters.amount.eq(amount)]
        with m.FSM(name="band_engine"):
            with m.State("IDLE"):
                with m.If(clue_write):
                    m.next = "CLUE_READ"
                with m.Elif(regs_clues_write):
                    m.d.sync += [codes.eq(self.bus.wdata), left.eq(regmap.DEDUCE_STREAM_CELLS)]
                    m.next = "STREAM"
                with m.Elif(command["load"]):
                    m.d.sync += [g.eq(0), depth.eq(0), base.eq(0), conflict.eq(0),
                                 complete.eq(0)]
                    m.d.comb += counters.clear.eq(1)
                    m.next = "LOAD_READ"
                with m.Elif(command["deduce"]):
                    m.d.comb += [prober.start.eq(1), prober.first.eq(0), prober.last.eq(limit)]
                    m.next = "RUN"
                with m.Elif(command["decide"] & ~trail_full & ~complete & ~conflict
                            & prober.best_valid):
                    m.d.sync += [t.eq(0), cell_group.eq(prober.best_group),
                                 cell_pos.eq(prober.best_pos),
                                 cell_bit.eq(Const(1, bits) << prober.best_pos)]
                    m.next = "PUSH"
                with m.Elif(command["backtrack"] & ~trail_empty):
                    m.d.sync += [t.eq(0), depth.eq(depth - 1), base.eq(base - groups)]
                    m.next = "POP_CELL"
            with m.State("STREAM"):     # one code a clock; cells past the grid: none
                m.d.comb += busy.eq(1)
                m.d.sync += [codes.eq(codes >> 4), left.eq(left - 1)]
                with m.If(s_valid):
                    m.d.comb += [prober.waddr.eq(s_group), prober.clue_we.eq(1),
                                 prober.clue_in.eq(streamed)]
                    m.d.sync += [s_clues.eq(streamed), s_fresh.eq(0)]
                    with m.If(s_col + 1 == cols):
                        m.d.sync += [s_col.eq(0), s_row.eq(s_row + 1)]
                        with m.If(s_j == band - 1):
                            m.d.sync += [s_j.eq(0), s_group.eq(s_group + 1), s_fresh.eq(1),
                                         s_row_start.eq(1 << 1), s_bit.eq(1 << 1)]
                        with m.Else():
                            m.d.sync += [s_j.eq(s_j + 1), s_row_start.eq(s_row_start << w),
                                         s_bit.eq(s_row_start << w)]
                    with m.Else():
                        m.d.sync += [s_col.eq(s_col + 1), s_bit.eq(s_bit << 1)]
                with m.If(left == 1):
                    m.next = "IDLE"
            with m.State("CLUE_READ"):
                m.d.comb += [busy.eq(1), prober.addr.eq(clue_group)]
                m.next = "CLUE_WRITE"
            with m.State("CLUE_WRITE"):
                m.d.comb += [busy.eq(1), prober.waddr.eq(clue_group), prober.clue_we.eq(1),
                             prober.clue_in.eq(edited_clues)]
                m.next = "IDLE"
            with m.State("LOAD_READ"):
                m.d.comb += [busy.eq(1), prober.addr.eq(g)]
                m.next = "LOAD_WRITE"
            with m.State("LOAD_WRITE"):
                m.d.comb += [busy.eq(1), prober.waddr.eq(g),
                             prober.clue_we.eq(1), prober.clue_in.eq(loaded_clues),
                             prober.state_we.eq(1), prober.state_in.eq(initial)]
                m.d.sync += g.eq(g + 1)
                with m.If(g == groups - 1):
                    m.d.comb += prober.clear_labels.eq(1)
                    m.next = "LOAD_LABELS"
                with m.Else():
                    m.next = "LOAD_READ"
            with m.State("LOAD_LABELS"):
                m.d.comb += busy.eq(1)
                with m.If(~prober.busy):
                    m.next = "IDLE"
            with m.State("PUSH"):     # read group t; write group t - 1 to the trail
                m.d.comb += [busy.eq(1), counted.eq(1),
                             prober.addr.eq(t), prober.label_addr.eq(t)]
                m.d.sync += t.eq(t + 1)
                with m.If(t == 0):
                    count("decisions")
                with m.If(t == 1):
                    count("saves")
                with m.If(t == 0):
                    m.d.comb += [dec_w.addr.eq(depth), dec_w.en.eq(1),
                                 dec_w.data.group.eq(cell_group), dec_w.data.pos.eq(cell_pos),
                                 dec_w.data.dirty.eq(prober.dirty)]
                with m.Else():
                    m.d.comb += trail_w.en.eq(1)
                    with m.If(t - 1 == cell_group):
                        m.d.sync += cell_word.eq(prober.state_out)
                with m.If(t == groups):     # the decision: the cell IN, in its word
                    word = Mux(cell_group == groups - 1, prober.state_out.as_value(),
                               cell_word.as_value())
                    m.d.comb += [prober.waddr.eq(cell_group), prober.state_we.eq(1),
                                 prober.state_in.eq(with_cell(word, C1))]
                    m.d.sync += [depth.eq(depth + 1), base.eq(base + groups)]
                    m.next = "START"
            with m.State("POP_CELL"):  # the decision memory's entry arrives next clock
                m.d.comb += [busy.eq(1), counted.eq(1)]
                count("backtracks")
                m.next = "POP"
            with m.State("POP"):       # read group t of the entry; write group t - 1 back
                m.d.comb += [busy.eq(1), counted.eq(1)]
                m.d.sync += t.eq(t + 1)
                with m.If(t == 0):
                    count("restores")
                    m.d.sync += [cell_group.eq(dec_r.data.group),
                                 cell_bit.eq(Const(1, bits) << dec_r.data.pos)]
                    m.d.comb += [prober.dirty_we.eq(1), prober.dirty_in.eq(dec_r.data.dirty)]
                with m.Else():
                    m.d.comb += [prober.waddr.eq(t - 1), prober.state_we.eq(1),
                                 prober.label_addr.eq(t - 1), prober.label_we.eq(1),
                                 prober.label_in.eq(popped_labels)]
                    with m.If(t - 1 == cell_group):   # the other colour: OUT
                        m.d.comb += prober.state_in.eq(with_cell(popped_state, C0))
                    with m.Else():
                        m.d.comb += prober.state_in.eq(popped_state)
                with m.If(t == groups):
                    m.next = "START"
            with m.State("START"):
                m.d.comb += [busy.eq(1), counted.eq(1), prober.start.eq(1)]
                m.next = "RUN"
            with m.State("RUN"):
                m.d.comb += [busy.eq(1), counted.eq(1)]
                with m.If(prober.done):
                    m.d.sync += [conflict.eq(prober.conflict), complete.eq(prober.complete),
                                 step.eq(0)]
                    m.next = "COUNT"
            with m.State("COUNT"):     # the run's counts, a counter a clock (the prober
                m.d.comb += counting.eq(1)   # holds them until its next start)
                with m.Switch(step):
                    for k, (name, source) in enumerate(_FROM_PROBER.items()):
                        with m.Case(k):
                            count(name, getattr(prober, source))
                m.d.sync += step.eq(step + 1)
                with m.If(step == len(_FROM_PROBER) - 1):
                    m.next = "IDLE"

        # --- the registers ----------------------------------------------------------------
        # the colouring packer (DEDUCE_COLOURING): rows from the state memory while idle
        m.submodules.colouring = packer = ColouringPacker(R, C)
        regs = register_file(m, self.bus, config=(R, C, self.trail_depth),
                             size=dict(rows=rows, cols=cols, island=island),
                             status=dict(busy=busy, conflict=conflict, complete=complete,
                                         trail_empty=trail_empty, trail_full=trail_full),
                             counters=counters, counting=counting,
                             command=command, colouring=packer)
        with m.If(engine_adds):
            m.d.comb += [counters.index.eq(engine_index), counters.add.eq(1)]
        with m.Else():
            m.d.comb += counters.index.eq(regs.counter_index)

        m.d.comb += regs_clues_write.eq(regs.clues_write)
        with m.If(regs.size_write):             # the clue stream starts at cell (0, 0)
            start = 1 << (first_j * w + 1)
            m.d.sync += [s_row.eq(0), s_col.eq(0), s_j.eq(first_j), s_group.eq(1 // band),
                         s_row_start.eq(start), s_bit.eq(start), s_fresh.eq(1)]

        # a clue write: its group and bit (framed row r + 1 is row (r + 1) % band of its group)
        with m.If(regs.clue_write & (regs.clue_row < R) & (regs.clue_col < C)):
            m.d.comb += clue_write.eq(1)
            m.d.sync += clue_value.eq(field_of(regmap.DeduceClue, "clue", self.bus.wdata))
            with m.Switch(regs.clue_row):
                for r in range(R):
                    with m.Case(r):
                        m.d.sync += [clue_group.eq((r + 1) // band),
                                     clue_bit.eq(Const(1 << ((r + 1) % band * w + 1), bits)
                                                 << regs.clue_col)]

        m.d.comb += [packer.rows.eq(rows), packer.cols.eq(cols), packer.stop.eq(busy),
                     packer.hold.eq(busy)]
        packer_j = Signal(range(band))      # the fetched row's framed row in its group
        with m.If(packer.fetch & ~packer.hold):
            if band == 1:
                m.d.comb += prober.addr.eq(packer.fetch_row + 1)
            else:
                with m.Switch(packer.fetch_row):
                    for r in range(R):
                        with m.Case(r):
                            m.d.comb += prober.addr.eq((r + 1) // band)
                            m.d.sync += packer_j.eq((r + 1) % band)
        with m.Switch(packer_j):
            for j in range(band):
                with m.Case(j):
                    m.d.comb += packer.row_data.eq(prober.state_out[C1][j * w + 1:j * w + 1 + C])
        return m
