"""bench/readme.py: the README's results, made from the blocks the benchmarks wrote."""

import subprocess
import sys

import pytest

from slitherlink.bench import readme, stream
from tests.conftest import HANG_SECONDS


def test_the_readme_s_results_are_current():
    assert readme.update(check=True), \
        "README.md's results are stale: run python -m slitherlink.bench.readme"


def stream_block(cli_cost):
    """docs/benchmark.md's stream block as bench.stream writes it: a 10x10 class at the
    start rate and at the default build's fastest, the host's whole run ``cli_cost``."""
    def row(rate, per_second, latency):
        return {"rate": rate, "n": 40, "bytes_in": 65, "bytes_out": 25,
                "link_seconds": 900 / rate, "per_second": per_second,
                "latency_median": latency, "latency_max": latency * 1.1,
                "on_board_median": 70e-6, "resends": 0, "rx_overruns": 0}
    results = {"10x10": {"board": [row(115_200, 191, 7.88e-3),
                                   row(readme.STREAM_RATE, 12_500, 146e-6)],
                         "sat_1": 600, "sat_2": 1_000, "host_cost": 70e-6,
                         "cli_cost": cli_cost}}
    meta = {"date": "2026-01-02 03:04 UTC", "argv": ["--update-docs"],
            "builds": {"10x10": "arty-soc-both-10x10"}, "commit": "abc1234", "load": 0.5}
    text = stream.table(results, meta)
    return f"<!-- bench:stream:begin (generated) -->\n\n{text}\n<!-- bench:stream:end -->\n"


def test_the_stream_lines_quote_what_the_stream_benchmark_writes():
    (streamed, host) = readme._stream(stream_block(cli_cost=60e-6))
    assert "run of 2026-01-02 03:04 UTC" in streamed
    assert "65 + 25 bytes" in streamed and "**12,500 puzzles a second**" in streamed
    assert "146 µs (median; 161 µs at most, 70 µs of it on the board)" in streamed
    assert "12.5x `sat` on two cores in the same run (1,000 a second)" in streamed
    assert "70 µs of its own work" in host and "60 µs of CPU" in host
    assert "the board's 80 µs a puzzle: it keeps up with the board." in host
    (_, slow_host) = readme._stream(stream_block(cli_cost=400e-6))
    assert "400 µs of CPU" in slow_host and "it does not keep up" in slow_host


def test_a_doc_without_a_block_it_quotes_is_an_error():
    with pytest.raises(ValueError, match="no block 'stream'"):
        readme._stream("# Benchmarks\n")
    with pytest.raises(ValueError, match="no row at 12,000,000 baud"):
        readme._stream(stream_block(60e-6).replace("| 12,000,000 |", "| 6,000,000 |"))


def test_the_command_writes_the_results_and_checks_them(tmp_path):
    doc, soc = tmp_path / "benchmark.md", tmp_path / "soc-cycles.md"
    doc.write_text(readme.BENCHMARK.read_text())
    soc.write_text(readme.SOC_CYCLES.read_text().replace("4.16 M cycles", "4.25 M cycles"))
    target = tmp_path / "README.md"
    target.write_text(f"# Read me\n{readme.README_BEGIN}\nstale words\n{readme.README_END}\nend\n")
    command = [sys.executable, "-m", "slitherlink.bench.readme", "--readme", str(target),
               "--doc", str(doc), "--soc", str(soc)]
    r = subprocess.run([*command, "--check"], capture_output=True, text=True,
                       timeout=HANG_SECONDS)
    assert r.returncode == 1 and "stale" in r.stderr and "stale words" in target.read_text()
    r = subprocess.run(command, capture_output=True, text=True, timeout=HANG_SECONDS)
    assert r.returncode == 0, r.stderr
    text = target.read_text()
    assert "stale words" not in text and "take 4.25 M cycles on average" in text
    assert text.startswith("# Read me\n") and text.endswith(f"{readme.README_END}\nend\n")
    r = subprocess.run([*command, "--check"], capture_output=True, text=True,
                       timeout=HANG_SECONDS)
    assert r.returncode == 0, r.stderr
    target.write_text("# Read me without marks\n")
    r = subprocess.run(command, capture_output=True, text=True, timeout=HANG_SECONDS)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "no marks" in r.stderr
