"""A self-test design for the virtual board harness (not part of the product).

:class:`Echo` has the SoC's board-level ports (``clk``, ``rst``, ``uart_rx``,
``uart_tx``) and answers every received byte ``b`` with ``(b + 1) % 256``, so
a test can tell the design's answer from a pseudo-terminal echo.  It lets the
harness (pty bridge, UART serialiser/sampler, tracing, cycle counting) be
tested without the SoC, the firmware or a RISC-V compiler.  Its UART is a few
deliberately plain lines; the product UART is ``hw/uart.py``.
"""

from amaranth import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from slitherlink.spec.uart import DEFAULT_BAUD

__all__ = ["Echo"]


class Echo(wiring.Component):
    """Receive 8N1 at ``clock_hz / divisor`` baud, send back each byte plus one."""

    uart_rx: In(1, init=1)
    uart_tx: Out(1, init=1)

    def __init__(self, divisor):
        if not isinstance(divisor, int) or divisor < 4:
            raise ValueError(f"the divisor must be an integer of at least 4, not {divisor!r}")
        self.divisor = divisor
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        div = self.divisor

        # Receiver: wait for a start bit, sample each bit in its middle.
        rx_sync = Signal(2, init=0b11)
        m.d.sync += rx_sync.eq(rx_sync << 1 | self.uart_rx)
        rx = rx_sync[1]
        rx_count = Signal(range(div * 3 // 2 + 1))
        rx_bits = Signal(range(10))
        rx_shift = Signal(8)
        got = Signal()
        got_byte = Signal(8)
        m.d.sync += got.eq(0)
        with m.FSM():
            with m.State("idle"):
                with m.If(~rx):
                    m.d.sync += [rx_count.eq(div + div // 2 - 3), rx_bits.eq(0)]
                    m.next = "data"
            with m.State("data"):
                with m.If(rx_count == 0):
                    m.d.sync += rx_count.eq(div - 1)
                    with m.If(rx_bits == 8):
                        m.d.sync += [got.eq(rx), got_byte.eq(rx_shift + 1)]
                        m.next = "idle"
                    with m.Else():
                        m.d.sync += [rx_shift.eq(rx << 7 | rx_shift >> 1),
                                     rx_bits.eq(rx_bits + 1)]
                with m.Else():
                    m.d.sync += rx_count.eq(rx_count - 1)

        # Transmitter with a one-byte buffer; the next byte follows the stop bit
        # without a gap, so it keeps up with a host that sends back to back.
        pending = Signal()
        pending_byte = Signal(8)
        tx_frame = Signal(10, init=0x3FF)
        tx_bits = Signal(range(11))
        tx_count = Signal(range(div))
        m.d.comb += self.uart_tx.eq(tx_frame[0])
        free = (tx_bits == 0) | ((tx_bits == 1) & (tx_count == 0))
        with m.If(free & pending):
            m.d.sync += [tx_frame.eq(pending_byte << 1 | 1 << 9), tx_bits.eq(10),
                         tx_count.eq(div - 1), pending.eq(0)]
        with m.Elif(tx_bits == 0):
            pass
        with m.Elif(tx_count == 0):
            m.d.sync += [tx_frame.eq(tx_frame >> 1 | 1 << 9), tx_bits.eq(tx_bits - 1),
                         tx_count.eq(div - 1)]
        with m.Else():
            m.d.sync += tx_count.eq(tx_count - 1)
        with m.If(got):  # after the load above, so a byte arriving meanwhile is kept
            m.d.sync += [pending.eq(1), pending_byte.eq(got_byte)]
        return m


#: The self-test board's clock and baud rate: 16 cycles per bit keeps tests fast.
ECHO_CLOCK_HZ = 1_843_200
ECHO_BAUD = DEFAULT_BAUD


def design(clock_hz=ECHO_CLOCK_HZ, baud=ECHO_BAUD):
    """The :class:`sim.vboard.build.Design` of the echo board."""
    from amaranth.back import verilog

    from .builder import Design

    divisor = round(clock_hz / baud)
    top = Echo(divisor)
    text = verilog.convert(top, name="echo_top", emit_src=False)
    return Design("echo", "echo_top", clock_hz, baud, {"echo_top.v": text},
                  info={"divisor": divisor})
