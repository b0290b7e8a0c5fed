"""The line's rate: the rates a build offers, and the one the host asks for.

docs/design.md section 4.  A device starts at its start rate (VERSION ``start_baud``; every
build's is :data:`spec.uart.DEFAULT_BAUD` unless built otherwise) and switches, when the host
asks with SET_BAUD, to a faster one it offers, up to VERSION's ``max_baud``: what its
board's USB-UART bridge carries as the SoC's clock can make it.  The host asks for
``--baud`` or, by default, for the fastest (:func:`wanted_rate`).

:func:`offered_rates` is the rule of the rates themselves, for the fake device and the
docs: a bridge makes 12 MHz / n (the FT2232H; the FT231X's 3 MHz / n are among them), the
UART a whole number of clock cycles a bit within :func:`spec.uart.divisor_for`'s tolerance.
It is the seam where :mod:`spec.uart`'s own list of a build's rates replaces it once the
UART makes fractional bit times.
"""

from slitherlink.spec.target import BOARDS
from slitherlink.spec.uart import DEFAULT_BAUD, divisor_for

__all__ = ["BRIDGE_CLOCK_HZ", "offered_rates", "fastest_rate", "wanted_rate", "known_rates"]

#: The bridges' baud generator: the FT2232H makes 12 MHz / n, the FT231X 3 MHz / n.
BRIDGE_CLOCK_HZ = 12_000_000


def offered_rates(clock_hz, bridge_max_baud, start_baud=DEFAULT_BAUD):
    """The rates, fastest first, that a SoC at ``clock_hz`` behind a bridge that carries up
    to ``bridge_max_baud`` offers: the start rate and every 12 MHz / n between it and the
    bridge's fastest that the clock makes (:func:`spec.uart.divisor_for`)."""
    rates = {start_baud}
    n = max(1, -(-BRIDGE_CLOCK_HZ // bridge_max_baud))
    while BRIDGE_CLOCK_HZ / n > start_baud:
        rate = BRIDGE_CLOCK_HZ // n
        if BRIDGE_CLOCK_HZ % n == 0:
            try:
                divisor_for(clock_hz, rate)
            except ValueError:
                pass
            else:
                rates.add(rate)
        n += 1
    return sorted(rates, reverse=True)


def fastest_rate(clock_hz, bridge_max_baud, start_baud=DEFAULT_BAUD):
    """The fastest of :func:`offered_rates`."""
    return offered_rates(clock_hz, bridge_max_baud, start_baud)[0]


def wanted_rate(version, asked=None):
    """The rate to ask a device for: ``asked`` (``--baud``), or the fastest it offers
    (VERSION's ``max_baud``; its start rate when it says none)."""
    if asked is not None:
        return int(asked)
    return version.max_baud or version.start_baud or version.baud


def known_rates():
    """The fastest rate of every known board's default build: where a device may have been
    left by a host that switched it and ended before switching it back."""
    return sorted({fastest_rate(board.clock_hz, board.bridge_max_baud)
                   for board in BOARDS.values()}, reverse=True)
