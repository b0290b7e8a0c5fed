"""The connections of this program, kept open from one puzzle to the next.

:func:`open_connection` gives a connected :class:`Connection` to the board on a
port, or to a new virtual board when no port is given (:mod:`host.device.virtual`),
and keeps it for the next call; :func:`drop` closes one after a failure (the next
call starts afresh), :func:`close_all` closes them all and stops every virtual
board this program started -- also when the program ends, after an error or
Ctrl-C (``atexit``).
"""

import atexit

from .connection import Connection, forget_links
from .virtual import start_virtual

__all__ = ["open_connection", "drop", "close_all", "connections"]


class _Session:
    """A connection kept for the rest of the program (and its virtual board)."""

    def __init__(self, key, connection, vboard=None):
        self.key, self.connection, self.vboard = key, connection, vboard

    def close(self):
        try:
            self.connection.close()
        finally:
            if self.vboard is not None:
                self.vboard.stop()


#: key -> :class:`_Session`: ``("virtual",)``, or ``(port, baud)``
_sessions = {}


def open_connection(port=None, *, baud=None, timeout=None, retries=None, vboard=None):
    """A connected :class:`Connection` on ``port`` (or on a new virtual board: ``vboard``,
    or the SoC's), reused across calls in this program; see :func:`close_all`.  The port is
    opened at the device's start rate; ``baud`` is the rate to switch to (``--baud``; None:
    the fastest the device offers)."""
    key = ("virtual", baud) if port is None else (port, baud)
    session = _sessions.get(key)
    if session is None:
        if port is None:
            session = _Session(key, *start_virtual(timeout, retries, vboard, rate=baud))
        else:
            session = _Session(key, Connection(port, rate=baud, timeout=timeout,
                                               retries=retries))
        try:
            session.connection.connect()
        except BaseException:
            session.close()
            raise
        _sessions[key] = session
    else:
        session.connection.timeout = timeout
        if retries is not None:
            session.connection.retries = int(retries)
    return session.connection


def drop(connection):
    """Close ``connection`` (after a failure or Ctrl-C: the next call starts afresh)."""
    for key, session in list(_sessions.items()):
        if session.connection is connection:
            del _sessions[key]
            session.close()


def connections():
    """The connections open now."""
    return [session.connection for session in _sessions.values()]


def close_all():
    """Close every connection and stop every virtual board this program started; forget
    what was learned of the links."""
    forget_links()
    while _sessions:
        _, session = _sessions.popitem()
        try:
            session.close()
        except Exception:  # noqa: BLE001 -- at exit, nothing more to do
            pass


atexit.register(close_all)
