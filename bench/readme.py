"""The README's results: the headline figures of the benchmarks' last runs, read from the
blocks they wrote.

Each benchmark writes its run into a generated block of docs/benchmark.md
(:func:`bench.hardware.update_docs`; ``bench.soc_cycles`` writes docs/soc-cycles.md).  The
README quotes a few of those figures; this module makes that paragraph from the blocks, so
that a figure is written once, by the run that measured it, and the README follows it::

    python -m slitherlink.bench.readme            # write the README's results
    python -m slitherlink.bench.readme --check    # exit 1 when they are stale

:func:`bench.hardware.update_docs` calls :func:`update` after it fills a block.
"""

import argparse
import re
import sys
import textwrap
from pathlib import Path

from slitherlink.bench.builds import fmax_label
from slitherlink.bench.hardware import DOC_BEGIN, DOC_END, REPO
from slitherlink.bench.stream import PEER, offered
from slitherlink.bench.summary import SPEEDUP_PEER
from slitherlink.spec.target import DEFAULT_TARGET

__all__ = ["README_BEGIN", "README_END", "results", "with_results", "update", "main"]

#: the files: the README, and the benchmarks' docs it quotes
README = REPO / "README.md"
BENCHMARK = REPO / "docs" / "benchmark.md"
SOC_CYCLES = REPO / "docs" / "soc-cycles.md"
README_BEGIN = ("<!-- the results: generated from docs/benchmark.md and docs/soc-cycles.md by "
                "python -m slitherlink.bench.readme; do not edit -->")
README_END = "<!-- end of the results -->"

#: the rate of the stream block's row quoted: the default build's fastest
STREAM_RATE = max(offered(DEFAULT_TARGET))
#: the deduce blocks' columns: the peer's median, its speed-up at each build's clock
PEER_MEDIAN = f"{SPEEDUP_PEER} median"
SPEEDUP = f"speed-up over {SPEEDUP_PEER} {fmax_label({})}"

#: the README's line width
WIDTH = 92
_RUN = re.compile(r"^Run of (.+?): `", re.MULTILINE)
_SOC = re.compile(r"The (\d+) solved 10x10 puzzles: ([\d.]+ M) cycles on average .*?"
                  r"the paper: ([\d.]+ s) = ([\d.]+ M) cycles")
_UNITS = {"s": 1.0, "ms": 1e-3, "µs": 1e-6}


def block(doc, section):
    """The text of the generated block ``section`` of ``doc`` (docs/benchmark.md's text);
    ValueError when it has none."""
    opening = DOC_BEGIN.format(section=section, writer="").split(" (", 1)[0]
    end = DOC_END.format(section=section)
    if opening not in doc or end not in doc:
        raise ValueError(f"docs/benchmark.md has no block {section!r}")
    return doc.split(opening, 1)[1].split(end, 1)[0]


def table(text, column):
    """The rows (``{header: cell}``) of the first Markdown table of ``text`` with a column
    named ``column``; ValueError when none has."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        head = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and column in head and i + 1 < len(lines) \
                and lines[i + 1].startswith("|---"):
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append(dict(zip(head, (c.strip() for c in row.strip().strip("|")
                                            .split("|")))))
            return rows
    raise ValueError(f"no table with the column {column!r}")


def run_date(text):
    """The date a block's run names (``Run of <date>: ...``)."""
    match = _RUN.search(text)
    if not match:
        raise ValueError("a block without its 'Run of' line")
    return match.group(1)


def parse_time(cell):
    """A time as the benchmarks write it (``"26.8 µs"``, ``"5.21 ms"``) in seconds."""
    value, unit = cell.split()
    return float(value.replace(",", "")) * _UNITS[unit]


def parse_number(cell):
    """A count or a ratio as the benchmarks write them (``"12,313"``, ``"36.7x"``)."""
    return float(cell.rstrip("x").replace(",", ""))


def _baud(rate):
    """``12 Mbaud``, ``115,200 baud``."""
    return f"{rate / 1e6:g} Mbaud" if rate % 1_000_000 == 0 else f"{rate:,.0f} baud"


def _ends(rows, column, key=parse_number):
    """The rows of the smallest and the largest ``column``."""
    ranked = sorted(rows, key=lambda row: key(row[column]))
    return ranked[0], ranked[-1]


def _deduce(doc):
    text = block(doc, "deduce")
    (row, *_) = table(text, "cycles median")
    return (f"- **Deduce mode, the default build** (run of {run_date(text)}): the {row['n']} "
            f"corpus puzzles up to {row['class (build)']} take a median of "
            f"**{row['cycles median']} solve cycles**, {row['median at Fmax']} at the build's "
            f"ECP5 Fmax ({row['ECP5 Fmax']}): **{row[SPEEDUP]}** "
            f"the `{PEER}` peer's median on one core in the same run "
            f"({row[PEER_MEDIAN]}); {row['wrong']} wrong answers, every counter equal to "
            f"the golden model's on {row['golden model = hw'].replace('/', ' of ')}.")


def _deduce_classes(doc):
    text = block(doc, "deduce-classes")
    rows = table(text, "cycles median")
    low, high = _ends(rows, SPEEDUP)
    fast, slow = _ends(rows, "median at Fmax", parse_time)
    return (f"- **The larger classes** ({rows[0]['class (build)']} to "
            f"{rows[-1]['class (build)']}, {sum(int(r['n']) for r in rows):,} puzzles, run of "
            f"{run_date(text)}), each at its build's ECP5 Fmax: medians from "
            f"{fast['median at Fmax']} ({fast['class (build)']}) to {slow['median at Fmax']} "
            f"({slow['class (build)']}), {low[SPEEDUP]} ({low['class (build)']}) to "
            f"{high[SPEEDUP]} ({high['class (build)']}) the `{PEER}` peer's median on one core.")


def _paper(soc):
    match = _SOC.search(soc)
    if not match:
        raise ValueError("docs/soc-cycles.md has no line on the 10x10 puzzles' average")
    n, ours, at_50mhz, theirs = match.groups()
    return (f"- **Paper mode:** the {n} solved 10x10 puzzles of "
            f"[docs/soc-cycles.md](docs/soc-cycles.md) take {ours} cycles on average; the "
            f"paper's hardware, {theirs} ({at_50mhz} at 50 MHz).")


def _stream(doc):
    text = block(doc, "stream")
    row = next((r for r in table(text, "streamed (puzzles/s)")
                if parse_number(r["rate (baud)"]) == STREAM_RATE), None)
    if row is None:
        raise ValueError(f"the stream block has no row at {STREAM_RATE:,} baud")
    sent, answered = row["bytes in / out a puzzle"].split(" / ")
    median, most = row["latency median / max"].split(" / ")
    board = 1 / parse_number(row["streamed (puzzles/s)"])
    host, whole = row["host's cost a puzzle"], row["a whole run's host CPU a puzzle"]
    keeps = "keeps up" if parse_time(whole) < board else "does not keep up"
    return [f"- **Streamed** at {_baud(STREAM_RATE)} on the default build (run of "
            f"{run_date(text)}): a {row['class']} travels in {sent} + {answered} bytes, "
            f"{row['link time a puzzle']} of line; sent alone it is answered in {median} "
            f"(median; {most} at most, {row['of it on the board (median)']} of it on the "
            f"board); streamed, **{row['streamed (puzzles/s)']} puzzles a second**, "
            f"{row['streamed / sat on 2 cores']} `{PEER}` on two cores in the same run "
            f"({row['sat, 2 cores (puzzles/s)']} a second).",
            f"- **The host** on that run's machine: {host} of its own work a puzzle (parse, "
            f"encode, decode, the rules check, the JSON record), {whole} of CPU a puzzle in a "
            f"whole `--format jsonl` run, against the board's {board * 1e6:.0f} µs a puzzle: "
            f"it {keeps} with the board."]


def _stream_classes(doc):
    text = block(doc, "stream-classes")
    ratio = "streamed / sat on 2 cores"
    rows = table(text, ratio)
    low, high = _ends(rows, ratio)
    rates = sorted({parse_number(r["rate (baud)"]) for r in rows})
    return (f"- **The larger classes streamed** at {' and '.join(map(_baud, rates))} (run of "
            f"{run_date(text)}): {low[ratio]} ({low['class']}) to {high[ratio]} "
            f"({high['class']}) `{PEER}` on two cores.")


def _wrapped(paragraph):
    """A paragraph or a list item, wrapped as the README's lines are."""
    indent = "  " if paragraph.startswith("- ") else ""
    return textwrap.fill(paragraph, WIDTH, subsequent_indent=indent, break_on_hyphens=False,
                         break_long_words=False)


def results(doc, soc):
    """The README's results (Markdown) from docs/benchmark.md's text ``doc`` and
    docs/soc-cycles.md's ``soc``; ValueError when a block lacks what it quotes."""
    head = (f"**Results** of the benchmarks' last runs ([docs/benchmark.md](docs/benchmark.md) "
            f"says on what machine and at what load each ran: the `{PEER}` peer's and the "
            f"host's times move with them, the board's cycles do not):")
    items = [_deduce(doc), _deduce_classes(doc), _paper(soc), *_stream(doc),
             _stream_classes(doc)]
    return _wrapped(head) + "\n\n" + "\n".join(map(_wrapped, items)) + "\n"


def with_results(text, doc, soc):
    """``text`` (README.md) with :func:`results` between its marks; ValueError when the
    marks are missing."""
    start, end = text.find(README_BEGIN), text.find(README_END)
    if start < 0 or end < start:
        raise ValueError("README.md has no marks for the results")
    return text[:start + len(README_BEGIN)] + "\n" + results(doc, soc) + text[end:]


def update(readme=None, doc=None, soc=None, *, check=False):
    """Write the README's results (``check``: only compare); True when they were current."""
    readme, doc, soc = Path(readme or README), Path(doc or BENCHMARK), Path(soc or SOC_CYCLES)
    text = readme.read_text()
    new = with_results(text, doc.read_text(), soc.read_text())
    if new != text and not check:
        readme.write_text(new)
    return new == text


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m slitherlink.bench.readme",
        description="Write the README's results from the benchmarks' blocks in "
                    "docs/benchmark.md and docs/soc-cycles.md.")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if the README's results are stale; write nothing")
    parser.add_argument("--readme", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--doc", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--soc", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        current = update(args.readme, args.doc, args.soc, check=args.check)
    except (OSError, ValueError) as error:
        print(f"bench.readme: {error}", file=sys.stderr)
        return 1
    if args.check and not current:
        print("README.md's results are stale: run python -m slitherlink.bench.readme",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
