"""Digilent Arty A7-35T: the paper's chip, the Artix-7 XC7A35T (paper section 5).

The board's facts are :data:`spec.target.ARTY`'s.  Its 100 MHz oscillator (pin E3)
feeds an MMCME2_BASE that makes the design clock (the default one is the board's
``clock_hz``: the largest the MMCM makes within the evidence of
:mod:`boards.evidence`) on CLKOUT0 and the UART's clock, exactly
:data:`spec.uart.UART_CLOCK_RATIO` times it, on CLKOUT1, each through a BUFG.  The
``sync`` and ``uart`` resets are held while the MMCM is not locked and while the red RESET
button (C2, active low) is pressed.  The UART goes through the
on-board FT2232H (second interface): FPGA rx on A9, tx on D10.
"""

from amaranth.hdl import ClockDomain, ClockSignal, Elaboratable, Instance, Module, Signal
from amaranth.lib.cdc import ResetSynchronizer

from slitherlink.spec.target import ARTY
from slitherlink.spec.uart import LINE_DOMAIN, UART_CLOCK_RATIO

from .top import BoardSupport

__all__ = ["ArtyA7_35", "SUPPORT", "mmcm_parameters", "mmcm_settings"]

# Artix-7, speed grade -1/-1L (DS181, MMCM switching characteristics), Hz.
_VCO_MIN, _VCO_MAX = 600e6, 1200e6
_PFD_MIN, _PFD_MAX = 10e6, 450e6
_OUT_MIN, _OUT_MAX = 4.69e6, 464e6
_DIVCLK_MAX, _MULT_RANGE, _DIV_RANGE = 106, range(2, 65), range(1, 129)


def mmcm_settings(f_in):
    """Every ``(DIVCLK_DIVIDE, CLKFBOUT_MULT_F, CLKOUT0_DIVIDE_F)`` of an MMCME2 fed with
    ``f_in`` whose phase detector, VCO and outputs are within range (integer dividers):
    CLKOUT0 the design clock and CLKOUT1 (CLKOUT1_DIVIDE = CLKOUT0_DIVIDE_F / UART_CLOCK_RATIO)
    the UART's, so CLKOUT0's divider is a multiple of the ratio."""
    for d in range(1, _DIVCLK_MAX + 1):
        pfd = f_in / d
        if not _PFD_MIN <= pfd <= _PFD_MAX:
            continue
        for mult in _MULT_RANGE:
            vco = pfd * mult
            if not _VCO_MIN <= vco <= _VCO_MAX:
                continue
            for div in _DIV_RANGE:
                if (div % UART_CLOCK_RATIO == 0 and _OUT_MIN <= vco / div
                        and vco / div * UART_CLOCK_RATIO <= _OUT_MAX):
                    yield d, mult, div


def mmcm_parameters(f_in, f_out):
    """``(DIVCLK_DIVIDE, CLKFBOUT_MULT_F, CLKOUT0_DIVIDE_F)`` of an MMCME2 that makes
    exactly ``f_out`` from ``f_in`` and exactly UART_CLOCK_RATIO times it (:func:`mmcm_settings`;
    the VCO as close to its middle as possible).  Raises ValueError when no such setting
    exists."""
    if not _OUT_MIN <= f_out <= _OUT_MAX / UART_CLOCK_RATIO:
        raise ValueError(f"an Artix-7 MMCM cannot make {f_out / 1e6:g} MHz and "
                         f"{UART_CLOCK_RATIO} times it ({_OUT_MIN / 1e6:g} to "
                         f"{_OUT_MAX / 1e6:g} MHz)")
    best = None
    for d, mult, div in mmcm_settings(f_in):
        vco = f_in / d * mult
        if abs(vco / div - f_out) > 1e-6 * f_out:
            continue
        score = abs(vco - 900e6)
        if best is None or score < best[0]:
            best = (score, (d, mult, div))
    if best is None:
        raise ValueError(f"an Artix-7 MMCM cannot make exactly {f_out / 1e6:g} MHz and "
                         f"{UART_CLOCK_RATIO} times it from {f_in / 1e6:g} MHz with integer "
                         f"dividers")
    return best[1]


class ArtyClocking(Elaboratable):
    """The ``sync`` domain at ``frequency`` Hz and the ``uart`` domain at UART_CLOCK_RATIO
    times it from the 100 MHz oscillator (an MMCME2)."""

    def __init__(self, board_clock, frequency):
        self.board_clock = board_clock
        self.frequency = frequency
        self.parameters = mmcm_parameters(board_clock, frequency)

    def elaborate(self, platform):
        m = Module()
        m.domains.sync = ClockDomain("sync")
        m.domains += ClockDomain(LINE_DOMAIN)

        clk100 = platform.request(platform.default_clk, 0)
        button = platform.request(platform.default_rst, 0)

        divclk, mult, div = self.parameters
        feedback = Signal()
        clk_mmcm = Signal()
        clk_uart = Signal()
        locked = Signal()
        m.submodules.mmcm = Instance("MMCME2_BASE",
            p_BANDWIDTH="OPTIMIZED",
            p_CLKIN1_PERIOD=1e9 / self.board_clock,
            p_DIVCLK_DIVIDE=divclk,
            p_CLKFBOUT_MULT_F=float(mult),
            p_CLKOUT0_DIVIDE_F=float(div),
            p_CLKOUT1_DIVIDE=div // UART_CLOCK_RATIO,
            p_STARTUP_WAIT="FALSE",
            i_CLKIN1=clk100.i,
            i_CLKFBIN=feedback,
            o_CLKFBOUT=feedback,
            o_CLKOUT0=clk_mmcm,
            o_CLKOUT1=clk_uart,
            o_LOCKED=locked,
            i_PWRDWN=0,
            i_RST=0,
        )
        m.submodules.bufg = Instance("BUFG", i_I=clk_mmcm, o_O=ClockSignal("sync"))
        m.submodules.bufg_uart = Instance("BUFG", i_I=clk_uart, o_O=ClockSignal(LINE_DOMAIN))
        m.submodules.reset_sync = ResetSynchronizer(~locked | button.i, domain="sync")
        m.submodules.reset_sync_uart = ResetSynchronizer(~locked | button.i, domain=LINE_DOMAIN)
        return m


class ArtyA7_35(BoardSupport):
    board = ARTY

    def platform(self, toolchain=None):
        from amaranth_boards.arty_a7 import ArtyA7_35Platform
        if toolchain not in (None, "Vivado", "Xray"):
            raise ValueError(f"toolchain must be 'Vivado' or 'Xray', not {toolchain!r}")
        return ArtyA7_35Platform(toolchain=toolchain or "Vivado")

    def clock_parameters(self, frequency):
        return mmcm_parameters(self.board.oscillator_hz, frequency)

    def clock_settings(self):
        for d, mult, div in mmcm_settings(self.board.oscillator_hz):
            yield mult, d * div

    def clocking(self, frequency):
        return ArtyClocking(self.board.oscillator_hz, frequency)


SUPPORT = ArtyA7_35()
