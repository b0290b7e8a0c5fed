"""Starting the virtual board for a connection, and telling when it has died.

``host/solve.py`` without ``--port`` solves on the *virtual board*
(:mod:`sim.vboard`: the same SoC, firmware and gateware in Verilator, its UART
on a pseudo-terminal), building it first if needed, through exactly the same
:class:`host.device.connection.Connection` as a real board.  While waiting, the
connection asks :func:`death` now and then, so that a board that died (its
process ended, or its CPU trapped) is reported as such, at once.
"""

import signal
import time

from .connection import Connection
from .errors import VirtualBoardFailed

__all__ = ["start_virtual", "death"]


def death(vboard):
    """One line for a virtual board that has died or trapped, else ``""``: its exit
    status (or the signal that killed it) and the last line it printed."""
    process = getattr(vboard, "process", None)
    code = process.poll() if process is not None else None
    if code is None:
        problem = vboard.problem()  # still running: a CPU trap, or nothing
        if not problem or process is None:
            return problem
        try:  # a trap is often the last thing a dying board says: see whether it ends
            code = process.wait(0.3)
        except Exception:  # noqa: BLE001 -- subprocess.TimeoutExpired: it runs on, trapped
            return problem
    if code < 0:
        try:
            how = f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"was killed by signal {-code}"
    else:
        how = f"exited with status {code}"
    lines = [line.strip() for line in (vboard.log or "").splitlines() if line.strip()]
    last = lines[-1] if lines else "no message"
    return f"the virtual board {how} (its last message: {last})"


def start_virtual(timeout=None, retries=None, vboard=None):
    """A new virtual board (``vboard``: a :class:`sim.vboard.VirtualBoard`, or a
    stand-in with ``build``, ``start``, ``stop``, ``port``, ``baud``, ``process``,
    ``log`` and ``problem``; by default the SoC's), started, and a
    :class:`Connection` to it (not yet connected): ``(connection, vboard)``.  The
    board is stopped again when this fails."""
    try:
        from slitherlink.sim.vboard import BuildError, VirtualBoard, VirtualBoardError
    except ImportError as error:
        raise VirtualBoardFailed(f"the virtual board is not available ({error}); "
                                 f"give --port for a real board") from None
    if vboard is None:
        vboard = VirtualBoard("soc", quiet=False)
    try:
        vboard.build  # noqa: B018 -- builds now, with a message on the first build
        vboard.start()
    except (BuildError, VirtualBoardError) as error:
        vboard.stop()
        raise VirtualBoardFailed(f"cannot start the virtual board: {error}") from None
    except BaseException:
        vboard.stop()
        raise

    def health(wait=0.0):
        """Raise VirtualBoardFailed if the board died; after a port failure, give its
        process ``wait`` seconds to be seen ending (the pty closes first)."""
        end = time.monotonic() + wait
        while True:
            problem = death(vboard)
            if problem:
                raise VirtualBoardFailed(problem)
            if time.monotonic() >= end:
                return
            time.sleep(0.02)

    try:
        connection = Connection(vboard.port, baud=vboard.baud, timeout=timeout,
                                retries=retries, virtual=True, health=health)
    except BaseException:
        vboard.stop()
        raise
    return connection, vboard
