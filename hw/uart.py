"""A UART for the SoC (paper Fig. 7: the host talks to the CPU over a serial line).

8 data bits, no parity, 1 stop bit, LSB first; the baud rate is fixed at build
time as ``divisor`` clock cycles per bit.  The receiver samples the middle of
every bit and pushes good bytes into a FIFO, so the CPU can poll rarely (the
firmware polls every few dozen checks during a search); the transmitter sends
from a FIFO.

Registers (byte offsets in the UART's window, :data:`REGISTERS`):

* ``DATA`` (0x0): a read pops one received byte: bits 7:0 the byte, bit 31
  set when there was none (then bits 7:0 are 0), so one read both polls and
  receives.  A write queues bits 7:0 for sending; it waits (bus wait states)
  while the transmit FIFO is full.
* ``STATUS`` (0x4): bit 0 RX_VALID (a byte is waiting), bit 1 TX_READY (the
  transmit FIFO has room), bit 2 TX_IDLE (everything has been sent), bit 3
  RX_OVERRUN (sticky: a byte was lost because the receive FIFO was full),
  bit 4 RX_FRAME_ERROR (sticky: a stop bit was 0).  Writing 1 to bits 3 or 4
  clears them.
"""

from amaranth import Module, Signal, Cat, C
from amaranth.lib import wiring
from amaranth.lib.cdc import FFSynchronizer
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.wiring import In, Out

from . import bus

__all__ = ["UART", "UARTRx", "UARTTx", "REGISTERS", "STATUS_BITS", "DATA_EMPTY", "divisor_for"]

#: Byte offsets of the registers.
REGISTERS = {"DATA": 0x0, "STATUS": 0x4}
#: STATUS bits.
STATUS_BITS = {"RX_VALID": 0, "TX_READY": 1, "TX_IDLE": 2, "RX_OVERRUN": 3, "RX_FRAME_ERROR": 4}
#: DATA read bit set when no byte was waiting.
DATA_EMPTY = 31


def divisor_for(clock_hz, baud):
    """Clock cycles per bit for ``baud`` at ``clock_hz``, checked to be usable."""
    if baud <= 0 or clock_hz <= 0:
        raise ValueError(f"clock ({clock_hz} Hz) and baud rate ({baud}) must be positive")
    divisor = round(clock_hz / baud)
    if divisor < 4:
        raise ValueError(f"baud rate {baud} is too fast for a {clock_hz} Hz clock "
                         f"(need at least 4 clock cycles per bit)")
    error = abs(clock_hz / divisor - baud) / baud
    if error > 0.02:
        raise ValueError(f"baud rate {baud} is {error:.1%} off at {clock_hz} Hz "
                         f"({divisor} cycles per bit); choose a rate within 2%")
    return divisor


class UARTRx(wiring.Component):
    """Receiver: ``data``/``valid`` for one cycle per good byte; ``frame_error`` likewise."""

    rx: In(1, init=1)
    data: Out(8)
    valid: Out(1)
    frame_error: Out(1)

    def __init__(self, divisor):
        if divisor < 4:
            raise ValueError(f"divisor must be at least 4, not {divisor}")
        self.divisor = divisor
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        rx = Signal(init=1)
        m.submodules.sync = FFSynchronizer(self.rx, rx, init=1)
        timer = Signal(range(self.divisor * 3 // 2 + 1))
        bits = Signal(4)
        shift = Signal(8)
        with m.FSM():
            with m.State("IDLE"):
                with m.If(~rx):
                    # wait half a bit to the middle of the start bit
                    m.d.sync += timer.eq(self.divisor // 2 - 1)
                    m.next = "START"
            with m.State("START"):
                with m.If(timer == 0):
                    with m.If(rx):  # a glitch, not a start bit
                        m.next = "IDLE"
                    with m.Else():
                        m.d.sync += [timer.eq(self.divisor - 1), bits.eq(0)]
                        m.next = "DATA"
                with m.Else():
                    m.d.sync += timer.eq(timer - 1)
            with m.State("DATA"):
                with m.If(timer == 0):
                    m.d.sync += [shift.eq(Cat(shift[1:], rx)), bits.eq(bits + 1),
                                 timer.eq(self.divisor - 1)]
                    with m.If(bits == 7):
                        m.next = "STOP"
                with m.Else():
                    m.d.sync += timer.eq(timer - 1)
            with m.State("STOP"):
                with m.If(timer == 0):
                    m.d.comb += [self.valid.eq(rx), self.frame_error.eq(~rx)]
                    with m.If(rx):
                        m.next = "IDLE"
                    with m.Else():  # a 0 stop bit: wait for the line to go idle
                        m.next = "BREAK"
                with m.Else():
                    m.d.sync += timer.eq(timer - 1)
            with m.State("BREAK"):
                with m.If(rx):
                    m.next = "IDLE"
        m.d.comb += self.data.eq(shift)
        return m


class UARTTx(wiring.Component):
    """Transmitter: takes ``data`` when ``valid`` and ``ready`` are both high."""

    tx: Out(1, init=1)
    data: In(8)
    valid: In(1)
    ready: Out(1)

    def __init__(self, divisor):
        if divisor < 4:
            raise ValueError(f"divisor must be at least 4, not {divisor}")
        self.divisor = divisor
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        timer = Signal(range(self.divisor))
        shift = Signal(10, init=0x3FF)  # stop, data[7:0], start; sent LSB first
        bits = Signal(range(11))
        m.d.comb += [self.tx.eq(shift[0]), self.ready.eq(bits == 0)]
        with m.If(bits == 0):
            with m.If(self.valid):
                m.d.sync += [shift.eq(Cat(C(0, 1), self.data, C(1, 1))), bits.eq(10),
                             timer.eq(self.divisor - 1)]
        with m.Elif(timer == 0):
            m.d.sync += [shift.eq(Cat(shift[1:], C(1, 1))), bits.eq(bits - 1),
                         timer.eq(self.divisor - 1)]
        with m.Else():
            m.d.sync += timer.eq(timer - 1)
        return m


class UART(wiring.Component):
    """The UART with its register interface (module docstring); ``bus`` is a target port."""

    bus: In(bus.Signature(addr_width=4))
    rx: In(1, init=1)
    tx: Out(1, init=1)

    def __init__(self, divisor, *, rx_depth=64, tx_depth=16):
        if divisor < 4:
            raise ValueError(f"divisor must be at least 4 clock cycles per bit, not {divisor}")
        self.divisor, self.rx_depth, self.tx_depth = divisor, rx_depth, tx_depth
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.receiver = receiver = UARTRx(self.divisor)
        m.submodules.transmitter = transmitter = UARTTx(self.divisor)
        m.submodules.rx_fifo = rx_fifo = SyncFIFOBuffered(width=8, depth=self.rx_depth)
        m.submodules.tx_fifo = tx_fifo = SyncFIFOBuffered(width=8, depth=self.tx_depth)

        m.d.comb += [receiver.rx.eq(self.rx), self.tx.eq(transmitter.tx),
                     rx_fifo.w_data.eq(receiver.data), rx_fifo.w_en.eq(receiver.valid),
                     transmitter.data.eq(tx_fifo.r_data), transmitter.valid.eq(tx_fifo.r_rdy),
                     tx_fifo.r_en.eq(transmitter.ready)]

        overrun, frame_error = Signal(), Signal()
        with m.If(receiver.valid & ~rx_fifo.w_rdy):
            m.d.sync += overrun.eq(1)
        with m.If(receiver.frame_error):
            m.d.sync += frame_error.eq(1)

        b = self.bus
        ready = Signal()
        rdata = Signal(32)
        m.d.comb += [b.ready.eq(ready), b.rdata.eq(rdata)]
        m.d.sync += ready.eq(0)
        is_write = b.wstrb.any()
        reg = b.addr[2:4]
        with m.If(b.valid & ~ready):
            with m.If(reg == REGISTERS["DATA"] >> 2):
                with m.If(is_write):
                    with m.If(tx_fifo.w_rdy):  # else: wait states until there is room
                        m.d.comb += [tx_fifo.w_data.eq(b.wdata[:8]), tx_fifo.w_en.eq(1)]
                        m.d.sync += [ready.eq(1), rdata.eq(0)]
                with m.Else():
                    m.d.comb += rx_fifo.r_en.eq(1)
                    m.d.sync += [ready.eq(1),
                                 rdata.eq(Cat(rx_fifo.r_data & (rx_fifo.r_rdy.replicate(8)),
                                              C(0, 23), ~rx_fifo.r_rdy))]
            with m.Elif(reg == REGISTERS["STATUS"] >> 2):
                m.d.sync += ready.eq(1)
                with m.If(is_write):
                    m.d.sync += rdata.eq(0)
                    with m.If(b.wdata[STATUS_BITS["RX_OVERRUN"]]):
                        m.d.sync += overrun.eq(0)
                    with m.If(b.wdata[STATUS_BITS["RX_FRAME_ERROR"]]):
                        m.d.sync += frame_error.eq(0)
                with m.Else():
                    status = Signal(32)
                    m.d.comb += [
                        status[STATUS_BITS["RX_VALID"]].eq(rx_fifo.r_rdy),
                        status[STATUS_BITS["TX_READY"]].eq(tx_fifo.w_rdy),
                        status[STATUS_BITS["TX_IDLE"]].eq(~tx_fifo.r_rdy & transmitter.ready),
                        status[STATUS_BITS["RX_OVERRUN"]].eq(overrun),
                        status[STATUS_BITS["RX_FRAME_ERROR"]].eq(frame_error),
                    ]
                    m.d.sync += rdata.eq(status)
            with m.Else():
                m.d.sync += [ready.eq(1), rdata.eq(0)]
        return m
