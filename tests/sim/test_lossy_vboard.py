"""A lossy link in front of the virtual board (the real SoC, firmware and UART): a small
sample of the lossy-link benchmark (bench/lossy.py, ``make bench-lossy``) in every run.

The seeded proxy (host/lossy.py) damages a share of the bytes both ways (half dropped,
half corrupted); the host streams unique puzzles in deduce mode with the device's queue
kept full, at the fastest rate the build offers, with its default timing and retries, its
connection watched as every connection to the virtual board is (its waits scaled from the
board's simulated time).
Never a wrong answer; a puzzle either solved right or ended with one clear line.  The
full table, with its time bounds, is the benchmark's.
"""

from slitherlink.bench.lossy import pick_puzzles, run

#: a share of damaged bytes that makes resends of every kind likely in a few puzzles
LOSS = 0.03
#: exit codes of a clear error about the link (no answer, garbled answers)
LINK_ERRORS = (9, 10)


def test_a_lossy_link_to_the_firmware_gives_no_wrong_answer():
    puzzles = pick_puzzles(8)
    records = run(LOSS, puzzles, seed=5, mode="deduce", kind="vboard")
    *rows, summary = records
    assert len(rows) == len(puzzles) and summary["summary"]
    damaged = sum(v for k, v in summary["link"].items() if not k.endswith("_bytes"))
    assert damaged > 0                           # the link did damage bytes
    assert summary["baud"] > 115_200             # at the fast rate the build offers
    assert [r["name"] for r in rows if r["outcome"] == "wrong"] == []
    failed = [r for r in rows if r["outcome"] == "failed"]
    for record in failed:
        assert record["exit_code"] in LINK_ERRORS and "\n" not in record["message"], \
            f"{record['name']}: exit {record['exit_code']}: {record['message']}"
    assert len(failed) < len(rows) // 2, failed  # most are solved
