"""A UART for the SoC (paper Fig. 7: the host talks to the CPU over a serial line).

8 data bits, no parity, 1 stop bit, LSB first; the baud rate is fixed at build
time as ``divisor`` clock cycles per bit.  The receiver samples the middle of
every bit and pushes good bytes into a FIFO, so the CPU can poll rarely (the
firmware polls every few dozen checks during a search); the transmitter sends
from a FIFO.

Registers: :data:`spec.registers.UART_REGISTERS` (DATA: a read pops one received
byte, bit 31 ``empty`` set when there was none, a write queues a byte and waits
while the transmit FIFO is full; STATUS: the FIFOs' state and the sticky
RX_OVERRUN and RX_FRAME_ERROR flags, cleared by writing 1; RX_OVERRUNS and
RX_FRAME_ERRORS: how many bytes were lost to each since reset, for the
firmware's STATS reply).  The divisor is
checked by :func:`spec.uart.divisor_for` (at least :data:`spec.uart.MIN_DIVISOR`).
"""

from amaranth import C, Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.cdc import FFSynchronizer
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.wiring import In, Out

from slitherlink.spec.uart import MIN_DIVISOR, divisor_for
from slitherlink.spec.registers import UART as UART_BLOCK
from slitherlink.spec.registers import (UART_RX_DEPTH, UART_TX_DEPTH, UartData, UartRxFrameErrors,
                            UartRxOverruns, UartStatus)

from . import bus

__all__ = ["UART", "UARTRx", "UARTTx", "divisor_for"]


def _check_divisor(divisor):
    if not isinstance(divisor, int) or divisor < MIN_DIVISOR:
        raise ValueError(f"divisor must be at least {MIN_DIVISOR} clock cycles per bit, "
                         f"not {divisor!r}")


class UARTRx(wiring.Component):
    """Receiver: ``data``/``valid`` for one cycle per good byte; ``frame_error`` likewise."""

    rx: In(1, init=1)
    data: Out(8)
    valid: Out(1)
    frame_error: Out(1)

    def __init__(self, divisor):
        _check_divisor(divisor)
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
        _check_divisor(divisor)
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

    bus: In(bus.Signature(addr_width=(UART_BLOCK.size - 1).bit_length()))
    rx: In(1, init=1)
    tx: Out(1, init=1)

    def __init__(self, divisor, *, rx_depth=UART_RX_DEPTH, tx_depth=UART_TX_DEPTH):
        _check_divisor(divisor)
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
        overruns = Signal(UartRxOverruns.field("count").width)
        frame_errors = Signal(UartRxFrameErrors.field("count").width)
        with m.If(receiver.valid & ~rx_fifo.w_rdy):
            m.d.sync += [overrun.eq(1), overruns.eq(overruns + 1)]
        with m.If(receiver.frame_error):
            m.d.sync += [frame_error.eq(1), frame_errors.eq(frame_errors + 1)]

        b = self.bus
        ready = Signal()
        rdata = Signal(32)
        m.d.comb += [b.ready.eq(ready), b.rdata.eq(rdata)]
        m.d.sync += ready.eq(0)
        is_write = b.wstrb.any()
        reg = b.addr[2:4]
        with m.If(b.valid & ~ready):
            with m.If(reg == UartData.address >> 2):
                with m.If(is_write):
                    with m.If(tx_fifo.w_rdy):  # else: wait states until there is room
                        m.d.comb += [tx_fifo.w_data.eq(b.wdata[:8]), tx_fifo.w_en.eq(1)]
                        m.d.sync += [ready.eq(1), rdata.eq(0)]
                with m.Else():
                    m.d.comb += rx_fifo.r_en.eq(1)
                    byte, empty = UartData.field("byte"), UartData.field("empty")
                    word = Signal(32)
                    m.d.comb += [word[byte.offset:byte.offset + byte.width].eq(
                                     rx_fifo.r_data & rx_fifo.r_rdy.replicate(8)),
                                 word[empty.offset].eq(~rx_fifo.r_rdy)]
                    m.d.sync += [ready.eq(1), rdata.eq(word)]
            with m.Elif(reg == UartStatus.address >> 2):
                m.d.sync += ready.eq(1)
                with m.If(is_write):
                    m.d.sync += rdata.eq(0)
                    with m.If(b.wdata[UartStatus.field("rx_overrun").offset]):
                        m.d.sync += overrun.eq(0)
                    with m.If(b.wdata[UartStatus.field("rx_frame_error").offset]):
                        m.d.sync += frame_error.eq(0)
                with m.Else():
                    status = Signal(32)
                    m.d.comb += [
                        status[UartStatus.field("rx_valid").offset].eq(rx_fifo.r_rdy),
                        status[UartStatus.field("tx_ready").offset].eq(tx_fifo.w_rdy),
                        status[UartStatus.field("tx_idle").offset].eq(
                            ~tx_fifo.r_rdy & transmitter.ready),
                        status[UartStatus.field("rx_overrun").offset].eq(overrun),
                        status[UartStatus.field("rx_frame_error").offset].eq(frame_error),
                    ]
                    m.d.sync += rdata.eq(status)
            with m.Elif(reg == UartRxOverruns.address >> 2):
                m.d.sync += [ready.eq(1), rdata.eq(Mux(is_write, 0, overruns))]
            with m.Elif(reg == UartRxFrameErrors.address >> 2):
                m.d.sync += [ready.eq(1), rdata.eq(Mux(is_write, 0, frame_errors))]
            with m.Else():
                m.d.sync += [ready.eq(1), rdata.eq(0)]
        return m
