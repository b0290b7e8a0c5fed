"""The DEDUCE registers' decode (:mod:`spec.registers`; docs/registers.md): what the
deduction engine's bus answers and which writes start its commands.

Bus timing (:mod:`hw.bus`): reads answer in 2 cycles (STATUS.busy tells whether a
command runs), but for DEDUCE_COLOURING's, which waits for its word, and a counter's,
which waits while a command runs and while the engine adds a run's counts (the 9 clocks
after a run); writes wait (no ``ready``) while a command runs or the counts are added, so
a command written while another runs starts after it.  Unknown addresses read 0 and ignore
writes.  Every address and field comes from :mod:`spec.registers`.
"""

from amaranth import Const, Signal

from slitherlink.spec import registers as regmap

from ..accelerator import field_lanes, field_of, pack

__all__ = ["RegisterAccess", "register_file"]


class RegisterAccess:
    """What :func:`register_file` leaves to the engine: a clue write (``clue_write`` for
    one clock, at ``clue_row``, ``clue_col``; the value is in the bus's ``wdata``), a
    DEDUCE_CLUES write (``clues_write`` for one clock; the codes in ``wdata``), a
    DEDUCE_SIZE write (``size_write`` for one clock, as the size registers take it) and
    the counter a counter read names (``counter_index``)."""

    def __init__(self, **signals):
        self.__dict__.update(signals)


def register_file(m, b, *, config, size, status, counters, counting, command, colouring,
                  words=()):
    """The DEDUCE register decode (:mod:`spec.registers`).

    ``b``: the engine's bus (:mod:`hw.bus`; reads answer in 2 cycles, writes wait while
    STATUS.busy; unknown addresses read 0 and ignore writes); ``config``: the build's
    ``(max_rows, max_cols, trail_depth)``; ``size``: the DEDUCE_SIZE fields' registers by
    name, written here; ``status``: the DEDUCE_STATUS fields' values by name; ``counters``:
    the :class:`~hw.deduce.counters.CounterBank` of the counter registers (in
    :data:`~spec.registers.DEDUCE_HW_COUNTERS` order), whose ``value`` shows the counter
    at the returned ``counter_index`` (the engine drives the bank's ``index`` with it while
    it adds nothing); ``counting``: the engine adds a run's counts (writes and counter reads
    wait while it does, counter reads also while a command runs); ``command``: a signal per DEDUCE_CONTROL field, high for the clock its write is
    accepted; ``colouring``: the :class:`~hw.deduce.colouring.ColouringPacker`, which a
    DEDUCE_COLOURING_START write starts and whose words DEDUCE_COLOURING reads take (a read
    waits for its word); ``words``: further ``(byte address, value)`` reads.  Returns a
    :class:`RegisterAccess`; its ``counter_index`` is the counter that the bus's address
    names."""
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
    # a DEDUCE_COLOURING read waits for the packer's word, unless none comes
    is_colouring = ~is_write & (addr_word == regmap.DeduceColouring.address >> 2)
    word_here = colouring.valid & ~busy
    # the counters: read through the bank's multiplexer, which the engine uses while it runs
    counter_offset = (b.addr - regmap.DEDUCE_COUNTER_BASE)[2:]
    is_counter = (~is_write & (b.addr >= regmap.DEDUCE_COUNTER_BASE)
                  & (counter_offset < len(counters.names)))
    accept = (b.valid & ~ready & ~(is_write & (busy | counting))
              & ~(is_counter & (busy | counting))
              & ~(is_colouring & ~busy & ~colouring.valid & ~colouring.idle))

    stride_bits = (regmap.CELL_STRIDE - 1).bit_length()
    row_bits = (regmap.CELL_ROWS_MAX - 1).bit_length()
    clue_offset = (b.addr - regmap.DEDUCE_CLUE_BASE)[2:]
    in_clues = (b.addr >= regmap.DEDUCE_CLUE_BASE) & (b.addr < regmap.WINDOW_SIZE)
    access = RegisterAccess(clue_write=Signal(), clues_write=Signal(), size_write=Signal(),
                            clue_row=clue_offset[stride_bits:][:row_bits],
                            clue_col=clue_offset[:stride_bits],
                            counter_index=counter_offset[:len(counters.index)])

    reads_at = [(regmap.DeduceId.address,
                 pack(regmap.DeduceId, version=Const(regmap.DEDUCE_VERSION, 8),
                      magic=Const(regmap.DEDUCE_ID_MAGIC, 24)))]
    reads_at += [(register.address, pack(register, **fields)) for register, fields in reads]
    reads_at += [(regmap.DeduceColouring.address, colouring.word)]   # 0 unless a word is here
    reads_at += list(words)

    with m.If(accept):
        m.d.sync += [ready.eq(1), rdata.eq(0)]
        with m.If(~is_write):
            m.d.comb += colouring.take.eq(is_colouring & word_here)
            with m.If(is_counter):
                m.d.sync += rdata.eq(pack(regmap.DEDUCE_COUNTER_REGISTERS[0],
                                          count=counters.value))
            with m.Switch(addr_word):
                for address, value in reads_at:
                    with m.Case(address >> 2):
                        m.d.sync += rdata.eq(value)
        with m.Else():
            wdata, wstrb = b.wdata, b.wstrb
            with m.If(in_clues):
                m.d.comb += access.clue_write.eq(field_lanes(regmap.DeduceClue, "clue", wstrb))
            with m.Elif(addr_word == regmap.DeduceClues.address >> 2):
                m.d.comb += access.clues_write.eq(wstrb.all())
            with m.Elif(addr_word == regmap.DeduceColouringStart.address >> 2):
                m.d.comb += [colouring.start.eq(1),
                             colouring.skip.eq(field_of(regmap.DeduceColouringStart, "skip",
                                                        wdata))]
            with m.Elif(addr_word == regmap.DeduceSize.address >> 2):
                m.d.comb += access.size_write.eq(1)
                for name, target in size.items():
                    with m.If(field_lanes(regmap.DeduceSize, name, wstrb)):
                        m.d.sync += target.eq(field_of(regmap.DeduceSize, name, wdata))
            with m.Elif(addr_word == regmap.DeduceControl.address >> 2):
                for name, sig in command.items():
                    m.d.comb += sig.eq(field_lanes(regmap.DeduceControl, name, wstrb)
                                       & field_of(regmap.DeduceControl, name, wdata).any())
    return access
