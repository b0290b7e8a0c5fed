"""The line rate of a pseudo-terminal, as the program on its other side set it.

A program that opens a pty's slave with pyserial and sets ``baudrate`` changes the
terminal's settings, which the master shares: the fake device (:mod:`host.fakedevice`)
reads the rate its host talks at from the master, and the lossy link
(:mod:`host.lossy`) passes it on to the device's pty, as the virtual board's harness reads
it from its own.  Linux's ``termios2`` (``TCGETS2``/``TCSETS2``) carries any rate, also
those pyserial sets with ``BOTHER``; elsewhere :func:`line_rate` is None (the rate is
unknown: a device then takes every byte as sent at its own rate).
"""

import array
import fcntl
import sys

__all__ = ["line_rate", "set_line_rate"]

# <asm-generic/ioctls.h>, <asm-generic/termbits.h>: struct termios2 is 11 words; c_cflag
# is word 2, c_ispeed and c_ospeed words 9 and 10
_TCGETS2, _TCSETS2 = 0x802C542A, 0x402C542B
_CBAUD, _BOTHER = 0o010017, 0o010000
_CFLAG, _ISPEED, _OSPEED = 2, 9, 10


def _termios2(fd):
    buf = array.array("i", [0] * 64)
    fcntl.ioctl(fd, _TCGETS2, buf)
    return buf


def line_rate(fd):
    """The rate (bits a second) the terminal of ``fd`` is set to, or None where it cannot
    be read (not Linux, not a terminal)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        rate = _termios2(fd)[_OSPEED]
    except OSError:
        return None
    return rate or None


def set_line_rate(fd, baud):
    """Set the terminal of ``fd`` to ``baud`` (any rate); False where it cannot be done."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        buf = _termios2(fd)
        buf[_CFLAG] = (buf[_CFLAG] & ~_CBAUD) | _BOTHER
        buf[_ISPEED] = buf[_OSPEED] = int(baud)
        fcntl.ioctl(fd, _TCSETS2, buf)
    except OSError:
        return False
    return True
