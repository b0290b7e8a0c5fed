"""Digilent Arty A7-35T: the paper's chip, the Artix-7 XC7A35T (paper section 5).

The board's facts are :data:`spec.target.ARTY`'s.  Its 100 MHz oscillator (pin E3)
feeds an MMCME2_BASE that makes the design clock (the default one is the board's
``clock_hz``: the largest the MMCM makes within the evidence of
:mod:`boards.evidence`).  The ``sync`` reset is held while the MMCM is not locked and
while the red RESET button (C2, active low) is pressed.  The UART goes through the
on-board FT2232H (second interface): FPGA rx on A9, tx on D10.
"""

from amaranth.hdl import ClockDomain, ClockSignal, Elaboratable, Instance, Module, Signal
from amaranth.lib.cdc import ResetSynchronizer

from slitherlink.spec.target import ARTY

from .top import BoardSupport

__all__ = ["ArtyA7_35", "SUPPORT", "mmcm_parameters", "mmcm_settings"]

# Artix-7, speed grade -1/-1L (DS181, MMCM switching characteristics), Hz.
_VCO_MIN, _VCO_MAX = 600e6, 1200e6
_PFD_MIN, _PFD_MAX = 10e6, 450e6
_OUT_MIN, _OUT_MAX = 4.69e6, 464e6
_DIVCLK_MAX, _MULT_RANGE, _DIV_RANGE = 106, range(2, 65), range(1, 129)


def mmcm_settings(f_in):
    """Every ``(DIVCLK_DIVIDE, CLKFBOUT_MULT_F, CLKOUT0_DIVIDE_F)`` of an MMCME2 fed with
    ``f_in`` whose phase detector, VCO and output are within range (integer dividers)."""
    for d in range(1, _DIVCLK_MAX + 1):
        pfd = f_in / d
        if not _PFD_MIN <= pfd <= _PFD_MAX:
            continue
        for mult in _MULT_RANGE:
            vco = pfd * mult
            if not _VCO_MIN <= vco <= _VCO_MAX:
                continue
            for div in _DIV_RANGE:
                if _OUT_MIN <= vco / div <= _OUT_MAX:
                    yield d, mult, div


def mmcm_parameters(f_in, f_out):
    """``(DIVCLK_DIVIDE, CLKFBOUT_MULT_F, CLKOUT0_DIVIDE_F)`` of an MMCME2 that makes
    exactly ``f_out`` from ``f_in`` (integer dividers; the VCO as close to its middle
    as possible).  Raises ValueError when no such setting exists."""
    if not _OUT_MIN <= f_out <= _OUT_MAX:
        raise ValueError(f"an Artix-7 MMCM cannot make {f_out / 1e6:g} MHz "
                         f"({_OUT_MIN / 1e6:g} to {_OUT_MAX / 1e6:g} MHz)")
    best = None
    for d, mult, div in mmcm_settings(f_in):
        vco = f_in / d * mult
        if abs(vco / div - f_out) > 1e-6 * f_out:
            continue
        score = abs(vco - 900e6)
        if best is None or score < best[0]:
            best = (score, (d, mult, div))
    if best is None:
        raise ValueError(f"an Artix-7 MMCM cannot make exactly {f_out / 1e6:g} MHz "
                         f"from {f_in / 1e6:g} MHz with integer dividers")
    return best[1]


class ArtyClocking(Elaboratable):
    """The ``sync`` domain at ``frequency`` Hz from the 100 MHz oscillator (an MMCME2)."""

    def __init__(self, board_clock, frequency):
        self.board_clock = board_clock
        self.frequency = frequency
        self.parameters = mmcm_parameters(board_clock, frequency)

    def elaborate(self, platform):
        m = Module()
        m.domains.sync = ClockDomain("sync")

        clk100 = platform.request(platform.default_clk, 0)
        button = platform.request(platform.default_rst, 0)

        divclk, mult, div = self.parameters
        feedback = Signal()
        clk_mmcm = Signal()
        locked = Signal()
        m.submodules.mmcm = Instance("MMCME2_BASE",
            p_BANDWIDTH="OPTIMIZED",
            p_CLKIN1_PERIOD=1e9 / self.board_clock,
            p_DIVCLK_DIVIDE=divclk,
            p_CLKFBOUT_MULT_F=float(mult),
            p_CLKOUT0_DIVIDE_F=float(div),
            p_STARTUP_WAIT="FALSE",
            i_CLKIN1=clk100.i,
            i_CLKFBIN=feedback,
            o_CLKFBOUT=feedback,
            o_CLKOUT0=clk_mmcm,
            o_LOCKED=locked,
            i_PWRDWN=0,
            i_RST=0,
        )
        m.submodules.bufg = Instance("BUFG", i_I=clk_mmcm, o_O=ClockSignal("sync"))
        m.submodules.reset_sync = ResetSynchronizer(~locked | button.i, domain="sync")
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
