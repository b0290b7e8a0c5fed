"""The line's rate: the one the host asks for, and where a device may have been left.

docs/design.md section 4.  A device starts at its start rate (VERSION ``start_baud``; every
build's is :data:`spec.uart.DEFAULT_BAUD` unless built otherwise) and switches, when the host
asks with SET_BAUD, to a faster one it offers (:func:`spec.uart.offered_bauds`), up to
VERSION's ``max_baud``: what its board's USB-UART bridge carries as the SoC's UART clock
makes it.  The host asks for ``--baud`` or, by default, for the fastest (:func:`wanted_rate`).
"""

from slitherlink.spec.target import BOARDS
from slitherlink.spec.uart import max_baud, uart_clock_hz

__all__ = ["wanted_rate", "known_rates"]


def wanted_rate(version, asked=None):
    """The rate to ask a device for: ``asked`` (``--baud``), or the fastest it offers
    (VERSION's ``max_baud``; its start rate when it says none)."""
    if asked is not None:
        return int(asked)
    return version.max_baud or version.start_baud or version.baud


def known_rates():
    """The fastest rate of every known board's default build: where a device may have been
    left by a host that switched it and ended before switching it back."""
    return sorted({max_baud(uart_clock_hz(board.clock_hz), board.bridge_max_baud)
                   for board in BOARDS.values()}, reverse=True)
