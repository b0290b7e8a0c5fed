"""A board's Amaranth side, and the top level that puts a core on a board.

The facts of a board (its oscillator, FPGA, capacity, serial port, programmer, default
clock) are :class:`spec.target.Board`'s.  What needs Amaranth is here:
:class:`BoardSupport` is a board's platform and its clocking (a PLL or MMCM that makes
the ``sync`` domain at the design clock and the ``uart`` domain at
:data:`spec.uart.UART_CLOCK_RATIO` times it from the oscillator, with resets held until
the clocks are stable), and the clocks that clocking can make (:meth:`BoardSupport.largest_clock`).

:class:`BoardTop` puts any core with the one-bit ports ``uart_rx`` (in) and
``uart_tx`` (out) on a board: the SoC of paper section 3 (soft CPU, firmware in
BRAM, UART, the engines) or a fixture of :mod:`boards.fixture`.
"""

from amaranth.hdl import Elaboratable, Module, Signal
from amaranth.lib.cdc import FFSynchronizer

__all__ = ["BoardSupport", "BoardTop"]


class BoardSupport:
    """A board's platform and clocking.  Subclasses set :attr:`board` and implement
    :meth:`platform`, :meth:`clocking`, :meth:`clock_parameters` and
    :meth:`clock_settings`."""

    #: the board's facts (:class:`spec.target.Board`)
    board = None

    def platform(self, toolchain=None):
        """A fresh Amaranth platform for this board."""
        raise NotImplementedError

    def clocking(self, frequency):
        """An elaboratable that defines the ``sync`` domain at ``frequency`` Hz and the
        ``uart`` domain at UART_CLOCK_RATIO times it (with their resets), from the board's
        oscillator."""
        raise NotImplementedError

    def clock_parameters(self, frequency):
        """The clocking's dividers for ``frequency`` Hz (and UART_CLOCK_RATIO times it);
        ValueError when it cannot make both exactly."""
        raise NotImplementedError

    def clock_settings(self):
        """Every ``(numerator, denominator)`` such that the clocking makes
        ``oscillator_hz * numerator / denominator`` and UART_CLOCK_RATIO times it (not
        necessarily distinct)."""
        raise NotImplementedError

    def check_frequency(self, frequency):
        """Raise ValueError (one line) unless this board's clocking can make ``frequency`` Hz."""
        self.clock_parameters(frequency)

    def largest_clock(self, limit_hz):
        """The largest design clock (a whole number of Hz, as a target declares it) that
        the clocking makes exactly and that is at most ``limit_hz``; None if none is."""
        f_in = self.board.oscillator_hz
        best = None
        for numerator, denominator in self.clock_settings():
            hz, rest = divmod(f_in * numerator, denominator)
            if rest == 0 and hz <= limit_hz and (best is None or hz > best):
                best = hz
        return best


class BoardTop(Elaboratable):
    """The top level of a bitstream: the board's clocking, the UART pins and the core.

    ``core`` needs the ports ``uart_rx`` (In(1)) and ``uart_tx`` (Out(1)), in the domain
    its ``line_domain`` attribute names (``uart``: the SoC's) or else ``sync``.  The
    receive pin passes a two-flop synchroniser (idle high) in that domain before it reaches
    the core.  LED 0 shows the core's ``trap`` (if it has one),
    LED 1 blinks once a second while the design clock runs out of reset.
    """

    def __init__(self, support, core, *, frequency):
        if not isinstance(support, BoardSupport):
            raise TypeError(f"support must be a BoardSupport, not {support!r}")
        for port in ("uart_rx", "uart_tx"):
            if not hasattr(core, port):
                raise TypeError(f"the core {core!r} has no port {port!r}")
        support.check_frequency(frequency)
        self.support = support
        self.core = core
        self.frequency = frequency

    def elaborate(self, platform):
        m = Module()
        m.submodules.clocking = self.support.clocking(self.frequency)
        m.submodules.core = self.core

        uart = platform.request("uart", 0)
        m.submodules.uart_rx_sync = FFSynchronizer(
            uart.rx.i, self.core.uart_rx, init=1,
            o_domain=getattr(self.core, "line_domain", "sync"))
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
