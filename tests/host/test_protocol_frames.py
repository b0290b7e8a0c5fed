"""The bytes on the wire do not change unless the protocol does.

tests/host/data/protocol_frames.json holds frames of protocol version 2 recorded with the
encoder of :mod:`host.protocol` (every message type, every error code, every SEQ field, a
10x10 SOLVE and its replies); the encoder must produce them byte for byte, and the decoders
must read them back.  A few of them are also built here by hand from the frame format of
:mod:`spec.protocol`'s docstring (no layout), so the record itself is checked once against
the specification.  ``python -m tests.host.test_protocol_frames`` records them again (only
when the protocol changes on purpose).
"""

import json
import struct
import sys
from pathlib import Path

import pytest

from slitherlink.host import protocol as P
from slitherlink.host.puzzle import Puzzle
from slitherlink.host.result import Status
from slitherlink.spec.protocol import crc8

DATA = Path(__file__).parent / "data" / "protocol_frames.json"
RECORD = json.loads(DATA.read_text())
FRAMES = RECORD["frames"]
PUZZLE = "janko_0061"


def _solution(a):
    return a["solution"] and [[bool(v) for v in row] for row in a["solution"]]


def _encode(kind, a):
    seq = a.get("seq", 0)
    if kind == "ping":
        return P.encode_ping(seq)
    if kind == "abort":
        return P.encode_abort(seq)
    if kind == "stats":
        return P.encode_stats(seq)
    if kind == "set_baud":
        return P.encode_set_baud(a["baud"], seq)
    if kind == "resend":
        return P.encode_resend(a["crc"], seq)
    if kind == "solve":
        codes, cols = a["codes"], a["cols"]
        clues = [[None if v == P.CLUE_BLANK else v for v in codes[r * cols:(r + 1) * cols]]
                 for r in range(a["rows"])]
        return P.encode_solve(Puzzle(clues), mode=a["mode"], unique=a["unique"],
                              max_checks=a["max_checks"], counters=a["counters"], seq=seq)
    if kind == "solve_raw":
        return P.encode_solve_raw(a["rows"], a["cols"], a["codes"], flags=a["flags"],
                                  max_checks=a["max_checks"], seq=seq)
    if kind == "answer":
        return P.encode_answer(Status(a["status"]), a["rows"], a["cols"],
                               solution=_solution(a), aborted=a["aborted"], unique=a["unique"],
                               trail_full=a["trail_full"], mode=a["mode"], seq=seq)
    if kind == "result":
        return P.encode_result(Status(a["status"]), a["rows"], a["cols"], solution=_solution(a),
                               counters=a["counters"], cycles=a["cycles"], aborted=a["aborted"],
                               unique=a["unique"], seq=seq)
    if kind == "deduce_result":
        return P.encode_deduce_result(Status(a["status"]), a["rows"], a["cols"],
                                      solution=_solution(a), counters=a["counters"],
                                      cycles=a["cycles"], aborted=a["aborted"],
                                      unique=a["unique"], trail_full=a["trail_full"], seq=seq)
    if kind == "version":
        return P.encode_version(**a)
    if kind == "baud":
        return P.encode_baud(a["baud"], a["divisor"], seq)
    if kind == "stats_reply":
        return P.encode_stats_reply(seq, **a["counters"])
    if kind == "error":
        return P.encode_error(a["code"], a["request_type"], a["detail"], seq)
    if kind == "frame":
        return P.encode_frame(a["type"], bytes.fromhex(a["payload"]), seq=seq)
    raise AssertionError(kind)


def test_record_covers_every_message_type_and_error():
    kinds = {f["kind"] for f in FRAMES}
    assert {"ping", "abort", "stats", "set_baud", "resend", "solve", "answer", "result", "deduce_result",
            "version", "baud", "stats_reply", "error"} <= kinds
    codes = {f["args"]["code"] for f in FRAMES if f["kind"] == "error"}
    assert {int(c) for c in P.ErrorCode} <= codes
    assert any(f["kind"] == "solve" and f["args"]["rows"] == 10 == f["args"]["cols"]
               for f in FRAMES)
    assert {f["args"]["counters"] for f in FRAMES if f["kind"] == "solve"} == {False, True}
    assert any(f["kind"] == "answer" and f["args"]["rows"] == 10 for f in FRAMES)
    assert len({f["args"].get("seq", 0) for f in FRAMES}) > 10


@pytest.mark.parametrize("index", range(len(FRAMES)))
def test_encoder_reproduces_recorded_frame(index):
    f = FRAMES[index]
    assert _encode(f["kind"], f["args"]).hex() == f["hex"]


def _by_hand(type, seq, payload=b""):
    """A frame from the docstring of spec/protocol.py, no layout: START, LEN (2 bytes,
    little-endian), TYPE, SEQ, CHECK (CRC-8 of LEN, TYPE, SEQ), the payload, the CRC-16 of
    everything after START."""
    body = struct.pack("<HBB", len(payload), type, seq)
    body += bytes([crc8(body)]) + payload
    return bytes([0xA5]) + body + struct.pack("<H", P.crc16(body))


def test_the_record_is_the_specification_s_frame():
    recorded = {f["kind"]: f for f in reversed(FRAMES)}
    for kind, type in (("ping", 0x01), ("abort", 0x03), ("stats", 0x04)):
        f = recorded[kind]
        assert f["hex"] == _by_hand(type, f["args"]["seq"]).hex()
    f = recorded["set_baud"]
    assert f["hex"] == _by_hand(0x05, f["args"]["seq"],
                                struct.pack("<I", f["args"]["baud"])).hex()
    f = recorded["resend"]
    assert f["hex"] == _by_hand(0x06, f["args"]["seq"], struct.pack("<H", f["args"]["crc"])).hex()
    f = recorded["error"]
    a = f["args"]
    assert f["hex"] == _by_hand(0xFF, a["seq"], struct.pack("<BBH", a["code"], a["request_type"],
                                                            a["detail"])).hex()


@pytest.mark.parametrize("index", range(len(FRAMES)))
def test_decoder_reads_recorded_frame(index):
    f, a = FRAMES[index], FRAMES[index]["args"]
    frames = P.FrameDecoder().feed(bytes.fromhex(f["hex"]))
    assert len(frames) == 1
    frame = frames[0]
    assert frame.seq == a.get("seq", 0)
    if f["kind"] == "solve":
        req = P.decode_solve(frame)
        assert (req.rows, req.cols, req.unique, req.max_checks, req.mode.name.lower(),
                req.counters) == (a["rows"], a["cols"], a["unique"], a["max_checks"],
                                  a["mode"], a["counters"])
        assert [P.CLUE_BLANK if v is None else v for row in req.clues for v in row] == a["codes"]
    elif f["kind"] in ("answer", "result", "deduce_result"):
        r = P.decode_reply(frame)
        assert (int(r.status), r.rows, r.cols, r.aborted, r.unique) == \
            (a["status"], a["rows"], a["cols"], a["aborted"], a["unique"])
        if f["kind"] == "answer":
            assert r.counters is None and r.mode.name.lower() == a["mode"]
        else:
            assert r.cycles == a["cycles"]
            assert {k: v for k, v in r.counters.items() if v} == \
                {k: v for k, v in a["counters"].items() if v}
        if a["solution"]:
            assert [[int(v) for v in row] for row in r.solution] == a["solution"]
    elif f["kind"] == "version":
        v = P.decode_version(frame)
        assert (v.max_rows, v.max_cols, v.clock_hz, v.baud, v.start_baud, v.max_baud,
                v.max_payload, v.queue, v.regmap, v.accelerator_ok, v.deduce_ok) == \
            (a["max_rows"], a["max_cols"], a["clock_hz"], a["baud"], a["start_baud"],
             a["max_baud"], a["max_payload"], a["queue"], a["regmap"], a["accelerator_ok"],
             a["deduce_ok"])
        assert v.protocol == P.PROTOCOL_VERSION
    elif f["kind"] == "baud":
        assert P.decode_baud(frame) == P.BaudReply(a["baud"], a["divisor"], a["seq"])
    elif f["kind"] == "set_baud":
        assert P.decode_set_baud(frame) == a["baud"]
    elif f["kind"] == "resend":
        assert P.decode_resend(frame) == a["crc"]
    elif f["kind"] == "stats_reply":
        assert P.decode_stats(frame).as_dict() == dict.fromkeys(P.STATS_COUNTERS, 0) | \
            a["counters"]
    elif f["kind"] == "error":
        e = P.decode_error(frame)
        assert (int(e.code), e.request_type, e.detail) == \
            (a["code"], a["request_type"], a["detail"])


def record():
    """The frames of the record, encoded now (``python -m tests.host.test_protocol_frames``
    writes them)."""
    from tests.conftest import load
    puzzle, solution = load(PUZZLE)
    codes = [P.CLUE_BLANK if v is None else v for row in puzzle.clues for v in row]
    bits = [[int(v) for v in row] for row in solution]
    paper = {"checks": 2322, "backtracks": 288, "candidates": 2, "floods": 2,
             "flood_iterations": 40}
    big = {"checks": 7, "backtracks": 2**40 + 3, "candidates": 1, "floods": 9,
           "flood_iterations": 2**63 + 5}
    deduce = {name: (i + 1) * 1_000_003 for i, name in enumerate(P.DEDUCE_RESULT_COUNTERS)}
    frames = [("ping", {"seq": 1}), ("abort", {"seq": 2}), ("stats", {"seq": 255}),
              ("set_baud", {"baud": 1_000_000, "seq": 3}),
              ("set_baud", {"baud": 12_000_000, "seq": 0x5A}),
              ("resend", {"crc": 0xBEEF, "seq": 0x33})]
    for mode, counters, unique, max_checks, seq in (("paper", True, False, 0, 4),
                                                     ("deduce", False, True, 123456, 0xA5)):
        frames.append(("solve", {"rows": 10, "cols": 10, "codes": codes, "unique": unique,
                                 "max_checks": max_checks, "mode": mode,
                                 "counters": counters, "seq": seq}))
    frames.append(("solve_raw", {"rows": 3, "cols": 3, "codes": [15] * 9, "flags": 0x80,
                                 "max_checks": 2**32 - 1, "seq": 6}))
    frames += [
        ("answer", {"status": 0, "rows": 10, "cols": 10, "solution": bits, "aborted": False,
                    "unique": True, "trail_full": False, "mode": "deduce", "seq": 0xA5}),
        ("answer", {"status": 4, "rows": 7, "cols": 5, "solution": None, "aborted": True,
                    "unique": False, "trail_full": True, "mode": "deduce", "seq": 7}),
        ("answer", {"status": 3, "rows": 1, "cols": 3, "solution": None, "aborted": False,
                    "unique": False, "trail_full": False, "mode": "paper", "seq": 8}),
        ("result", {"status": 0, "rows": 10, "cols": 10, "solution": bits, "counters": paper,
                    "cycles": 4_123_456_789_012, "aborted": False, "unique": True, "seq": 4}),
        ("result", {"status": 4, "rows": 7, "cols": 5, "solution": None, "counters": big,
                    "cycles": 99, "aborted": True, "unique": False, "seq": 9}),
        ("deduce_result", {"status": 1, "rows": 10, "cols": 10, "solution": bits,
                           "counters": deduce, "cycles": 2**40 + 3, "aborted": False,
                           "unique": False, "trail_full": False, "seq": 10}),
        ("deduce_result", {"status": 4, "rows": 2, "cols": 2, "solution": None,
                           "counters": {"decisions": 9}, "cycles": 0, "aborted": True,
                           "unique": True, "trail_full": True, "seq": 11}),
        ("version", {"max_rows": 10, "max_cols": 10, "clock_hz": 37_000_000, "baud": 115200,
                     "start_baud": 115200, "max_baud": 1_500_000, "max_payload": 57,
                     "queue": 4, "regmap": 1, "accelerator_ok": True, "deduce_ok": True,
                     "seq": 1}),
        ("version", {"max_rows": 64, "max_cols": 17, "clock_hz": 100_000_000,
                     "baud": 3_000_000, "start_baud": 115200, "max_baud": 12_000_000,
                     "max_payload": P.solve_length(64, 17), "queue": 2, "regmap": 1,
                     "accelerator_ok": False, "deduce_ok": False, "seq": 200}),
        ("baud", {"baud": 1_480_000, "divisor": 25, "seq": 3}),
        ("stats_reply", {"counters": {"rx_bytes": 1234, "frames_bad": 3,
                                      "errors_suppressed": 2**32 - 1}, "seq": 255}),
        ("frame", {"type": 0x42, "payload": "00a5ff", "seq": 13}),
    ]
    for code in P.ErrorCode:
        frames.append(("error", {"code": int(code), "request_type": 0 if code in (
            P.ErrorCode.BAD_HEADER, P.ErrorCode.BAD_CRC, P.ErrorCode.TIMEOUT,
            P.ErrorCode.OVERRUN) else int(P.MsgType.RESEND) if code in (
            P.ErrorCode.PENDING, P.ErrorCode.UNKNOWN_SEQ) else int(P.MsgType.SOLVE), "detail": 0xBEEF & (code * 4099),
            "seq": 0 if code in (P.ErrorCode.BAD_HEADER, P.ErrorCode.BAD_CRC,
                                 P.ErrorCode.TIMEOUT, P.ErrorCode.OVERRUN) else 14 + code}))
    return {"note": "frames of protocol version 2, recorded with host/protocol.py by "
                    "'python -m tests.host.test_protocol_frames'",
            "puzzle": PUZZLE,
            "frames": [{"kind": kind, "args": args, "hex": _encode(kind, args).hex()}
                       for kind, args in frames]}


if __name__ == "__main__":
    DATA.write_text(json.dumps(record(), indent=1) + "\n")
    print(f"{DATA}: {len(record()['frames'])} frames", file=sys.stderr)
