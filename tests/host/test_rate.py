"""The fast line (host/device/connection.py's switch_rate, host/device/rates.py): SET_BAUD at
the start rate, BAUD, the port switched, a PING at the new rate to confirm it; on failure both
sides back at the start rate and on there; ``--baud``; the FTDI latency timer
(host/device/port.py).  The fake device is the host's line, both on a clock of the test's own."""

import logging

import pytest

from slitherlink.host import device as B
from slitherlink.host import protocol as P
from slitherlink.host.device import port as port_module
from slitherlink.host.device import link as L
from slitherlink.host.device.link import frame_lengths
from slitherlink.host.engines.board import solve_on
from slitherlink.host.fakedevice import FakeDevice
from slitherlink.host.result import Status
from slitherlink.spec.target import DEFAULT_TARGET, get_board
from slitherlink.spec.uart import offered_bauds
from tests.conftest import load
from tests.host.clock import Clock


def on_clock(device_class=FakeDevice, *, rate=None, timeout=None, **options):
    clock = Clock()
    device = device_class(timer=clock, **options)
    connection = B.Connection("/dev/fake-board", line=device, clock=clock, rate=rate,
                              timeout=timeout)
    return connection, device, clock


def kinds(device):
    return [P.MsgType(f.type).name for f in device.requests]


def solves_right(connection):
    puzzle, solution = load("janko_0011")
    result = solve_on(connection, puzzle, unique=True)
    return result.status is Status.SOLVED_UNIQUE and result.solution == solution


def test_connecting_switches_to_the_fastest_rate_and_confirms_it():
    connection, device, _ = on_clock()
    version = connection.connect()
    assert kinds(device) == ["ABORT", "PING", "SET_BAUD", "PING"]
    assert P.decode_set_baud(device.requests[2]) == version.max_baud == device.max_baud
    assert connection.baud == device.baud == device.max_baud > device.start_baud
    assert connection.version.baud == device.max_baud  # the confirming PING's VERSION
    assert solves_right(connection)
    connection.close()  # asks the device back to its start rate
    assert kinds(device)[-1] == "SET_BAUD" and device.baud == device.start_baud


def test_baud_chooses_an_offered_rate():
    bridge = get_board(DEFAULT_TARGET.board).bridge_max_baud
    rates = offered_bauds(DEFAULT_TARGET.uart_clock_hz, bridge)
    assert len(rates) >= 3
    wanted = rates[1]
    connection, device, _ = on_clock(rate=wanted)
    connection.connect()
    assert connection.baud == device.baud == wanted
    assert solves_right(connection)


def test_baud_at_the_start_rate_is_no_switch():
    connection, device, _ = on_clock(rate=DEFAULT_TARGET.baud)
    connection.connect()
    assert kinds(device) == ["ABORT", "PING"]
    assert connection.baud == device.baud == device.start_baud


def test_a_rate_the_device_does_not_offer_is_a_clear_error():
    connection, device, _ = on_clock(rate=13_000_000)   # above the Arty's 12 Mbaud
    with pytest.raises(B.DeviceError, match="refused 13000000 baud") as error:
        connection.connect()
    assert "\n" not in str(error.value)
    assert device.baud == device.start_baud


class LosesBaud(FakeDevice):
    """Its BAUD replies never arrive (it switches all the same)."""

    def _send(self, frame, at):
        if frame[3] == P.MsgType.BAUD:
            frame = frame[:2]  # a START and a byte: a frame cut short
        return super()._send(frame, at)


class DeafAfterSwitch(FakeDevice):
    """Hears nothing at a rate other than its start rate (a cable that cannot carry it)."""

    def write(self, data):
        if self.baud != self.start_baud:
            data = bytes(len(data))  # every byte received as 0: no START, no frame
        return super().write(data)


@pytest.mark.parametrize("device_class", [LosesBaud, DeafAfterSwitch],
                         ids=["baud-lost", "not-confirmed"])
def test_a_failed_switch_goes_back_to_the_start_rate_and_on(device_class):
    """Without the BAUD reply, or without the confirming VERSION, the host returns to the
    start rate once the device's window is over (the device returns by itself) and the
    conversation goes on there, within the switch's bound."""
    connection, device, clock = on_clock(device_class)
    version = connection.connect()
    assert connection.baud == device.baud == device.start_baud
    assert "failed" in connection.rate_note
    bound = connection.timing.connect_bound(version.clock_hz, connection.retries)
    assert clock.now <= bound
    assert solves_right(connection)


def test_the_switch_bound_covers_the_confirmation_window():
    connection, device, _ = on_clock()
    version = connection.connect()
    timing = connection.timing
    window = timing.confirm_window(version.clock_hz)
    assert window == pytest.approx(0.25, rel=1e-6)
    lengths = frame_lengths()
    assert timing.set_baud_wait(lengths["set_baud"], lengths["baud"], version.clock_hz, 0) \
        >= 1.25 * window
    assert timing.switch_bound(version.clock_hz, connection.retries) > 1.25 * window


# -- the FTDI latency timer -------------------------------------------------------------------

def _sysfs(tmp_path, value):
    timer = tmp_path / port_module.LATENCY_TIMER.format(name="ttyUSB7").lstrip("/")
    timer.parent.mkdir(parents=True)
    timer.write_text(f"{value}\n")
    return timer


def test_the_latency_timer_is_set_to_1_ms_where_writable(tmp_path):
    timer = _sysfs(tmp_path, 16)
    assert port_module.set_latency_timer("/dev/ttyUSB7", root=tmp_path) == 1
    assert timer.read_text().strip() == "1"


def test_an_unwritable_latency_timer_is_said_once(tmp_path, monkeypatch, caplog):
    _sysfs(tmp_path, 16)
    port_module._told.discard("ttyUSB7")

    def refused(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(port_module.Path, "write_text", refused)
    with caplog.at_level(logging.INFO, logger=port_module.log.name):
        assert port_module.set_latency_timer("/dev/ttyUSB7", root=tmp_path) == 16
        assert port_module.set_latency_timer("/dev/ttyUSB7", root=tmp_path) == 16
    said = [r.getMessage() for r in caplog.records if "latency timer" in r.getMessage()]
    assert len(said) == 1 and "udev rule" in said[0] and "sudo" in said[0]


def test_a_port_without_a_latency_timer(tmp_path):
    assert port_module.set_latency_timer("/dev/pts/3", root=tmp_path) is None
    assert port_module.set_latency_timer("/dev/ttyUSB9", root=tmp_path) is None


def test_a_board_left_at_a_fast_rate_is_tried_there_first():
    """A virtual board keeps the rate of its last connection (it is not asked back to its
    start rate on close): the next connection on the same link (the same ledger, as two
    connections to one port share) reaches it at its first attempt at that rate, without
    silent attempts and flushes at the start rate."""
    clock = Clock()
    device = FakeDevice(timer=clock)
    first = B.Connection("/dev/pts/fake", line=device, clock=clock, virtual=True)
    first.connect()
    first.close()
    assert device.baud == device.max_baud > device.start_baud   # left at the fast rate
    before = len(device.requests)
    second = B.Connection("/dev/pts/fake", line=device, clock=clock, virtual=True)
    second.ledger = first.ledger
    assert second.candidate_rates()[:2] == [device.max_baud, device.start_baud]
    second.connect()
    assert kinds(device)[before:] == ["ABORT", "PING"]   # already at the fastest rate
    assert second.resends == 0 and second.baud == device.max_baud
    assert solves_right(second)


def test_the_rate_back_is_asked_for_until_it_is_answered():
    """Closing asks the device back to its start rate, up to SET_BAUD_ATTEMPTS times until
    the BAUD reply: over a link that damages 5 % of its bytes (seeded, 80 links) the device
    is back at its start rate after five closes in six, and the next program (a new
    connection at the start rate) reaches it every time a link at 1 % is closed."""
    from slitherlink.host.lossy import LossyLine

    class Counted(LossyLine):
        def write(self, data):
            if len(data) > 3 and data[0] == P.START and data[3] == P.MsgType.SET_BAUD:
                self.sent.append(bytes(data))
            return super().write(data)

    def close_and_reconnect(loss, seed):
        clock = Clock()
        device = FakeDevice(timer=clock)
        line = Counted(device, loss=loss, seed=seed)
        object.__setattr__(line, "sent", [])
        first = B.Connection("/dev/fake-board", line=line, clock=clock)
        try:
            first.connect()
        except B.BoardError:
            return None                          # not this test's case: never switched
        if device.baud != device.max_baud:
            return None                          # the switch failed: nothing to restore
        line.sent.clear()
        first.close()
        back, sent = device.baud == device.start_baud, len(line.sent)
        second = B.Connection("/dev/fake-board", line=line, clock=clock)
        try:
            second.connect()
            reached = True
        except B.BoardError:
            reached = False
        return back, sent, reached

    runs = [r for r in (close_and_reconnect(0.05, seed) for seed in range(80)) if r]
    assert len(runs) >= 30
    assert sum(not back for back, _, _ in runs) <= len(runs) // 6
    assert all(1 <= sent <= L.SET_BAUD_ATTEMPTS for _, sent, _ in runs)
    assert any(sent > 1 and back for back, sent, _ in runs)   # sent again, and it went through
    at_one_percent = [r for r in (close_and_reconnect(0.01, seed) for seed in range(80)) if r]
    assert len(at_one_percent) >= 70
    assert all(reached for _, _, reached in at_one_percent)


def test_closing_with_solves_queued_ends_them_and_goes_back_to_the_start_rate():
    """A run interrupted (Ctrl-C) with SOLVEs queued: the device refuses SET_BAUD back BUSY;
    the host ABORTs them (no one will read their answers) and asks again, so the next
    program finds the device idle at its start rate at its first attempt."""
    connection, device, _ = on_clock(delay=5.0)   # a search: 5 s of the test's clock
    connection.connect()
    for seq, name in enumerate(("janko_0011", "janko_0002", "janko_0003"), start=1):
        connection.send(P.encode_solve(load(name)[0], mode="deduce", seq=seq))
    start = len(device.requests)
    connection.close()
    assert kinds(device)[start:] == ["SET_BAUD", "ABORT", "SET_BAUD"]
    assert device.baud == device.start_baud
    assert device.holding == 0
    second = B.Connection("/dev/fake-board", line=device, clock=connection.clock)
    before = len(device.requests)
    second.connect()
    assert kinds(device)[before:] == ["ABORT", "PING", "SET_BAUD", "PING"]
    assert second.resends == 0 and solves_right(second)
