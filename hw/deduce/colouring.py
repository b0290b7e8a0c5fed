"""The colouring packer: the solution in the engine's state as the ANSWER carries it.

The protocol's ANSWER (and DEDUCE_RESULT) carries a solution as its *colouring*: one bit a
cell, row-major, ``cols`` bits a row, a cell's bit 1 when it is IN, packed into bytes from
the least significant bit on (:func:`host.protocol.pack_colouring`).  The packer reads the
solution's rows from the state memory, one after the other, and shifts their cells into
32-bit words, one cell a clock, so that the firmware reads the colouring a word at a time
(DEDUCE_COLOURING) instead of packing the bits itself (docs/deduce.md section 8.6).

A start (DEDUCE_COLOURING_START) gives ``skip``, the zero bits before the first cell in
the first word: the colouring's bit offset within the word of the reply that holds its
first byte, so that the firmware stores the words as they are.  The bits after the last
cell, up to the end of its word, are 0; so are the words after it.  Two words are kept
ready (the one read next and the one being filled): a row takes ``cols + 2`` clocks (its
fetch, its arrival and a clock a cell), a word of the 10x10 colouring about 38.
"""

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from slitherlink.spec import registers as regmap

__all__ = ["ColouringPacker", "WORD_BITS"]

#: Bits of a word of the colouring (one DEDUCE_COLOURING read).
WORD_BITS = regmap.DeduceColouring.field("bits").width
#: Bits of DEDUCE_COLOURING_START's skip.
_SKIP_BITS = regmap.DeduceColouringStart.field("skip").width
assert 1 << _SKIP_BITS == WORD_BITS, "a skip is less than a word"


class ColouringPacker(wiring.Component):
    """Packs rows ``0 .. rows - 1`` of ``cols`` cells each into words of :data:`WORD_BITS`.

    Ports (the engine connects them, :class:`~hw.deduce.engine.DeduceEngine`):

    * ``start`` (one clock; ``skip``: zero bits before the first cell) begins a colouring
      of ``rows`` x ``cols`` (DEDUCE_SIZE, held while it runs); ``stop`` ends it (a
      command changes the state: the engine raises it while busy).
    * ``fetch`` asks for row ``fetch_row`` in this clock unless ``hold`` (the state memory's
      port is taken); its cells, bit ``c`` cell ``c`` (the cells past ``cols`` 0), are on
      ``row_data`` in the next clock.
    * ``valid``: ``word`` is the next word (else ``word`` is 0); ``take`` (one clock, when
      ``valid``) moves on.  ``idle``: no word comes any more (none started, ended, or every
      word taken), so that a read now gets 0.
    """

    def __init__(self, max_rows, max_cols):
        self.max_rows, self.max_cols = max_rows, max_cols
        super().__init__({
            "start": In(1), "skip": In(_SKIP_BITS), "stop": In(1),
            "rows": In(8), "cols": In(8),
            "fetch": Out(1), "fetch_row": Out(range(max_rows)), "hold": In(1),
            "row_data": In(max_cols),
            "word": Out(WORD_BITS), "valid": Out(1), "take": In(1), "idle": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        R, C = self.max_rows, self.max_cols
        filling = Signal(WORD_BITS)         # the word being filled: bits enter at the top
        have = Signal(range(WORD_BITS + 1))  # its bits so far (the skipped ones included)
        row = Signal(C)                     # the row's cells not yet shifted, the next at bit 0
        col = Signal(range(C + 1))          # cells of the row shifted so far
        r = Signal(range(R + 1))            # the row fetched or shifted
        ready_word = Signal(WORD_BITS)      # the word read next
        ready = Signal()

        # a full word moves on to be read when the word read next is free (or taken now)
        full = have == WORD_BITS
        move = full & (~ready | self.take)
        with m.If(move):
            m.d.sync += [ready_word.eq(filling), ready.eq(1), have.eq(0)]
        with m.Elif(self.take):
            m.d.sync += [ready_word.eq(0), ready.eq(0)]
        room = ~full | move                 # a bit may enter in this clock

        def shift_in(bit):
            return [filling.eq(Cat(filling[1:], bit)), have.eq(Mux(move, 0, have) + 1)]

        def stop_or_start():
            """In every state, last: a stop ends the colouring, a start begins one."""
            with m.If(self.stop):
                m.d.sync += [ready_word.eq(0), ready.eq(0)]
                m.next = "IDLE"
            with m.If(self.start):
                m.d.sync += [have.eq(self.skip), filling.eq(0), r.eq(0), ready_word.eq(0),
                             ready.eq(0)]
                with m.If((self.rows == 0) | (self.cols == 0)):
                    m.next = "PAD"
                with m.Else():
                    m.next = "FETCH"

        with m.FSM(name="colouring"):
            with m.State("IDLE"):
                m.d.comb += self.idle.eq(~ready)
                stop_or_start()
            with m.State("FETCH"):
                m.d.comb += [self.fetch.eq(1), self.fetch_row.eq(r)]
                with m.If(~self.hold):
                    m.next = "LOAD"
                stop_or_start()
            with m.State("LOAD"):           # the row's cells arrive
                m.d.sync += [row.eq(self.row_data), col.eq(0)]
                m.next = "SHIFT"
                stop_or_start()
            with m.State("SHIFT"):
                with m.If(room):
                    m.d.sync += shift_in(row[0])
                    m.d.sync += [row.eq(row[1:]), col.eq(col + 1)]
                    with m.If(col + 1 == self.cols):
                        m.d.sync += r.eq(r + 1)
                        with m.If(r + 1 == self.rows):
                            m.next = "PAD"
                        with m.Else():
                            m.next = "FETCH"
                stop_or_start()
            with m.State("PAD"):            # zeros up to the last word's end
                with m.If(have == 0):
                    m.next = "DONE"
                with m.Elif(~full):
                    m.d.sync += shift_in(0)
                stop_or_start()
            with m.State("DONE"):
                m.d.comb += self.idle.eq(~ready)
                stop_or_start()
        m.d.comb += [self.word.eq(ready_word), self.valid.eq(ready)]
        return m
