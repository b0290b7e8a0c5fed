"""The paper's published figures, for comparison with our measurements.

Source: T. Miyauchi and K. Tanaka, "Solving Slitherlink with FPGA and SMT
Solver", Journal of Information Processing 28 (2020), section 5.  Every figure below is
typed from that text with the table and row it comes from; nothing is derived
except where a field says so (``cycles_at_50mhz`` = seconds x 50 MHz).

Set-up of the paper's measurements (section 5):

* hardware: Xilinx Artix-7 XC7A35T, Vivado 2018.3, a MIPS soft processor at
  50 MHz, GCC 4.3.3; "the time is from the reset of the processor to the
  acquisition of the solution" (one design per puzzle: Table 7 lists the
  resources of each);
* SMT: Z3 through its Python API on a Core i7-6500U @ 2.50 GHz, 8 GB; "the time
  is from the beginning of the program to the acquisition of the solution";
* previous research: [3] integer programming (Ishihama & Kuno, IPSJ Journal
  54(8), 2013; Core i7 3.33 GHz), [14] ZDDs (Yoshinaka et al., Algorithms 5(2),
  2012; AMD Opteron 8393 3.09 GHz), [20] Sugar (SAT-based constraint solver;
  Let's Note CF-W5).

Puzzle sources of the paper: [16] Nikoli, "Fresh Slitherlink 1"; [17] Nikoli,
"Slitherlink 1"; [18] http://www.pro.or.jp/~fuji/java/puzzle/numline/;
[19] http://www.puzzle-loop.com/; [20] the Sugar puzzle page
(http://bach.istc.kobe-u.ac.jp/sugar/puzzles/slitherlink.html).  None of the
paper's puzzles is identified closely enough to be in our corpus, so the
comparison is per size class, not per puzzle (our ``puzzle-loop.com``
10x10s come from the same site as the paper's No. 4-9).
"""

from slitherlink.spec.target import PAPER_CLOCK_HZ

__all__ = ["PAPER", "CLOCK_HZ", "DEVICE", "TABLE7", "TABLE8", "TABLE9", "figures_for_size",
           "citation", "hardware_average_10x10"]

#: The paper, for citations.
PAPER = ("Miyauchi & Tanaka, \"Solving Slitherlink with FPGA and SMT Solver\", "
         "JIP 28 (2020)")
#: The paper's hardware clock (section 5).
CLOCK_HZ = PAPER_CLOCK_HZ
#: The paper's device and its totals (XC7A35T: 20,800 LUTs, 41,600 flip-flops).
DEVICE = {"part": "XC7A35T", "luts": 20_800, "ffs": 41_600}

#: Table 7, FPGA resource usage: (No., reference, size, LUTs, FFs); one design per puzzle.
TABLE7 = [
    (1, "[17]", "10x10", 3941, 1542),
    (2, "[17]", "10x10", 4040, 1542),
    (3, "[17]", "10x10", 4057, 1566),
    (4, "[19]", "10x10", 4144, 1594),
    (5, "[19]", "10x10", 4301, 1602),
    (6, "[19]", "10x10", 4308, 1606),
    (7, "[19]", "10x10", 4057, 1566),
    (8, "[19]", "10x10", 4175, 1590),
    (9, "[19]", "10x10", 4074, 1562),
]

#: Table 8, execution time (s) of the 10x10 puzzles: (No., reference, SMT (Z3),
#: hardware at 50 MHz, previous research or None).
TABLE8 = [
    (1, "[17]", 3.835, 0.0011, ("[14]", 0.116)),
    (2, "[17]", 3.850, 0.4172, ("[14]", 0.384)),
    (3, "[17]", 3.878, 0.0014, ("[14]", 0.060)),
    (4, "[19]", 5.536, 0.0251, None),
    (5, "[19]", 5.357, 0.5234, None),
    (6, "[19]", 5.407, 0.0621, None),
    (7, "[19]", 6.294, 0.2214, None),
    (8, "[19]", 5.510, 0.1548, None),
    (9, "[19]", 4.225, 0.0142, None),
]
#: Table 8's last row, "Average Time 10x10": SMT, hardware, previous research [3].
TABLE8_AVERAGE = {"smt": 4.877, "hardware": 0.1578, "previous": ("[3]", 0.104)}

#: Table 9, execution time (s) of larger puzzles: (No., reference, size, SMT (Z3),
#: previous research or None).  No. 10/11 are No. 41/73 of [16]; No. 12-14 are No. 31-33
#: of [18]; No. 15/16 are No. 74/100 of [16]; No. 17 is the puzzle of [20]; No. 18 is
#: from [17] (and [14]).
TABLE9 = [
    (10, "[16]", "14x24", 12.251, None),
    (11, "[16]", "14x24", 28.978, None),
    (12, "[18]", "20x30", 27.805, None),
    (13, "[18]", "20x30", 23.552, None),
    (14, "[18]", "20x30", 28.162, None),
    (15, "[16]", "20x36", 26.200, None),
    (16, "[16]", "20x36", 1227.437, None),
    (17, "[20]", "20x36", 26.619, ("[20]", 450.0)),
    (18, "[17]", "20x36", 28.059, ("[14]", 26.286)),
]
#: Table 9's average rows: size -> (SMT average, previous research average or None).
TABLE9_AVERAGE = {
    "14x24": (20.614, ("[3]", 34.937)),
    "20x30": (26.506, ("[3]", 2372.7)),
    "20x36": (626.818, None),  # the average of No. 15 and 16 only
}


def citation(table, row=None):
    """A short citation, e.g. ``"Miyauchi & Tanaka 2020, §5 Table 8, No. 2"``."""
    text = f"Miyauchi & Tanaka 2020, §5 Table {table}"
    return text if row is None else f"{text}, {row}"


def hardware_average_10x10():
    """The paper's headline: 0.1578 s per 10x10 at 50 MHz (Table 8, average row)."""
    seconds = TABLE8_AVERAGE["hardware"]
    return {"seconds": seconds, "cycles_at_50mhz": round(seconds * CLOCK_HZ),
            "citation": citation(8, "Average Time 10x10")}


def figures_for_size(size):
    """The paper's figures for one size class (e.g. ``"10x10"``) as a list of dicts
    ``{what, seconds, n, citation}`` (``n``: how many puzzles the figure covers);
    an empty list when the paper has none for that size."""
    out = []
    if size == "10x10":
        hw = [row[3] for row in TABLE8]
        smt = [row[2] for row in TABLE8]
        out.append({"what": "hardware, 50 MHz (mean)", "seconds": TABLE8_AVERAGE["hardware"],
                    "n": len(TABLE8), "citation": citation(8, "Average Time 10x10")})
        out.append({"what": "hardware, 50 MHz (median)", "seconds": _median(hw),
                    "n": len(TABLE8), "citation": citation(8, "median of No. 1-9 (ours)")})
        out.append({"what": "hardware, 50 MHz (max)", "seconds": max(hw),
                    "n": len(TABLE8), "citation": citation(8, "No. 5")})
        out.append({"what": "SMT (Z3, Python API; i7-6500U) (mean)",
                    "seconds": TABLE8_AVERAGE["smt"], "n": len(TABLE8),
                    "citation": citation(8, "Average Time 10x10")})
        out.append({"what": "SMT (max)", "seconds": max(smt), "n": len(TABLE8),
                    "citation": citation(8, "No. 7")})
        ref, seconds = TABLE8_AVERAGE["previous"]
        out.append({"what": f"integer programming {ref} (mean)", "seconds": seconds,
                    "n": None, "citation": citation(8, "Average Time 10x10")})
    elif size in TABLE9_AVERAGE:
        rows = [row for row in TABLE9 if row[2] == size]
        smt, previous = TABLE9_AVERAGE[size]
        out.append({"what": "SMT (Z3, Python API; i7-6500U) (mean)", "seconds": smt,
                    "n": 2 if size == "20x36" else len(rows),
                    "citation": citation(9, f"{size} average")})
        out.append({"what": "SMT (max)", "seconds": max(row[3] for row in rows),
                    "n": len(rows),
                    "citation": citation(9, "No. " + str(max(rows, key=lambda r: r[3])[0]))})
        if previous:
            out.append({"what": f"integer programming {previous[0]} (mean)",
                        "seconds": previous[1], "n": None,
                        "citation": citation(9, f"{size} average")})
        for row in rows:
            if row[4]:
                out.append({"what": f"previous research {row[4][0]}, No. {row[0]}",
                            "seconds": row[4][1], "n": 1,
                            "citation": citation(9, f"No. {row[0]}")})
    return out


def _median(values):
    values = sorted(values)
    n = len(values)
    return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2
