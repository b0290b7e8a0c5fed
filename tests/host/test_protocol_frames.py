"""The bytes on the wire did not change when the layouts moved to spec/.

tests/host/data/protocol_frames.json holds frames recorded with the encoder of the
last commit before the spec layer (every message type, every error code, a
10x10 SOLVE and its RESULT); the encoder built on :mod:`spec.protocol` must
produce them byte for byte, and the decoders must read them back.
"""

import json
from pathlib import Path

import pytest

from slitherlink.host import protocol as P
from slitherlink.host.puzzle import Puzzle
from slitherlink.host.result import Status

RECORD = json.loads((Path(__file__).parent / "data" / "protocol_frames.json").read_text())
FRAMES = RECORD["frames"]


def _encode(kind, a):
    if kind == "ping":
        return P.encode_ping()
    if kind == "abort":
        return P.encode_abort()
    if kind == "solve":
        codes = a["codes"]
        cols = a["cols"]
        clues = [[None if v == P.CLUE_BLANK else v for v in codes[r * cols:(r + 1) * cols]]
                 for r in range(a["rows"])]
        return P.encode_solve(Puzzle(clues), mode="paper", unique=a["unique"],
                              max_checks=a["max_checks"])
    if kind == "solve_raw":
        return P.encode_solve_raw(a["rows"], a["cols"], a["codes"], flags=a["flags"],
                                  max_checks=a["max_checks"])
    if kind == "result":
        solution = a["solution"] and [[bool(v) for v in row] for row in a["solution"]]
        return P.encode_result(Status(a["status"]), a["rows"], a["cols"], solution=solution,
                               counters=a["counters"], cycles=a["cycles"], aborted=a["aborted"],
                               unique=a["unique"])
    if kind == "version":
        return P.encode_version(**a)
    if kind == "error":
        return P.encode_error(a["code"], a["request_type"], a["detail"])
    if kind == "frame":
        return P.encode_frame(a["type"], bytes.fromhex(a["payload"]))
    raise AssertionError(kind)


def test_record_covers_every_message_type_and_error():
    kinds = {f["kind"] for f in FRAMES}
    assert {"ping", "abort", "solve", "result", "version", "error"} <= kinds
    codes = {f["args"]["code"] for f in FRAMES if f["kind"] == "error"}
    assert {int(c) for c in P.ErrorCode} <= codes
    assert any(f["kind"] == "solve" and f["args"]["rows"] == 10 == f["args"]["cols"]
               for f in FRAMES)
    assert any(f["kind"] == "result" and f["args"]["rows"] == 10 for f in FRAMES)


@pytest.mark.parametrize("index", range(len(FRAMES)))
def test_encoder_reproduces_recorded_frame(index):
    f = FRAMES[index]
    assert _encode(f["kind"], f["args"]).hex() == f["hex"]


@pytest.mark.parametrize("index", range(len(FRAMES)))
def test_decoder_reads_recorded_frame(index):
    f, a = FRAMES[index], FRAMES[index]["args"]
    frames = P.FrameDecoder().feed(bytes.fromhex(f["hex"]))
    assert len(frames) == 1
    frame = frames[0]
    if f["kind"] == "solve":
        req = P.decode_solve(frame)
        assert (req.rows, req.cols, req.unique, req.max_checks) == \
            (a["rows"], a["cols"], a["unique"], a["max_checks"])
        assert [P.CLUE_BLANK if v is None else v for row in req.clues for v in row] == a["codes"]
    elif f["kind"] == "result":
        r = P.decode_result(frame)
        assert (int(r.status), r.rows, r.cols, r.cycles, r.aborted, r.unique) == \
            (a["status"], a["rows"], a["cols"], a["cycles"], a["aborted"], a["unique"])
        assert {k: v for k, v in r.counters.items() if v} == \
            {k: v for k, v in a["counters"].items() if v}
        if a["solution"]:
            assert [[int(v) for v in row] for row in r.solution] == a["solution"]
    elif f["kind"] == "version":
        v = P.decode_version(frame)
        assert (v.max_rows, v.max_cols, v.clock_hz, v.baud, v.regmap, v.accelerator_ok) == \
            (a["max_rows"], a["max_cols"], a["clock_hz"], a["baud"], a["regmap"],
             a["accelerator_ok"])
        assert v.max_payload == P.MAX_PAYLOAD and v.protocol == P.PROTOCOL_VERSION
    elif f["kind"] == "error":
        e = P.decode_error(frame)
        assert (int(e.code), e.request_type, e.detail) == \
            (a["code"], a["request_type"], a["detail"])
