"""Stand-in cores for the bitstream flow (neither is the solver).

* :class:`UARTLoopback` stands in for the SoC where only the flow is under test
  (the build tree, the reports, the missing-tool message): every byte sent to
  the board comes back, one clock cycle later, at any baud rate.
* :class:`AcceleratorProbe` keeps the accelerator alone alive through synthesis,
  to measure its resources and Fmax per grid size.
"""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["UARTLoopback", "AcceleratorProbe"]


class UARTLoopback(wiring.Component):
    """``uart_tx`` follows ``uart_rx`` one cycle later (idle high)."""

    uart_rx: In(1, init=1)
    uart_tx: Out(1, init=1)

    def elaborate(self, platform):
        m = Module()
        m.d.sync += self.uart_tx.eq(self.uart_rx)
        return m


class AcceleratorProbe(wiring.Component):
    """The accelerator alone, for resource and timing measurements (not functional).

    Every input of the accelerator's bus comes from a shift register fed by
    ``uart_rx``, and ``ready``/``rdata`` are captured into a shift register that
    drives ``uart_tx``, so synthesis keeps all of the accelerator's logic while
    adding only about 90 flip-flops.  Used to size the accelerator per grid before
    the SoC is built around it; the SoC build is ``--core soc``.
    """

    uart_rx: In(1, init=1)
    uart_tx: Out(1, init=1)

    def __init__(self, max_rows, max_cols):
        from slitherlink.hw.accelerator import Accelerator
        self.accelerator = Accelerator(max_rows, max_cols)
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.accelerator = acc = self.accelerator
        b = acc.bus
        inputs = Cat(b.valid, b.addr, b.wdata, b.wstrb)
        shift_in = Signal(len(inputs))
        m.d.sync += shift_in.eq(Cat(self.uart_rx, shift_in[:-1]))
        m.d.comb += inputs.eq(shift_in)

        shift_out = Signal(33, init=~0)
        with m.If(b.ready):
            m.d.sync += shift_out.eq(Cat(b.rdata, b.ready))
        with m.Else():
            m.d.sync += shift_out.eq(Cat(shift_out[1:], 1))
        m.d.comb += self.uart_tx.eq(shift_out[0])
        return m
