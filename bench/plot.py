"""The benchmark's plot: time per puzzle against its number of cells (log-log).

One series per software engine (its wall time); per mode of the run, one for
the hardware at the design clock (its exact cycles / the clock), one at 50 MHz
when that clock is not the paper's, one at ``--fmax`` if given, and the
end-to-end time at the slowest configured baud rate; and the paper's
published figures (:mod:`bench.paper`, Tables 8 and 9) as large open markers.
Time-outs are drawn at the value where they stopped, as crosses.  Matplotlib
with the Agg back end (no display needed).
"""

import math

from slitherlink.bench import paper
from slitherlink.bench.builds import fmax_for, fmax_label

__all__ = ["draw"]

_COLOURS = {"model": "tab:gray", "sat": "tab:green", "z3": "tab:purple", "ip": "tab:brown",
            "cpsat": "tab:olive"}
#: per mode of a run: the hardware at the design clock, at 50 MHz, at Fmax, with the UART
_MODE_COLOURS = (("tab:red", "tab:orange", "tab:cyan", "tab:pink"),
                 ("tab:blue", "navy", "teal", "slategray"))


def _jitter(cells, i, n):
    """Spread the series a little along x so that equal sizes stay readable."""
    if n <= 1:
        return cells
    return cells * math.exp(0.05 * (i - (n - 1) / 2))


def draw(records, meta, path):
    """Write the plot of a run's ``records`` (by mode, :mod:`bench.hardware`) to ``path``
    (PNG)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    fig, ax = plt.subplots(figsize=(11.5, 6), dpi=110)
    clock = meta["clock_hz"]
    fmax, baud = meta.get("fmax_mhz"), min(meta["bauds"])
    judged = lambda r: r["verdict"]  # noqa: E731
    series = []
    for mode, colours in zip(meta["modes"], _MODE_COLOURS):
        recs, what = records[mode], f"{mode} mode"
        series.append((recs, f"{what} at {clock / 1e6:g} MHz (exact cycles)",
                       lambda r: r["seconds_at_clock"], judged, colours[0], "o"))
        if clock != paper.CLOCK_HZ:
            series.append((recs, f"{what} at 50 MHz", lambda r: r["seconds_at_50mhz"],
                           judged, colours[1], "o"))
        if fmax:
            def at_fmax(r):
                mhz = fmax_for(fmax, r["class"])
                return r["cycles"] / (mhz * 1e6) if mhz else None
            series.append((recs, f"{what} {fmax_label(fmax)}" + (
                "" if isinstance(fmax, dict) else " (Fmax)"), at_fmax, judged, colours[2], "o"))
        series.append((recs, f"{what} + UART at {baud:,} baud", lambda r: r[f"e2e_{baud}"],
                       judged, colours[3], "v"))
    for engine in meta["engines"]:
        series.append((records[meta["modes"][0]], f"{engine} (wall time)",
                       lambda r, e=engine: r["peers"].get(e, {}).get("seconds"),
                       lambda r, e=engine: r["peers"].get(e, {}).get("verdict"),
                       _COLOURS.get(engine, None), "s"))
    timeouts = False
    for i, (recs, label, value, verdict, colour, marker) in enumerate(series):
        done, stopped = ([], []), ([], [])
        for rec in recs:
            seconds = value(rec)
            if seconds is None or seconds <= 0:
                continue
            target = stopped if verdict(rec) == "timeout" else done
            target[0].append(_jitter(rec["cells"], i, len(series)))
            target[1].append(seconds)
        ax.scatter(*done, s=14, alpha=0.6, color=colour, marker=marker, label=label,
                   linewidths=0)
        if stopped[0]:
            ax.scatter(*stopped, s=30, color=colour, marker="x")
            timeouts = True

    # the paper's figures
    hw = [(100, row[3]) for row in paper.TABLE8]
    smt = [(100, row[2]) for row in paper.TABLE8]
    for row in paper.TABLE9:
        r, c = map(int, row[2].split("x"))
        smt.append((r * c, row[3]))
    ax.scatter(*zip(*hw), s=90, facecolors="none", edgecolors="black", marker="D",
               label="paper: hardware, 50 MHz (Table 8)")
    ax.scatter(*zip(*smt), s=90, facecolors="none", edgecolors="tab:purple", marker="^",
               label="paper: Z3 (Tables 8, 9)")
    ax.axhline(paper.TABLE8_AVERAGE["hardware"], color="black", linewidth=0.6,
               linestyle=":")
    ax.text(0.01, paper.TABLE8_AVERAGE["hardware"], "paper: 0.1578 s mean per 10x10 at 50 MHz",
            transform=ax.get_yaxis_transform(), fontsize=7, ha="left", va="bottom")
    if timeouts:
        ax.scatter([], [], s=30, color="black", marker="x",
                   label="time-out (drawn where it stopped: a lower bound)")

    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=(1, 2, 5)))
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:g}"))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("cells of the puzzle (rows x columns)")
    ax.set_ylabel("time per puzzle (s)")
    puzzles = len(records[meta["modes"][0]])
    ax.set_title(f"Slitherlink, {' and '.join(meta['modes'])} mode: time per puzzle, unique "
                 f"mode ({puzzles} puzzles, {meta['date']})", fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
