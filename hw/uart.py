"""A UART for the SoC (paper Fig. 7: the host talks to the CPU over a serial line).

8 data bits, no parity, 1 stop bit, LSB first.  The line side (the receiver, the
transmitter and their bit clocks) runs in the ``uart`` clock domain, at
:data:`spec.uart.UART_CLOCK_RATIO` times the design clock (``sync``), so the line can be
faster than the engines allow the design clock to be; everything the CPU sees (the
registers, the receive ring, the CRC, the counters) is in ``sync``.  A received byte
crosses into ``sync`` held in a register and announced by a
:class:`amaranth.lib.cdc.PulseSynchronizer`; the bytes to send cross the other way from
the transmit FIFO through a small :class:`amaranth.lib.fifo.AsyncFIFO`; the transmitter's
state comes back through a synchroniser, and DIVISOR goes through another (:class:`UART`).
The bit time is a register, DIVISOR (UART clock cycles a bit with
:data:`spec.uart.DIVISOR_FRACTION_BITS` fractional bits, reset to the build's start rate,
:func:`spec.uart.bit_time_for`): a :class:`BitClock` makes each bit last N or N+1 whole
cycles, so every rate the clock carries is made to a fraction of a percent and the
firmware can switch rates (SET_BAUD, docs/protocol.md).  The receiver samples the middle
of every bit and writes each good byte into a ring in block RAM, which the CPU reads as
memory (the ``ring`` port: :data:`spec.registers.RX_RING`, of
:func:`spec.registers.rx_ring_size` bytes), so the firmware never moves a received byte and
only has to take them before the ring is full; the transmitter sends from a FIFO.

Registers: :data:`spec.registers.UART_REGISTERS` (DATA: a write queues a byte and waits
while the transmit FIFO is full; STATUS: the transmitter's state and the sticky
RX_OVERRUN and RX_FRAME_ERROR flags, cleared by writing 1; RX_OVERRUNS and
RX_FRAME_ERRORS: how many bytes were lost to each since reset, for the
firmware's STATS reply; DIVISOR: the bit time; RX_WRITTEN: the bytes written into the ring
(its write index), RX_TAKEN: the bytes the firmware has taken (its read index): a byte that
finds the ring full is lost; RX_AT, RX_WORD and RX_CRC_WORD: the ring's bytes four a read
from any byte on, RX_CRC_WORD feeding them to the CRC, so a frame is copied out and checked
in one pass; RX_CLUE_WORD: RX_CRC_WORD that also checks the bytes as a SOLVE's clue codes,
CLUE_BAD telling whether one was bad since the CRC was last written; CRC and CRC_DATA:
the link's CRC, fed the bytes the firmware stores, :class:`hw.crc.CRC16`; TX_WORD: the
stored bytes queued for sending in one store, one a clock behind it, and TX_CRC the same
feeding them to the CRC too, so a frame is sent and its CRC made in one pass).
"""

from amaranth import C, Cat, DomainRenamer, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.cdc import FFSynchronizer, PulseSynchronizer
from amaranth.lib.fifo import AsyncFIFO, SyncFIFOBuffered
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from slitherlink.spec.protocol import Solve, clue_code_bad
from slitherlink.spec.uart import DIVISOR_BITS, DIVISOR_FRACTION_BITS, LINE_DOMAIN, MIN_BIT_TIME
from slitherlink.spec.registers import UART as UART_BLOCK
from slitherlink.spec.registers import (RX_INDEX_BITS, RX_RING_MIN, UART_TX_DEPTH, UartClueBad,
                                        UartCrc, UartCrcData, UartData, UartDivisor, UartRxAt,
                                        UartRxClueWord, UartRxCrcWord, UartRxFrameErrors,
                                        UartRxOverruns, UartRxTaken, UartRxWord, UartRxWritten,
                                        UartStatus, UartTxCrc, UartTxWord)

from . import bus
from .bus import field_of
from .crc import CRC16

__all__ = ["UART", "UARTRx", "UARTTx", "BitClock", "LINE_DOMAIN"]

#: Entries of the FIFO that carries the bytes to send across (AsyncFIFO): a byte leaves
#: every 10 bit times (75 UART cycles or more) and the design clock refills it a byte a
#: cycle, so it never runs dry; small, so that its memory is one LUT deep (the UART clock's
#: paths).
_CROSSING_DEPTH = 4

#: The bits of a SOLVE's clue code (RX_CLUE_WORD checks a word's codes).
CLUE_BITS = Solve.TAIL.bits

#: One clock cycle in the bit time's units.
_CYCLE = 1 << DIVISOR_FRACTION_BITS


def _check_bit_time(bit_time):
    if not isinstance(bit_time, int) or not MIN_BIT_TIME <= bit_time < 1 << DIVISOR_BITS:
        raise ValueError(f"the bit time must be from {MIN_BIT_TIME} to "
                         f"{(1 << DIVISOR_BITS) - 1} (clock cycles times {_CYCLE}, "
                         f"spec.uart.bit_time_for), not {bit_time!r}")


class BitClock(wiring.Component):
    """Ticks once a bit, ``bit_time`` / 2^DIVISOR_FRACTION_BITS clock cycles apart.

    ``restart`` starts a byte: the first tick comes one bit time later, or half of one with
    ``half`` (the receiver's middle of the start bit); then one every bit time, each N or
    N+1 cycles apart so that tick k is within a cycle of k exact bit times.  ``phase`` is
    the time to the next tick in the bit time's units; a tick is the cycle in which it is
    less than one cycle.
    """

    bit_time: In(DIVISOR_BITS)
    restart: In(1)
    half: In(1)
    tick: Out(1)

    def elaborate(self, platform):
        m = Module()
        phase = Signal(DIVISOR_BITS)
        m.d.comb += self.tick.eq(phase < _CYCLE)
        with m.If(self.restart):
            m.d.sync += phase.eq(Mux(self.half, self.bit_time >> 1, self.bit_time) - _CYCLE)
        with m.Elif(self.tick):
            m.d.sync += phase.eq(phase + self.bit_time - _CYCLE)
        with m.Else():
            m.d.sync += phase.eq(phase - _CYCLE)
        return m


class UARTRx(wiring.Component):
    """Receiver: ``data``/``valid`` for one cycle per good byte; ``frame_error`` likewise."""

    rx: In(1, init=1)
    bit_time: In(DIVISOR_BITS)
    data: Out(8)
    valid: Out(1)
    frame_error: Out(1)

    def elaborate(self, platform):
        m = Module()
        rx = Signal(init=1)
        m.submodules.sync = FFSynchronizer(self.rx, rx, init=1)
        m.submodules.clock = clock = BitClock()
        m.d.comb += [clock.bit_time.eq(self.bit_time), clock.half.eq(1)]
        bits = Signal(4)
        shift = Signal(8)
        with m.FSM():
            with m.State("IDLE"):
                with m.If(~rx):  # a start bit: its middle half a bit from now
                    m.d.comb += clock.restart.eq(1)
                    m.next = "START"
            with m.State("START"):
                with m.If(clock.tick):
                    with m.If(rx):  # a glitch, not a start bit
                        m.next = "IDLE"
                    with m.Else():
                        m.d.sync += bits.eq(0)
                        m.next = "DATA"
            with m.State("DATA"):
                with m.If(clock.tick):
                    m.d.sync += [shift.eq(Cat(shift[1:], rx)), bits.eq(bits + 1)]
                    with m.If(bits == 7):
                        m.next = "STOP"
            with m.State("STOP"):
                with m.If(clock.tick):
                    m.d.comb += [self.valid.eq(rx), self.frame_error.eq(~rx)]
                    with m.If(rx):
                        m.next = "IDLE"
                    with m.Else():  # a 0 stop bit: wait for the line to go idle
                        m.next = "BREAK"
            with m.State("BREAK"):
                with m.If(rx):
                    m.next = "IDLE"
        m.d.comb += self.data.eq(shift)
        return m


class UARTTx(wiring.Component):
    """Transmitter: takes ``data`` when ``valid`` and ``ready`` are both high; a byte taken
    as the stop bit ends follows it at once, on the same bit clock (back to back, every
    edge where the rate puts it); ``idle`` while nothing is being sent."""

    tx: Out(1, init=1)
    bit_time: In(DIVISOR_BITS)
    data: In(8)
    valid: In(1)
    ready: Out(1)
    idle: Out(1)

    def elaborate(self, platform):
        m = Module()
        m.submodules.clock = clock = BitClock()
        m.d.comb += clock.bit_time.eq(self.bit_time)
        shift = Signal(10, init=0x3FF)  # stop, data[7:0], start; sent LSB first
        bits = Signal(range(11))
        frame = Cat(C(0, 1), self.data, C(1, 1))
        last = (bits == 1) & clock.tick   # the stop bit ends
        m.d.comb += [self.tx.eq(shift[0]), self.idle.eq(bits == 0),
                     self.ready.eq(self.idle | last)]
        with m.If(bits == 0):
            with m.If(self.valid):
                m.d.comb += clock.restart.eq(1)
                m.d.sync += [shift.eq(frame), bits.eq(10)]
        with m.Elif(last & self.valid):
            m.d.sync += [shift.eq(frame), bits.eq(10)]
        with m.Elif(clock.tick):
            m.d.sync += [shift.eq(Cat(shift[1:], C(1, 1))), bits.eq(bits - 1)]
        return m


class UART(wiring.Component):
    """The UART with its register interface (module docstring): ``bus`` a target port for
    the registers, ``ring`` one for the receive ring (reads only; zero wait states: its read
    starts in the cycle before ``valid`` from the CPU's look-ahead ``ring_la_read`` and
    ``ring_la_addr``, as :class:`hw.soc.Ram`'s).  RX_AT, RX_WORD and RX_CRC_WORD use the
    ring's read port while the CPU waits for them, when it makes no look-ahead read.

    ``bit_time``: DIVISOR's value at reset, the build's start rate
    (:func:`spec.uart.bit_time_for`); ``rx_ring_size``: the ring's bytes
    (:func:`spec.registers.rx_ring_size`)."""

    def __init__(self, bit_time, *, rx_ring_size=RX_RING_MIN, tx_depth=UART_TX_DEPTH):
        _check_bit_time(bit_time)
        if (not isinstance(rx_ring_size, int) or rx_ring_size < 8
                or rx_ring_size & (rx_ring_size - 1) or rx_ring_size >= 1 << RX_INDEX_BITS):
            raise ValueError(f"the receive ring's size must be a power of two from 8 to "
                             f"{1 << (RX_INDEX_BITS - 1)} bytes, not {rx_ring_size!r}")
        self.bit_time, self.rx_ring_size, self.tx_depth = bit_time, rx_ring_size, tx_depth
        ring_bits = (rx_ring_size - 1).bit_length()
        super().__init__({
            "bus": In(bus.Signature(addr_width=(UART_BLOCK.size - 1).bit_length())),
            "ring": In(bus.Signature(addr_width=ring_bits)),
            "ring_la_read": In(1), "ring_la_addr": In(ring_bits),
            "rx": In(1, init=1), "tx": Out(1, init=1)})

    def elaborate(self, platform):
        m = Module()
        line = DomainRenamer(LINE_DOMAIN)
        m.submodules.receiver = receiver = line(UARTRx())
        m.submodules.transmitter = transmitter = line(UARTTx())
        # a received byte and its frame-error flag cross held in a register, announced by a
        # pulse through a PulseSynchronizer: the register is written a UART cycle before the
        # pulse's toggle and next written a whole byte (75 UART cycles or more) later, so it
        # is stable from well before the pulse reaches sync (two flip-flops and an edge)
        # until well after it is read there
        rx_hold = Signal(9)
        m.submodules.rx_pulse = rx_pulse = PulseSynchronizer(LINE_DOMAIN, "sync")
        # the bytes to send: the transmit FIFO in sync, then across
        m.submodules.tx_fifo = tx_fifo = SyncFIFOBuffered(width=8, depth=self.tx_depth)
        m.submodules.tx_cross = tx_cross = AsyncFIFO(width=8, depth=_CROSSING_DEPTH,
                                                     w_domain="sync", r_domain=LINE_DOMAIN)
        m.d.comb += [tx_cross.w_data.eq(tx_fifo.r_data), tx_cross.w_en.eq(tx_fifo.r_rdy),
                     tx_fifo.r_en.eq(tx_cross.w_rdy)]
        bit_time = Signal(DIVISOR_BITS, init=self.bit_time)
        # DIVISOR into the line side: a plain synchroniser suffices, as the firmware writes
        # it only to switch rates, with the transmitter idle and nothing to send until the
        # reply at the new rate, and clears the receive ring after it: a value torn for a
        # UART cycle while its bits settle can only spoil a byte of the old rate, which
        # means nothing at the new one (docs/protocol.md, SET_BAUD)
        line_bit_time = Signal(DIVISOR_BITS, init=self.bit_time)
        m.submodules.bit_time_sync = FFSynchronizer(bit_time, line_bit_time,
                                                    o_domain=LINE_DOMAIN, init=self.bit_time)

        m.d.comb += [receiver.rx.eq(self.rx), self.tx.eq(transmitter.tx),
                     receiver.bit_time.eq(line_bit_time), transmitter.bit_time.eq(line_bit_time)]
        # the line side's short paths: each byte waits a UART cycle in a register on either
        # side of the crossings, so no bit clock's tick reaches their logic
        next_byte = Signal(8)           # the byte the transmitter sends next
        has_next = Signal()
        m.d.comb += [transmitter.data.eq(next_byte), transmitter.valid.eq(has_next),
                     tx_cross.r_en.eq(~has_next)]
        with m.If(~has_next & tx_cross.r_rdy):
            m.d[LINE_DOMAIN] += [next_byte.eq(tx_cross.r_data), has_next.eq(1)]
        with m.Elif(transmitter.ready):
            m.d[LINE_DOMAIN] += has_next.eq(0)
        with m.If(receiver.valid | receiver.frame_error):
            m.d[LINE_DOMAIN] += rx_hold.eq(Cat(receiver.data, receiver.frame_error))
        m.d[LINE_DOMAIN] += rx_pulse.i.eq(receiver.valid | receiver.frame_error)
        received = rx_pulse.o & ~rx_hold[8]       # a good byte, in sync
        framing = rx_pulse.o & rx_hold[8]         # a 0 stop bit, in sync

        # tx_idle: the last stop bit has left the pin.  The line side is busy from the
        # cycle it sees a byte in the crossing until that byte's stop bit ends (in the
        # crossing, in next_byte or on the pin); its `busy` crosses into sync through two
        # flip-flops, as the crossing's read pointer does, from the same UART clock edge
        # (the one that takes the byte), so the pointer may arrive a cycle before `busy`:
        # the crossing counts as empty only once it has been so for three cycles, which
        # leaves no window in which a byte in flight reads idle
        line_busy = Signal()
        m.d[LINE_DOMAIN] += line_busy.eq(tx_cross.r_rdy | has_next | ~transmitter.idle)
        busy = Signal()
        m.submodules.busy_sync = FFSynchronizer(line_busy, busy)
        # (the crossing's w_level is a register: it counts a byte from the cycle after its
        # push, so a push in the cycle before counts as one more byte)
        pushed = Signal()
        m.d.sync += pushed.eq(tx_cross.w_en & tx_cross.w_rdy)
        empty = (tx_fifo.level == 0) & (tx_cross.w_level == 0) & ~pushed
        was_empty = Signal(2)
        m.d.sync += was_empty.eq(Cat(empty, was_empty[0]))
        tx_idle = empty & was_empty.all() & ~busy
        # the receive ring: byte `written` goes into lane written % 4 of word written / 4
        # (modulo the ring), unless the ring holds rx_ring_size bytes not taken
        m.submodules.ring = ring = Memory(shape=32, depth=self.rx_ring_size // 4, init=[])
        ring_write = ring.write_port(granularity=8)
        ring_read = ring.read_port()
        written = Signal(RX_INDEX_BITS)
        taken = Signal(RX_INDEX_BITS)
        full = Signal()
        m.d.comb += [full.eq((written - taken)[:RX_INDEX_BITS] == self.rx_ring_size),
                     ring_write.addr.eq(written[2:]),
                     ring_write.data.eq(rx_hold[:8].replicate(4)),
                     self.ring.ready.eq(self.ring.valid), self.ring.rdata.eq(ring_read.data)]

        # RX_AT, RX_WORD: `low` is the ring's word that holds byte `at`; a read fetches the
        # next word and returns the four bytes from `at` on, across the two
        at = Signal(len(self.ring_la_addr))
        low = Signal(32)
        fetch = Signal()               # the read port serves RX_AT or RX_WORD this cycle
        fetch_word = Signal(len(at) - 2)
        loading = Signal()             # low takes the word fetched for an RX_AT write
        stepping = Signal()            # an RX_WORD read has fetched its next word
        m.d.comb += [ring_read.addr.eq(Mux(fetch, fetch_word, self.ring_la_addr[2:])),
                     ring_read.en.eq(fetch | self.ring_la_read)]
        m.d.sync += loading.eq(0)
        with m.If(loading):
            m.d.sync += low.eq(ring_read.data)
        ahead = Signal(32)
        m.d.comb += ahead.eq((Cat(low, ring_read.data) >> (at[:2] * 8))[:32])

        overrun, frame_error = Signal(), Signal()
        overruns = Signal(UartRxOverruns.field("count").width)
        frame_errors = Signal(UartRxFrameErrors.field("count").width)
        with m.If(received):
            with m.If(full):
                m.d.sync += [overrun.eq(1), overruns.eq(overruns + 1)]
            with m.Else():
                m.d.comb += ring_write.en.eq(Cat(*(written[:2] == lane for lane in range(4))))
                m.d.sync += written.eq(written + 1)
        with m.If(framing):
            m.d.sync += [frame_error.eq(1), frame_errors.eq(frame_errors + 1)]

        # TX_WORD, TX_CRC: the stored lanes' bytes go into the TX FIFO one a clock behind
        # the store (a lane not stored is skipped); a store is taken when the FIFO has room
        # for four and the last one is queued, so the pushes never find it full
        queue_bytes = Signal(32)
        queue_lanes = Signal(4)
        queuing = queue_lanes.any()
        with m.If(queue_lanes[0]):
            m.d.comb += [tx_fifo.w_data.eq(queue_bytes[:8]), tx_fifo.w_en.eq(1)]
        m.d.sync += [queue_bytes.eq(queue_bytes >> 8), queue_lanes.eq(queue_lanes >> 1)]
        word_room = ~queuing & (tx_fifo.w_level <= self.tx_depth - 4)

        m.submodules.crc = crc = CRC16()
        clue_bad = Signal()   # CLUE_BAD: a bad clue code read through RX_CLUE_WORD
        b = self.bus
        m.d.comb += crc.data.eq(Mux(stepping, ahead, b.wdata))
        ready = Signal()
        rdata = Signal(32)
        m.d.comb += [b.ready.eq(ready), b.rdata.eq(rdata)]
        m.d.sync += ready.eq(0)
        is_write = b.wstrb.any()
        reg = b.addr[2:len(b.addr)]
        with m.If(b.valid & ~ready):
            with m.If(reg == UartData.address >> 2):
                with m.If(~is_write):
                    m.d.sync += [ready.eq(1), rdata.eq(0)]
                with m.Elif(tx_fifo.w_rdy & ~queuing):  # else: wait states until there is room
                    m.d.comb += [tx_fifo.w_data.eq(b.wdata[:8]), tx_fifo.w_en.eq(1)]
                    m.d.sync += [ready.eq(1), rdata.eq(0)]
            with m.Elif(reg == UartStatus.address >> 2):
                m.d.sync += ready.eq(1)
                with m.If(is_write):
                    m.d.sync += rdata.eq(0)
                    with m.If(b.wdata[UartStatus.field("rx_overrun").offset]):
                        m.d.sync += overrun.eq(0)
                    with m.If(b.wdata[UartStatus.field("rx_frame_error").offset]):
                        m.d.sync += frame_error.eq(0)
                with m.Else():
                    m.d.sync += rdata.eq(bus.pack(
                        UartStatus, tx_ready=tx_fifo.w_rdy,
                        tx_idle=tx_idle & ~queuing,
                        tx_word_ready=word_room, rx_overrun=overrun, rx_frame_error=frame_error))
            with m.Elif(reg == UartRxOverruns.address >> 2):
                m.d.sync += [ready.eq(1), rdata.eq(Mux(is_write, 0, overruns))]
            with m.Elif(reg == UartRxFrameErrors.address >> 2):
                m.d.sync += [ready.eq(1), rdata.eq(Mux(is_write, 0, frame_errors))]
            with m.Elif(reg == UartDivisor.address >> 2):
                m.d.sync += ready.eq(1)
                with m.If(is_write):
                    m.d.sync += [rdata.eq(0), bit_time.eq(b.wdata[:DIVISOR_BITS])]
                with m.Else():
                    m.d.sync += rdata.eq(bit_time)
            with m.Elif(reg == UartRxWritten.address >> 2):
                m.d.sync += [ready.eq(1), rdata.eq(Mux(is_write, 0, written))]
            with m.Elif(reg == UartRxTaken.address >> 2):
                m.d.sync += ready.eq(1)
                with m.If(is_write):
                    m.d.sync += [rdata.eq(0), taken.eq(field_of(UartRxTaken, "count", b.wdata))]
                with m.Else():
                    m.d.sync += rdata.eq(taken)
            with m.Elif(reg == UartRxAt.address >> 2):
                m.d.sync += [ready.eq(1), rdata.eq(0)]
                with m.If(is_write):
                    index = field_of(UartRxAt, "index", b.wdata)
                    m.d.comb += [fetch.eq(1), fetch_word.eq(index[2:len(at)])]
                    m.d.sync += [at.eq(index), loading.eq(1)]
            with m.Elif((reg == UartRxWord.address >> 2) | (reg == UartRxCrcWord.address >> 2)
                        | (reg == UartRxClueWord.address >> 2)):
                with m.If(is_write):
                    m.d.sync += [ready.eq(1), rdata.eq(0)]
                with m.Elif(~stepping):
                    m.d.comb += [fetch.eq(1), fetch_word.eq(at[2:] + 1)]
                    m.d.sync += stepping.eq(1)
                with m.Else():
                    m.d.sync += [ready.eq(1), rdata.eq(ahead), stepping.eq(0),
                                 low.eq(ring_read.data), at.eq(at + 4)]
                    with m.If(reg != UartRxWord.address >> 2):
                        m.d.comb += crc.lanes.eq(0b1111)
                    with m.If(reg == UartRxClueWord.address >> 2):
                        m.d.sync += clue_bad.eq(clue_bad | Cat(
                            clue_code_bad(ahead.word_select(k, CLUE_BITS))
                            for k in range(32 // CLUE_BITS)).any())
            with m.Elif(reg == UartCrc.address >> 2):
                m.d.sync += [ready.eq(1), rdata.eq(Mux(is_write, 0, crc.value))]
                m.d.comb += crc.set.eq(is_write)
                with m.If(is_write):
                    m.d.sync += clue_bad.eq(0)
            with m.Elif(reg == UartClueBad.address >> 2):
                m.d.sync += [ready.eq(1), rdata.eq(Mux(is_write, 0, clue_bad))]
            with m.Elif(reg == UartCrcData.address >> 2):
                m.d.sync += [ready.eq(1), rdata.eq(0)]
                m.d.comb += crc.lanes.eq(b.wstrb)
            with m.Elif((reg == UartTxWord.address >> 2) | (reg == UartTxCrc.address >> 2)):
                with m.If(~is_write):
                    m.d.sync += [ready.eq(1), rdata.eq(0)]
                with m.Elif(word_room):  # else: wait states until there is room
                    m.d.sync += [ready.eq(1), rdata.eq(0),
                                 queue_bytes.eq(b.wdata), queue_lanes.eq(b.wstrb)]
                    with m.If(reg == UartTxCrc.address >> 2):
                        m.d.comb += crc.lanes.eq(b.wstrb)
            with m.Else():
                m.d.sync += [ready.eq(1), rdata.eq(0)]
        return m
