"""Where the CPU's cycles go: a profiling virtual board's counts, per firmware function.

A profiling build of the virtual board (``build_design(..., profile=True)``, run with
``--profile FILE``) counts, every clock cycle, the address of the instruction PicoRV32
executes, and writes the counts of each interval between two link stamps
(:meth:`sim.vboard.VirtualBoard.stamp`) to FILE: one ``<address in hex> <cycles>`` line
per address.  Reading the counter changes nothing in the design, so the cycles are the
plain build's.  Here the counts are summed per function of the firmware's ELF (its symbol
table: what the compiler did not inline)::

    counts = read(path)
    rows = by_function(counts, firmware_image(target).elf)
    print(table(rows))

``bench.stream --profile`` runs the link benchmark on a profiling board and prints the
table of each rate's stream.
"""

from pathlib import Path

__all__ = ["read", "functions", "by_function", "table"]



def read(path):
    """``{address: cycles}`` of a profile file."""
    counts = {}
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        fields = line.split()
        if len(fields) != 2:
            raise ValueError(f"{path}:{number}: not '<address> <cycles>': {line!r}")
        counts[int(fields[0], 16)] = counts.get(int(fields[0], 16), 0) + int(fields[1])
    return counts


def functions(elf):
    """``[(address, end, name)]`` of the ELF's functions, by address."""
    from slitherlink.firmware.elf import FUNCTION, symbols
    return sorted((address, address + max(size, 4), name)
                  for name, address, size, kind in symbols(elf) if kind == FUNCTION)


def by_function(counts, elf):
    """``[(name, cycles)]``, most cycles first: each address's cycles given to the function
    that holds it (``?<address>`` outside every function)."""
    spans = functions(elf)
    totals = {}
    for address, cycles in counts.items():
        name = next((n for start, end, n in spans if start <= address < end),
                    f"?{address:08x}")
        totals[name] = totals.get(name, 0) + cycles
    return sorted(totals.items(), key=lambda item: (-item[1], item[0]))


def table(rows, *, per=1, top=15, unit="a puzzle"):
    """The Markdown table of ``rows`` (:func:`by_function`): the ``top`` functions' cycles
    divided by ``per`` (e.g. the puzzles of the interval) and their shares."""
    total = sum(cycles for _, cycles in rows) or 1
    lines = [f"| function | cycles {unit} | share |", "|---|---|---|"]
    for name, cycles in rows[:top]:
        lines.append(f"| `{name}` | {cycles / per:,.0f} | {100 * cycles / total:.1f} % |")
    rest = sum(cycles for _, cycles in rows[top:])
    if rest:
        lines.append(f"| (the {len(rows) - top} others) | {rest / per:,.0f} | "
                     f"{100 * rest / total:.1f} % |")
    lines.append(f"| all | {total / per:,.0f} | 100 % |")
    return "\n".join(lines)
