"""The device's one-line errors, each with its exit code (:mod:`spec.exits`).

All are :class:`BoardError`\\ s (a :class:`host.errors.HostError`): the board, real or
virtual, or its port, failed.  ``host/solve.py`` prints ``str()`` (one line) and
exits with ``exit_code``.
"""

from ..errors import ExitCode, HostError

__all__ = ["BoardError", "PortError", "NoAnswer", "GarbledAnswer", "TooLarge", "DeviceError",
           "NoDeduceEngine", "VirtualBoardFailed", "NotSent"]


class BoardError(HostError):
    """A failure of the board (real or virtual) or of its port."""
    exit_code = ExitCode.ENGINE


class PortError(BoardError):
    """The serial port is missing, busy (another program has it) or not usable."""
    exit_code = ExitCode.PORT


class NoAnswer(BoardError):
    """Nothing came back, after the retries."""
    exit_code = ExitCode.TIMEOUT


class GarbledAnswer(BoardError):
    """Bytes came back, but no well-formed answer (bad CRC, truncated, noise, an echo,
    frames that answer no request), after the retries."""
    exit_code = ExitCode.GARBLED


class TooLarge(BoardError):
    """The puzzle is larger than the hardware was built for."""
    exit_code = ExitCode.TOO_LARGE


class DeviceError(BoardError):
    """The device answered the request with an ERROR frame (other than TOO_LARGE), or
    speaks another protocol version."""
    exit_code = ExitCode.ENGINE


class NoDeduceEngine(DeviceError):
    """Deduce mode was asked of a build without the deduction engine."""
    exit_code = ExitCode.ENGINE


class VirtualBoardFailed(BoardError):
    """The virtual board could not be built or started, or it died."""
    exit_code = ExitCode.ENGINE


class NotSent(BoardError):
    """A puzzle not sent: no connection to the board could be made for an earlier puzzle
    of the same run, and no other is tried (``cause``: that error; its exit code is this
    one's)."""

    def __init__(self, cause):
        super().__init__("not sent: no connection to the board (the first puzzle that "
                         "failed says why)")
        self.cause = cause
        self.exit_code = cause.exit_code
