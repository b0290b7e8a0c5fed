"""What every board description provides, and the top level that puts a core on a board.

A board (:class:`Board`) knows its Amaranth platform, how to make the ``sync``
clock domain at the design clock from its oscillator (a PLL or MMCM, and a reset
that is held until the clock is stable), its UART pins, the design clock and
maximum grid size its bitstream build uses by default, and which cable
openFPGALoader programs it through.

:class:`BoardTop` puts any core with the one-bit ports ``uart_rx`` (in) and
``uart_tx`` (out) on a board: the SoC of paper section 3 (soft CPU, firmware in
BRAM, UART, accelerator) or the UART loopback fixture of :mod:`boards.fixture`.
"""

from amaranth.hdl import Elaboratable, Module, Signal
from amaranth.lib.cdc import FFSynchronizer

from slitherlink.spec.uart import DEFAULT_BAUD, FAST_BAUD, divisor_for

__all__ = ["Board", "BoardTop", "DEFAULT_BAUD", "FAST_BAUD", "check_baud"]

def check_baud(baud, clock_frequency):
    """Clock cycles per bit of a UART at ``baud`` from ``clock_frequency``; ValueError (one
    line) when it cannot be made (:func:`spec.uart.divisor_for`: one limit for every build)."""
    return divisor_for(clock_frequency, baud)


class Board:
    """A board the solver runs on.  Subclasses fill in the class attributes."""

    #: short name used on the command line (``--board``) and for ``build/<name>/``
    name = None
    #: human-readable name
    title = None
    #: FPGA device and package, for reports
    device = None
    #: frequency of the board's oscillator, Hz
    board_clock = None
    #: default design clock (the ``sync`` domain), Hz
    clock_frequency = None
    #: default maximum grid size (rows, cols) of this board's build
    max_rows = None
    max_cols = None
    #: ``openFPGALoader -b <cable_board>``
    programmer_board = None
    #: where the board's USB-UART usually appears on Linux
    serial_port = None
    #: resources of the device, for utilisation percentages
    capacity = {}

    def platform(self, toolchain=None):
        """A fresh Amaranth platform for this board."""
        raise NotImplementedError

    def clocking(self, platform, frequency):
        """An elaboratable that defines the ``sync`` domain at ``frequency`` Hz
        (with its reset), from the board's oscillator."""
        raise NotImplementedError

    def check_frequency(self, frequency):
        """Raise ValueError unless this board's clocking can make ``frequency`` Hz."""
        self.clock_parameters(frequency)

    def clock_parameters(self, frequency):
        raise NotImplementedError


class BoardTop(Elaboratable):
    """The top level of a bitstream: the board's clocking, the UART pins and the core.

    ``core`` needs the ports ``uart_rx`` (In(1)) and ``uart_tx`` (Out(1)), in the
    ``sync`` domain.  The receive pin passes a two-flop synchroniser (idle high)
    before it reaches the core.  LED 0 shows the core's ``trap`` (if it has one),
    LED 1 blinks once a second while the design clock runs out of reset.
    """

    def __init__(self, board, core, *, frequency):
        if not isinstance(board, Board):
            raise TypeError(f"board must be a Board, not {board!r}")
        for port in ("uart_rx", "uart_tx"):
            if not hasattr(core, port):
                raise TypeError(f"the core {core!r} has no port {port!r}")
        board.check_frequency(frequency)
        self.board = board
        self.core = core
        self.frequency = frequency

    def elaborate(self, platform):
        m = Module()
        m.submodules.clocking = self.board.clocking(platform, self.frequency)
        m.submodules.core = self.core

        uart = platform.request("uart", 0)
        m.submodules.uart_rx_sync = FFSynchronizer(uart.rx.i, self.core.uart_rx, init=1)
        m.d.comb += uart.tx.o.eq(self.core.uart_tx)

        # LED 0 lights when the CPU traps (a firmware bug), LED 1 blinks at 1 Hz
        # (the design clock runs and is out of reset).
        if hasattr(self.core, "trap"):
            m.d.comb += platform.request("led", 0).o.eq(self.core.trap)
        heartbeat = Signal(range(max(2, int(self.frequency // 2))))
        beat = Signal()
        with m.If(heartbeat == 0):
            m.d.sync += [heartbeat.eq(int(self.frequency // 2) - 1), beat.eq(~beat)]
        with m.Else():
            m.d.sync += heartbeat.eq(heartbeat - 1)
        m.d.comb += platform.request("led", 1).o.eq(beat)
        return m
