"""Radiona ULX3S (Lattice ECP5 LFE5U-85F): the board with a fully open flow.

The board's facts are :data:`spec.target.ULX3S`'s.  Yosys, nextpnr-ecp5 and ecppack
(all from PyPI, as WebAssembly) build a real bitstream and a real post-route timing
report on any machine, so this board is where the design's Fmax is measured (the
evidence of :mod:`boards.evidence`).  The 25 MHz oscillator (G2) feeds an EHXPLLL that
makes the design clock on CLKOP (``--clock`` changes it; the build checks the routed
Fmax) and the UART's clock, exactly :data:`spec.uart.UART_CLOCK_RATIO` times it, on CLKOS.
The ULX3S has no reset button wired to the design, so the ``sync`` and ``uart`` resets
are a power-on reset: held for 2**12 cycles after configuration and while the PLL is not
locked.  The
UART goes through the on-board FT231X: FPGA rx on M1, tx on L4.
"""

from amaranth.hdl import Cat, ClockDomain, ClockSignal, Elaboratable, Instance, Module, Signal
from amaranth.lib import io
from amaranth.lib.cdc import ResetSynchronizer

from slitherlink.spec.target import ULX3S
from slitherlink.spec.uart import LINE_DOMAIN, UART_CLOCK_RATIO

from .top import BoardSupport

__all__ = ["ULX3S_85F", "SUPPORT", "pll_parameters", "pll_settings"]

# ECP5 EHXPLLL (FPGA-TN-02200, sysCLOCK PLL), Hz.
_VCO_MIN, _VCO_MAX = 400e6, 800e6
_PFD_MIN, _PFD_MAX = 3.125e6, 400e6
_OUT_MIN, _OUT_MAX = 3.125e6, 400e6

#: Cycles of the power-on reset (log2).
POR_BITS = 12


def pll_settings(f_in):
    """Every ``(CLKI_DIV, CLKFB_DIV, CLKOP_DIV)`` of an EHXPLLL fed with ``f_in`` and fed
    back from CLKOP whose phase detector, VCO and outputs are within range: CLKOP the
    design clock and CLKOS (CLKOS_DIV = CLKOP_DIV / UART_CLOCK_RATIO) the UART's, so
    CLKOP's divider is a multiple of the ratio."""
    for clki_div in range(1, 129):
        pfd = f_in / clki_div
        if not _PFD_MIN <= pfd <= _PFD_MAX:
            continue
        for clkfb_div in range(1, 81):
            f_out = pfd * clkfb_div
            if not _OUT_MIN <= f_out <= _OUT_MAX / UART_CLOCK_RATIO:
                continue
            for clkop_div in range(UART_CLOCK_RATIO, 129, UART_CLOCK_RATIO):
                if _VCO_MIN <= f_out * clkop_div <= _VCO_MAX:
                    yield clki_div, clkfb_div, clkop_div


def pll_parameters(f_in, f_out):
    """``(CLKI_DIV, CLKFB_DIV, CLKOP_DIV)`` of an EHXPLLL fed back from CLKOP that
    makes exactly ``f_out`` from ``f_in`` and exactly UART_CLOCK_RATIO times it
    (:func:`pll_settings`; the VCO as close to 600 MHz as possible, as ``ecppll``
    chooses).  Raises ValueError when no such setting exists."""
    if not _OUT_MIN <= f_out <= _OUT_MAX / UART_CLOCK_RATIO:
        raise ValueError(f"an ECP5 PLL cannot make {f_out / 1e6:g} MHz and "
                         f"{UART_CLOCK_RATIO} times it ({_OUT_MIN / 1e6:g} to "
                         f"{_OUT_MAX / 1e6:g} MHz)")
    best = None
    for clki_div, clkfb_div, clkop_div in pll_settings(f_in):
        if abs(f_in / clki_div * clkfb_div - f_out) > 1e-6 * f_out:
            continue
        score = abs(f_out * clkop_div - 600e6)
        if best is None or score < best[0]:
            best = (score, (clki_div, clkfb_div, clkop_div))
    if best is None:
        raise ValueError(f"an ECP5 PLL cannot make exactly {f_out / 1e6:g} MHz and "
                         f"{UART_CLOCK_RATIO} times it from {f_in / 1e6:g} MHz")
    return best[1]


class ULX3SClocking(Elaboratable):
    """The ``sync`` domain at ``frequency`` Hz and the ``uart`` domain at UART_CLOCK_RATIO
    times it from the 25 MHz oscillator (an EHXPLLL), with a power-on reset."""

    def __init__(self, board_clock, frequency):
        self.board_clock = board_clock
        self.frequency = frequency
        self.parameters = pll_parameters(board_clock, frequency)

    def elaborate(self, platform):
        m = Module()
        m.domains.sync = ClockDomain("sync")
        m.domains += ClockDomain(LINE_DOMAIN)
        m.domains.por = ClockDomain("por", reset_less=True)

        clk25 = platform.request(platform.default_clk, 0)

        clki_div, clkfb_div, clkop_div = self.parameters
        clk = Signal()
        clk_uart = Signal()
        locked = Signal()
        m.submodules.pll = Instance("EHXPLLL",
            a_FREQUENCY_PIN_CLKI=f"{self.board_clock / 1e6:g}",
            a_FREQUENCY_PIN_CLKOP=f"{self.frequency / 1e6:g}",
            a_FREQUENCY_PIN_CLKOS=f"{self.frequency * UART_CLOCK_RATIO / 1e6:g}",
            a_ICP_CURRENT="12",
            a_LPF_RESISTOR="8",
            a_MFG_ENABLE_FILTEROPAMP="1",
            a_MFG_GMCREF_SEL="2",
            p_PLLRST_ENA="DISABLED",
            p_INTFB_WAKE="DISABLED",
            p_STDBY_ENABLE="DISABLED",
            p_DPHASE_SOURCE="DISABLED",
            p_OUTDIVIDER_MUXA="DIVA",
            p_OUTDIVIDER_MUXB="DIVB",
            p_OUTDIVIDER_MUXC="DIVC",
            p_OUTDIVIDER_MUXD="DIVD",
            p_CLKI_DIV=clki_div,
            p_CLKOP_ENABLE="ENABLED",
            p_CLKOP_DIV=clkop_div,
            p_CLKOP_CPHASE=(clkop_div - 1) // 2,
            p_CLKOP_FPHASE=0,
            p_CLKOS_ENABLE="ENABLED",
            p_CLKOS_DIV=clkop_div // UART_CLOCK_RATIO,
            p_CLKOS_CPHASE=(clkop_div // UART_CLOCK_RATIO - 1) // 2,
            p_CLKOS_FPHASE=0,
            p_FEEDBK_PATH="CLKOP",
            p_CLKFB_DIV=clkfb_div,
            i_RST=0,
            i_STDBY=0,
            i_CLKI=clk25.i,
            o_CLKOP=clk,
            o_CLKOS=clk_uart,
            i_CLKFB=clk,
            i_PHASESEL0=0,
            i_PHASESEL1=0,
            i_PHASEDIR=1,
            i_PHASESTEP=1,
            i_PHASELOADREG=1,
            i_PLLWAKESYNC=0,
            i_ENCLKOP=0,
            i_ENCLKOS=0,
            o_LOCK=locked,
        )
        m.d.comb += [
            ClockSignal("sync").eq(clk),
            ClockSignal("por").eq(clk),
            ClockSignal(LINE_DOMAIN).eq(clk_uart),
        ]
        # nextpnr derives the 'sync' and 'uart' clocks' constraints from the PLL's input
        # frequency and dividers (FREQUENCY_PIN_CLKI); boards.build checks them.

        # Power-on reset: the flip-flops start at their init values after
        # configuration (ECP5's PUR); the counter holds reset until it wraps.
        por_count = Signal(POR_BITS)
        por_done = Signal()
        with m.If(~por_done):
            m.d.por += Cat(por_count, por_done).eq(por_count + 1)
        m.submodules.reset_sync = ResetSynchronizer(~locked | ~por_done, domain="sync")
        m.submodules.reset_sync_uart = ResetSynchronizer(~locked | ~por_done, domain=LINE_DOMAIN)

        # ULX3S convention: hold the ESP32's GPIO0 high, so that the ESP32 (when
        # it runs its FPGA-loader firmware) does not reboot the FPGA.
        esp32 = platform.request("esp32", 0, dir="-")
        m.submodules.esp32_gpio0 = gpio0 = io.Buffer("o", esp32.gpio0)
        m.d.comb += gpio0.o.eq(1)
        return m


class ULX3S_85F(BoardSupport):
    board = ULX3S

    def platform(self, toolchain=None):
        from amaranth_boards.ulx3s import ULX3S_85F_Platform
        if toolchain not in (None, "Trellis"):
            raise ValueError(f"toolchain must be 'Trellis', not {toolchain!r}")
        return ULX3S_85F_Platform(toolchain="Trellis")

    def clock_parameters(self, frequency):
        return pll_parameters(self.board.oscillator_hz, frequency)

    def clock_settings(self):
        for clki_div, clkfb_div, _ in pll_settings(self.board.oscillator_hz):
            yield clkfb_div, clki_div

    def clocking(self, frequency):
        return ULX3SClocking(self.board.oscillator_hz, frequency)


SUPPORT = ULX3S_85F()
