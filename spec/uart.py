"""The UART's rates, shared by the gateware, the boards, the simulators and the host.

DESIGN.md section 4.  The UART's bit time is a whole number of clock cycles
(:func:`divisor_for`); the receiver finds the start bit to within one clock cycle
and then samples the middle of every bit, so with at least :data:`MIN_DIVISOR`
cycles a bit and a rate error of at most :data:`MAX_BAUD_ERROR` the sampling
point stays within 1/8 + 9.5 * 2 % < 1/3 bit of the middle over a 10-bit frame.
"""

__all__ = ["DEFAULT_BAUD", "FAST_BAUD", "MIN_DIVISOR", "MAX_BAUD_ERROR", "divisor_for"]

#: The UART rate of every build and of the host unless asked otherwise (any USB-UART
#: bridge does it).
DEFAULT_BAUD = 115_200
#: The fast option: 1 Mbaud is an exact divisor of 50 MHz and of 100 MHz, and both
#: boards' bridges (FT2232H on the Arty, FT231X on the ULX3S) carry it.
FAST_BAUD = 1_000_000
#: Fewest clock cycles per UART bit.
MIN_DIVISOR = 8
#: Largest relative error of the baud rate made from the clock.
MAX_BAUD_ERROR = 0.02


def divisor_for(clock_hz, baud):
    """Clock cycles per bit for ``baud`` at ``clock_hz``; ValueError (one line) when unusable."""
    if isinstance(baud, bool) or not isinstance(baud, int) or baud <= 0:
        raise ValueError(f"baud rate must be a positive integer, not {baud!r}")
    if clock_hz <= 0:
        raise ValueError(f"the clock ({clock_hz} Hz) must be positive")
    divisor = round(clock_hz / baud)
    if divisor < MIN_DIVISOR:
        raise ValueError(f"baud rate {baud} is too fast for a {clock_hz / 1e6:g} MHz clock "
                         f"(at least {MIN_DIVISOR} clock cycles per bit are needed)")
    error = abs(clock_hz / divisor - baud) / baud
    if error > MAX_BAUD_ERROR:
        raise ValueError(f"baud rate {baud} cannot be made from a {clock_hz / 1e6:g} MHz "
                         f"clock: the nearest is {clock_hz / divisor:.0f} ({error:.1%} off, "
                         f"at most {MAX_BAUD_ERROR:.0%} works)")
    return divisor
