"""Starting the virtual board for a connection, and telling when it has died or frozen.

``host/solve.py`` without ``--port`` solves on the *virtual board*
(:mod:`sim.vboard`: the same SoC, firmware and gateware in Verilator, its UART
on a pseudo-terminal), building it first if needed, through exactly the same
:class:`host.device.connection.Connection` as a real board.  While waiting, the
connection asks :func:`death` now and then, so that a board that died (its
process ended, or its CPU trapped) is reported as such, at once.

The board reports its simulated time (the harness prints ``CYCLES n RX a TX b`` when sent
SIGUSR1, the last two its link stamps, :meth:`sim.vboard.VirtualBoard.stamp`:
:class:`SimulatedTime`), without a byte on its UART, so nothing of its cycle counts is
disturbed: the host learns from it exactly how much slower than the board the simulation
runs (the link's slowdown, :meth:`host.device.link.LinkTiming.simulated`: every wait in
device cycles, such as the search allowance, is then exact), and a board whose clock stops
(its process stopped or hung) is reported within :data:`FROZEN_SECONDS`.  The stamps also
say when the firmware last served its UART (``SERVED s``): a firmware that has not for
:data:`spec.protocol.SERVICE_INTERVAL_CYCLES` of the board's clock is hung, which is
reported as soon as it is seen -- without a probe on the link, which a search with its
counters would have to wait for, so its cycle counts stay undisturbed.
"""

import os
import re
import select
import signal
import time

from slitherlink.spec.protocol import SERVICE_INTERVAL_CYCLES

from .connection import Connection
from .errors import VirtualBoardFailed

__all__ = ["start_virtual", "connect_to", "death", "SimulatedTime", "FROZEN_SECONDS"]

#: seconds of wall time in which a running virtual board's clock must advance (or it
#: report its time at all) while a host waits on it
FROZEN_SECONDS = 5.0
#: seconds of wall time between two readings of the simulated time used for the slowdown
_SAMPLE_SECONDS = 1.0


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


def _catches(pid, signum):
    """Whether process ``pid`` catches signal ``signum`` (Linux: /proc/pid/status SigCgt),
    so that sending it cannot kill the process."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    except (OSError, ValueError):
        pass
    return False


class SimulatedTime:
    """The simulated time of a running virtual board's harness: :meth:`tick` (called now
    and then while the host waits) asks for it with SIGUSR1 and reads the ``CYCLES n ...``
    lines of the answers that have come, without waiting.  :attr:`slowdown` is the wall
    time of a second of the board's clock, measured over about a second; :meth:`frozen`
    says whether the clock has not advanced (or not been reported) for ``seconds``;
    :meth:`hung` whether the firmware has not served its UART for too many cycles."""

    def __init__(self, process, clock_hz, timer=time.monotonic):
        from slitherlink.sim.vboard import Stamp
        self.process, self.clock_hz, self.timer = process, int(clock_hz), timer
        self._stamp, self._parse = Stamp, Stamp.parse
        self.samples = []        # (wall, cycles) of the last readings, about a second
        self._buffer = b""
        self._asked = None       # when a reading was first asked for and not yet answered
        self._moved = None       # (wall, cycles) when the clock was last seen advancing
        self.served = None       # (cycles, served) of the last reading that said it
        self.slowdown = None

    @classmethod
    def of(cls, vboard):
        """The simulated time of ``vboard``, or None when its process does not report it
        (it does not catch SIGUSR1: not the harness)."""
        process = getattr(vboard, "process", None)
        if process is None or process.stdout is None or not _catches(process.pid,
                                                                     signal.SIGUSR1):
            return None
        try:
            return cls(process, vboard.clock_hz)
        except Exception:  # noqa: BLE001 -- a stand-in without a build: no simulated time
            return None

    def tick(self):
        now = self.timer()
        self._read(now)
        if self._asked is None:
            self._asked = now
        try:
            self.process.send_signal(signal.SIGUSR1)
        except (OSError, ProcessLookupError):
            pass

    def _read(self, now):
        fd = self.process.stdout.fileno()
        while select.select([fd], [], [], 0)[0]:
            try:
                data = os.read(fd, 4096)
            except OSError:
                return
            if not data:
                return
            self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            stamp = self._parse(line)
            if stamp is None:   # the last line of a board that stops: "CYCLES n"
                match = re.fullmatch(rb"CYCLES (\d+)", line.strip())
                stamp = self._stamp(int(match.group(1)), 0, 0) if match else None
            if stamp is not None:
                cycles = stamp.cycles
                if stamp.served is not None:
                    self.served = (cycles, stamp.served)
                self.samples.append((now, cycles))
                self._asked = None
                if self._moved is None or cycles > self._moved[1]:
                    self._moved = (now, cycles)
        while len(self.samples) > 2 and now - self.samples[1][0] >= _SAMPLE_SECONDS:
            del self.samples[0]
        if len(self.samples) >= 2:
            (t0, c0), (t1, c1) = self.samples[0], self.samples[-1]
            if c1 > c0 and t1 - t0 >= _SAMPLE_SECONDS:
                self.slowdown = (t1 - t0) / ((c1 - c0) / self.clock_hz)

    def hung(self, interval=SERVICE_INTERVAL_CYCLES):
        """``(cycles, served)`` when, at the last reading, the firmware had not served its
        UART for more than ``interval`` cycles (``served``: the cycle it last did, 0 for
        never), else False."""
        if self.served is not None and self.served[0] - self.served[1] > interval:
            return self.served
        return False

    def frozen(self, seconds=FROZEN_SECONDS):
        """The cycles (or None) at which the clock stood still for ``seconds``, or False."""
        now = self.timer()
        if self._asked is not None and now - self._asked >= seconds:
            return self._moved[1] if self._moved else None
        if self._moved is not None and now - self._moved[0] >= seconds:
            return self._moved[1]
        return False


def start_virtual(timeout=None, retries=None, vboard=None, rate=None):
    """A new virtual board (``vboard``: a :class:`sim.vboard.VirtualBoard`, or a
    stand-in with ``build``, ``start``, ``stop``, ``port``, ``baud``, ``process``,
    ``log`` and ``problem``; by default the SoC's), started, and a
    :class:`Connection` to it (not yet connected; ``rate``: the rate to switch to):
    ``(connection, vboard)``.  The board is stopped again when this fails."""
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
    try:
        connection = connect_to(vboard, rate=rate, timeout=timeout, retries=retries)
    except BaseException:
        vboard.stop()
        raise
    return connection, vboard


def connect_to(vboard, port=None, **options):
    """A :class:`Connection` (not yet connected) to the running virtual board ``vboard``
    on ``port``: the board's own by default, else one in front of it (the lossy link's,
    :class:`host.lossy.LossyLink`); ``options``: Connection's, the board's start rate by
    default.  It is watched as every connection to a virtual board is: a board that dies
    or traps is reported at once, one whose clock stands still within
    :data:`FROZEN_SECONDS`, and the board's simulated time sets the link's slowdown, so
    every wait is scaled from the measured speed of the board (on a busy machine too)."""
    simulated = SimulatedTime.of(vboard)
    link = {}

    def health(wait=0.0):
        """Raise VirtualBoardFailed if the board died or its clock stopped; after a port
        failure, give its process ``wait`` seconds to be seen ending (the pty closes
        first).  Tell the connection the board's speed."""
        end = time.monotonic() + wait
        while True:
            problem = death(vboard)
            if problem:
                raise VirtualBoardFailed(problem)
            if time.monotonic() >= end:
                break
            time.sleep(0.02)
        if simulated is None:
            return
        simulated.tick()
        stopped = simulated.frozen()
        if stopped is not False:
            at = f"at cycle {stopped}" if stopped is not None else "(it reports no time)"
            raise VirtualBoardFailed(f"the virtual board's clock has stood still {at} for "
                                     f"{FROZEN_SECONDS:g} s: its process is stopped or hung")
        hung = simulated.hung()
        if hung is not False:
            cycles, served = hung
            since = f"since cycle {served:,}" if served else "at all"
            raise VirtualBoardFailed(
                f"the virtual board's firmware has not served its UART {since} (now cycle "
                f"{cycles:,}; it serves it at least every {SERVICE_INTERVAL_CYCLES:,} "
                f"cycles while it runs): it is hung")
        if simulated.slowdown is not None and "connection" in link:
            link["connection"].simulated(simulated.slowdown)

    options = {"baud": vboard.baud, "virtual": True, **options}
    connection = Connection(vboard.port if port is None else port, health=health, **options)
    link["connection"] = connection
    return connection
