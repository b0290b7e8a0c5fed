"""The virtual board: the whole SoC in Verilator, its UART on a pseudo-terminal.

docs/design.md section 4, simulation level 3.  The SoC's Verilog (with PicoRV32 and
the firmware image in its RAM) is compiled with ``harness.cpp`` into one
program, ``build/vboard/soc-<hash>/vboard``.  It prints ``PTY /dev/pts/N`` and
then behaves like an Arty A7 on ``/dev/ttyUSB1``: the host opens the path with
pyserial and talks the same protocol, byte for byte, at the same baud rate
(the harness serialises each byte onto the UART line, see ``harness.cpp``).

From Python::

    from slitherlink.sim.vboard import VirtualBoard
    with VirtualBoard() as board:          # builds the SoC's board if needed
        serial.Serial(board.port, board.baud) ...
    board.cycles                           # exact cycle count at exit

From the shell: ``python -m slitherlink.sim.vboard run`` (or ``make vboard-run``).
"""

import os
import re
import select
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import NamedTuple, Optional

from slitherlink.paths import part

from .builder import Build, BuildError, Design, build, source_snapshot

__all__ = ["VirtualBoard", "Stamp", "VirtualBoardError", "BuildError", "Build", "Design", "DESIGNS",
           "build_design", "trace_kind"]


class Stamp(NamedTuple):
    """A virtual board's stamps (harness.cpp's ``CYCLES n RX a TX b SERVED s GAP g``):
    ``cycles`` simulated so far; ``rx``, the cycle at which the first start bit towards the
    board began since the last stamp, and ``tx``, the cycle at which the last stop bit from
    the board ended since then (0 for none); ``served``, the cycle of the firmware's last
    access to its UART (0: none yet), and ``gap``, the longest stretch between two such
    accesses since the last stamp (both None for a design without that port)."""
    cycles: int
    rx: int
    tx: int
    served: Optional[int] = None
    gap: Optional[int] = None

    @classmethod
    def parse(cls, line):
        """The stamp a line of the harness says, or None."""
        if isinstance(line, bytes):
            line = line.decode("ascii", "replace")
        match = _STAMP.fullmatch(line.strip())
        if not match:
            return None
        return cls(*(int(v) if v is not None else None for v in match.groups()))


_STAMP = re.compile(r"CYCLES (\d+) RX (\d+) TX (\d+)(?: SERVED (\d+) GAP (\d+))?")


class VirtualBoardError(RuntimeError):
    """The virtual board could not be started or stopped.  ``str()`` is one line."""


def _soc(params):
    from . import soc
    target = soc.target_of(params)
    return soc.design_name(target), lambda: soc.design(target), repr(target)


def _echo(params):
    if params:
        raise BuildError(f"the echo design takes no parameters, not {sorted(params)}")
    from . import echo
    return "echo", echo.design, ""


_HERE = Path(__file__).resolve().parent

#: design name -> (function of the parameters -> (build name, factory, key), the files
#: and folders the design is made from)
DESIGNS = {
    "soc": (_soc, [part("hw"), part("spec"), part("firmware"), part("boards") / "design.py",
                   _HERE / "soc.py"]),
    "echo": (_echo, [_HERE / "echo.py"]),
}


#: the Python inputs of every design as they were when this process imported this module
#: (in a benchmark or a test session, before it elaborated anything): a build refuses if
#: one the process has imported changed since (``builder.stale_sources``)
_SNAPSHOT = source_snapshot([f for _, files in DESIGNS.values() for f in files])


def trace_kind(path):
    """``"fst"`` for a ``.fst`` file, else ``"vcd"``; ``None`` without a path."""
    if path is None:
        return None
    return "fst" if str(path).endswith(".fst") else "vcd"


def build_design(name="soc", *, params=None, trace=None, profile=False, force=False,
                 quiet=False, root=None):
    """Build (or find the cached build of) a virtual board; returns a :class:`Build`.

    ``params`` of the SoC: the fields of its target to change from the default one
    (:data:`sim.vboard.soc.PARAMETERS`: ``max_rows``, ``clock_hz``, ``deduce``, ``band``,
    ...; :func:`sim.vboard.soc.target_of`).
    """
    if name not in DESIGNS:
        raise BuildError(f"unknown virtual board design {name!r}; choose one of: "
                         f"{', '.join(DESIGNS)}")
    make, inputs = DESIGNS[name]
    build_name, factory, key = make(dict(params or {}))
    if name == "echo" and trace in (None, "vcd"):
        trace = "vcd"  # the small self-test board always has VCD tracing: one build
    return build(factory, name=build_name, inputs=inputs, trace=trace, profile=profile,
                 force=force, quiet=quiet, root=root, key=key, snapshot=_SNAPSHOT)


class VirtualBoard:
    """A running virtual board process.

    ``with VirtualBoard(...) as board`` starts it (building first if needed)
    and stops it on exit, also after an exception or Ctrl-C.  ``board.port``
    is the pseudo-terminal's path; after :meth:`stop`, ``board.cycles`` is the
    exact number of clock cycles simulated.  The process also ends by itself
    when this Python process dies (it watches its stdin pipe).
    """

    def __init__(self, design="soc", *, params=None, build=None, trace=None, args=(),
                 quiet=True, start_timeout=30.0, root=None):
        self.design = design
        self.params = params
        self._build = build
        self.trace = trace
        self.args = list(args)
        self.quiet = quiet
        self.start_timeout = start_timeout
        self.root = root
        self.process = None
        self.port = None
        self.cycles = None
        self._log = None
        self._log_text = ""

    @property
    def build(self):
        if self._build is None:
            self._build = build_design(self.design, params=self.params,
                                       trace=trace_kind(self.trace),
                                       quiet=self.quiet, root=self.root)
        return self._build

    @property
    def clock_hz(self):
        return self.build.clock_hz

    @property
    def baud(self):
        return self.build.baud

    def start(self):
        if self.process is not None:
            raise VirtualBoardError("this virtual board is already running")
        binary = self.build.path
        command = [str(binary), "--exit-on-stdin-eof", *self.args]
        if self.trace:
            command += ["--trace", str(self.trace)]
        self._log = tempfile.TemporaryFile(mode="w+", prefix="vboard-")
        try:
            self.process = subprocess.Popen(command, stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, stderr=self._log,
                                            text=True, start_new_session=True)
        except OSError as error:
            raise VirtualBoardError(f"cannot start the virtual board {binary}: "
                                    f"{error.strerror}") from None
        line = self._readline(self.start_timeout)
        if not line.startswith("PTY "):
            self.stop()
            raise VirtualBoardError(f"the virtual board did not start: "
                                    f"{self._last_log_line() or line.strip() or 'no output'}")
        self.port = line.split(None, 1)[1].strip()
        return self

    def _readline(self, timeout):
        deadline = time.monotonic() + timeout
        stdout = self.process.stdout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([stdout], [], [], 0.1)
            if ready:
                return stdout.readline()
            if self.process.poll() is not None:
                return stdout.readline()
        return ""

    def _last_log_line(self):
        lines = [line.strip() for line in self.log.splitlines() if line.strip()]
        return lines[-1] if lines else ""

    @property
    def log(self):
        """What the harness printed on stderr (so far, or until it stopped)."""
        if self._log is None:
            return self._log_text
        self._log.seek(0)
        text = self._log.read()
        self._log.seek(0, os.SEEK_END)
        return text

    def stamp(self, timeout=30.0):
        """The board's stamps, in its own clock cycles (a :class:`Stamp`).  Exact device
        time, whatever the machine's speed."""
        if not self.running():
            raise VirtualBoardError(self.problem() or "the virtual board is not running")
        self.process.send_signal(signal.SIGUSR1)
        line = self._readline(timeout)
        stamp = Stamp.parse(line)
        if stamp is None:
            raise VirtualBoardError(f"the virtual board did not report its stamps: "
                                    f"{line.strip() or 'no answer'}")
        return stamp

    def slowdown(self, seconds=1.0):
        """Wall seconds a second of the board's clock takes now, measured by two stamps
        ``seconds`` apart (its clock runs while a host has its pty open): what a host's
        waits are scaled by (:meth:`host.device.Connection.simulated`)."""
        cycles, start = self.stamp()[0], time.monotonic()
        time.sleep(seconds)
        later, wall = self.stamp()[0], time.monotonic() - start
        if later <= cycles:
            raise VirtualBoardError("the virtual board's clock did not advance "
                                    f"(cycle {cycles}): is a host attached?")
        return wall / ((later - cycles) / self.clock_hz)

    def running(self):
        return self.process is not None and self.process.poll() is None

    def problem(self):
        """One line if the board has died or its CPU has trapped, else ``""``."""
        if self.process is None:
            return "the virtual board is not running"
        if self.process.poll() is not None:
            return (f"the virtual board stopped (exit status {self.process.returncode}): "
                    f"{self._last_log_line() or 'no message'}")
        for line in self.log.splitlines():
            if "trapped" in line:
                return line.strip()
        return ""

    def stop(self, timeout=10.0):
        """Stop the board (SIGTERM, then SIGKILL); returns the cycle count (or None)."""
        process = self.process
        if process is None:
            return self.cycles
        try:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        except KeyboardInterrupt:
            process.kill()
            process.wait()
            raise
        out = process.stdout.read() if process.stdout else ""
        for stream in (process.stdin, process.stdout):
            try:
                if stream:
                    stream.close()
            except OSError:
                pass
        for line in (out or "").splitlines():
            if line.startswith("CYCLES "):
                self.cycles = int(line.split()[1])
        self.process = None
        if self._log is not None:
            self._log_text = self.log
            self._log.close()
            self._log = None
        return self.cycles

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False
