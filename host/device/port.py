"""Opening a serial port for a board: exclusively, with one-line errors.

``open_port(port, baud)`` gives a ``serial.Serial`` (pyserial, imported only here
and only when a port is opened) or raises :class:`host.device.errors.PortError`
saying what is wrong in words a user can act on.  Finding the Arty's port is
:mod:`host.ports`.  :func:`set_latency_timer` sets a Linux FTDI bridge's latency timer
to 1 ms where it may, and says once (``-v``) how where it may not.
"""

import logging
import os
import re
from pathlib import Path

from .errors import PortError

__all__ = ["open_port", "port_errors", "is_pty", "link_key", "set_latency_timer",
           "LATENCY_TIMER", "LATENCY_RULE"]

log = logging.getLogger(__name__)

#: Linux's USB-serial attribute of a port's latency timer (ms): the FTDI driver holds a
#: short packet that long (16 ms by default) before passing it on
LATENCY_TIMER = "/sys/bus/usb-serial/devices/{name}/latency_timer"
#: a udev rule that sets every FTDI port's latency timer to 1 ms (docs/host.md)
LATENCY_RULE = ('ACTION=="add", SUBSYSTEM=="usb-serial", DRIVER=="ftdi_sio", '
                'ATTR{latency_timer}="1"')
_told = set()  # the ports whose latency timer the user was told about


def open_port(port, baud):
    """``serial.Serial`` on ``port``, opened exclusively, or :class:`PortError`."""
    import serial

    try:
        handle = serial.Serial(port, baudrate=baud, timeout=0.02, write_timeout=5.0,
                               exclusive=True)
    except serial.SerialException as error:
        raise PortError(_port_message(port, error)) from None
    except (OSError, ValueError) as error:
        raise PortError(f"cannot open {port}: {error}") from None
    return handle


def _port_message(port, error):
    text = str(error)
    errno = getattr(error, "errno", None)
    if errno == 2 or "No such file" in text:
        return (f"serial port {port} does not exist (is the board plugged in? "
                f"see docs/host.md; without a board, leave out --port)")
    if errno == 13 or "Permission denied" in text:
        return (f"no permission to open {port} (add yourself to the 'dialout' group "
                f"and log in again; see docs/host.md)")
    if errno in (11, 16) or "exclusively lock" in text or "busy" in text.lower():
        return f"serial port {port} is busy (another program has it open)"
    if "Inappropriate ioctl" in text or errno == 25:
        return f"{port} is not a serial port"
    return f"cannot open serial port {port}: {text}"


def port_errors():
    """What pyserial raises when the port goes away (termios.error, from a terminal call
    such as setting the rate on a pty whose other side has closed, is no OSError)."""
    import serial
    errors = (serial.SerialException, OSError)
    try:
        import termios
    except ImportError:  # not POSIX
        return errors
    return errors + (termios.error,)


def is_pty(port):
    """A Unix 98 pseudo-terminal (the virtual board's kind of port), links followed."""
    return os.path.realpath(str(port)).startswith("/dev/pts/")


def link_key(port, baud):
    """The device file itself (a pty's number is reused by the next pty, whose node is
    new), and the baud rate; None when the port cannot be looked at."""
    try:
        info = os.stat(port)
    except (OSError, ValueError, TypeError):
        return None
    return (os.path.realpath(str(port)), info.st_ino, info.st_ctime_ns, int(baud))


def set_latency_timer(port, *, root="/"):
    """Set the latency timer of a Linux USB-serial port (``/dev/ttyUSBn``, links followed)
    to 1 ms where it is writable; returns the timer in ms afterwards, or None for a port
    without one.  Where it may not be written, says once (``-v``) how: as root, or with a
    udev rule (:data:`LATENCY_RULE`)."""
    name = os.path.basename(os.path.realpath(str(port)))
    if not re.fullmatch(r"ttyUSB\d+", name):
        return None
    timer = Path(root, LATENCY_TIMER.format(name=name).lstrip("/"))
    try:
        now = int(timer.read_text().strip())
    except (OSError, ValueError):
        return None
    if now <= 1:
        return now
    try:
        timer.write_text("1\n")
    except OSError:
        if name not in _told:
            _told.add(name)
            log.info("%s: the FTDI latency timer is %d ms, which delays every short reply; "
                     "this user may not set it to 1 ms: run 'echo 1 | sudo tee %s' or add the "
                     "udev rule %s (docs/host.md)", port, now, LATENCY_TIMER.format(name=name),
                     LATENCY_RULE)
        return now
    log.info("%s: FTDI latency timer set from %d ms to 1 ms", port, now)
    return 1
