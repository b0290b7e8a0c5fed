"""The virtual board's simulated time as the host reads it (host/device/virtual.py
:class:`SimulatedTime`): a stand-in process that answers SIGUSR1 with the harness's line
(``CYCLES n RX a TX b``, sim/vboard/harness.cpp), a clock of the test's own for the host's
side.  The slowdown is the host's seconds per second of the board's clock; a board whose
clock stands still (here: a process stopped with SIGSTOP) is frozen after
FROZEN_SECONDS of the host's clock."""

import signal
import subprocess
import sys
import time

import pytest

from slitherlink.host.device.virtual import FROZEN_SECONDS, SimulatedTime
from slitherlink.spec.protocol import SERVICE_INTERVAL_CYCLES

#: a harness stand-in: 1,000 cycles more at every SIGUSR1, reported as the harness does
HARNESS = r"""
import signal, sys, time
cycles = 0
def stamp(signum, frame):
    global cycles
    cycles += 1000
    sys.stdout.write(f"CYCLES {cycles} RX 0 TX 0\n")
    sys.stdout.flush()
signal.signal(signal.SIGUSR1, stamp)
sys.stdout.write("ready\n"); sys.stdout.flush()
while True:
    time.sleep(1)
"""


@pytest.fixture
def harness():
    process = subprocess.Popen([sys.executable, "-c", HARNESS], stdout=subprocess.PIPE)
    try:
        assert process.stdout.readline() == b"ready\n"
        yield process
    finally:
        process.kill()
        process.wait()


def answered(simulated, count):
    """Wait (a hang's bound only) until ``count`` readings have been taken."""
    deadline = time.monotonic() + 30.0
    while len(simulated.samples) < count:
        assert time.monotonic() < deadline, "the stand-in never answered"
        simulated._read(simulated.timer())
        time.sleep(0.01)


def test_the_harness_line_gives_the_slowdown(harness):
    now = [0.0]
    simulated = SimulatedTime(harness, clock_hz=1000, timer=lambda: now[0])
    simulated.tick()
    answered(simulated, 1)
    now[0] = 2.0
    simulated.tick()
    answered(simulated, 2)
    assert simulated.samples == [(0.0, 1000), (2.0, 2000)]
    assert simulated.slowdown == pytest.approx(2.0)  # 1,000 cycles at 1 kHz in 2 s
    assert simulated.frozen() is False


def test_a_stopped_board_is_frozen_after_its_seconds(harness):
    now = [0.0]
    simulated = SimulatedTime(harness, clock_hz=1000, timer=lambda: now[0])
    simulated.tick()
    answered(simulated, 1)
    harness.send_signal(signal.SIGSTOP)
    try:
        now[0] = 1.0
        simulated.tick()                  # not answered: the process is stopped
        now[0] = 1.0 + FROZEN_SECONDS / 2
        assert simulated.frozen() is False
        now[0] = 1.0 + FROZEN_SECONDS
        assert simulated.frozen() == 1000   # the cycle it stood still at
    finally:
        harness.send_signal(signal.SIGCONT)


#: a harness stand-in whose firmware serves its UART at every stamp until the third,
#: then no more, while its clock runs on (half a service interval a stamp)
HUNG_HARNESS = r"""
import signal, sys, time
cycles = served = 0
def stamp(signum, frame):
    global cycles, served
    cycles += {step}
    if cycles <= 3 * {step}:
        served = cycles - 7
    sys.stdout.write(f"CYCLES {{cycles}} RX 0 TX 0 SERVED {{served}} GAP 100\n")
    sys.stdout.flush()
signal.signal(signal.SIGUSR1, stamp)
sys.stdout.write("ready\n"); sys.stdout.flush()
while True:
    time.sleep(1)
"""


def test_a_firmware_that_stops_serving_its_uart_is_hung_after_its_interval():
    step = SERVICE_INTERVAL_CYCLES // 2
    process = subprocess.Popen([sys.executable, "-c", HUNG_HARNESS.format(step=step)],
                               stdout=subprocess.PIPE)
    try:
        assert process.stdout.readline() == b"ready\n"
        simulated = SimulatedTime(process, clock_hz=1000, timer=lambda: 0.0)
        verdicts = []
        for count in range(1, 7):
            simulated.tick()
            answered(simulated, count)
            verdicts.append(simulated.hung())
        last_served = 3 * step - 7
        # served up to the third stamp; then the stretch grows half an interval a stamp,
        # past the interval at the fifth (2 * step + 7 cycles)
        assert verdicts == [False] * 4 + [(5 * step, last_served), (6 * step, last_served)]
        assert simulated.frozen() is False     # its clock runs: only the firmware is hung
    finally:
        process.kill()
        process.wait()
