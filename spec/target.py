"""One description of a build: the board, the engines, the grid, the clock and the UART.

A :class:`Target` says everything that makes one system on chip different from another:
which board it is for (:class:`Board`: the facts of the board, its oscillator, its FPGA,
its USB-UART bridge), whether it carries the paper's accelerator (paper mode, paper
section 3) and the deduction engine (deduce mode, docs/design.md section 6), the largest
puzzle it takes, the deduction engine's band height, label network and trail, its
design clock (the UART's clock follows from it, :func:`spec.uart.uart_clock_hz`) and its
UART's rate.  ``make bitstream`` builds one for a board, the virtual board simulates one
(by default exactly what ``make bitstream`` builds for the Arty), the cocotb system tests
and the Verilog export take one; every default is declared here, once.

The defaults of a board's build are :func:`default_target`'s; :data:`DEFAULT_TARGET` is
the Arty A7-35T's, the primary board.  Plain data: the gateware, the boards and the
simulators turn a target into hardware (``boards.design``).
"""

import dataclasses
from dataclasses import dataclass, field

from .uart import DEFAULT_BAUD, divisor_for, uart_clock_hz

__all__ = ["Board", "BOARDS", "Target", "CORES", "CORE_ENGINES", "LABEL_NETWORKS",
           "PAPER_CLOCK_HZ",
           "DEFAULT_TARGET", "PAIRS_MAX_POINTS", "default_label_network", "default_target",
           "get_board", "mhz"]


def mhz(hz):
    """A clock of a whole number of Hz in MHz, exactly and without trailing zeros (what
    ``CLOCK=`` takes): ``mhz(25_781_250) == "25.78125"``."""
    return f"{hz / 1e6:.6f}".rstrip("0").rstrip(".")


#: The paper's clock (section 5: 0.1578 s per 10x10 puzzle at 50 MHz): our cycle counts
#: convert to the paper's seconds at this clock.
PAPER_CLOCK_HZ = 50_000_000

#: The label stage's row networks (:class:`hw.deduce.labels.Labels`): ``small``, the fewest
#: compare-and-selects (the XC7A35T's wide builds), ``fast``, a shorter chain of them (the
#: ECP5's wide builds), and ``pairs``, every pair of a row's points compared at once (the
#: narrow builds, :data:`PAIRS_MAX_POINTS`); the same labels in the same clocks.
LABEL_NETWORKS = ("small", "fast", "pairs")

#: The widest row (lattice points, ``max_cols + 1``) whose default label network is
#: ``pairs``: its comparators grow as the square of the row (55 a row at 10x10); a wider
#: build takes its board's ``label_network``.
PAIRS_MAX_POINTS = 11

#: The SoC variants by the name ``make bitstream CORE=`` takes: (paper's accelerator,
#: deduction engine).
CORES = {"soc": (True, False), "soc-deduce": (False, True), "soc-both": (True, True)}
#: What each SoC variant carries, in words (``--core``'s help, the README).
CORE_ENGINES = {"soc": "the paper's accelerator (paper mode)",
                "soc-deduce": "the deduction engine (deduce mode)",
                "soc-both": "both engines"}


@dataclass(frozen=True)
class Board:
    """The facts of a board the solver runs on (its datasheets); no Amaranth here."""
    #: short name: ``--board``, ``build/<name>/``
    name: str
    title: str
    #: the FPGA and its package, for reports
    device: str
    #: the board's oscillator, the clock the design clock is made from (Hz)
    oscillator_hz: int
    #: where its USB-UART bridge usually appears on Linux
    serial_port: str
    #: ``openFPGALoader -b <programmer>``
    programmer: str
    #: the USB-UART bridge, and the fastest rate it carries (its datasheet)
    uart_bridge: str
    bridge_max_baud: int
    #: the default design clock of the board's builds (Hz)
    clock_hz: int
    #: the default label network of the board's builds wider than :data:`PAIRS_MAX_POINTS`
    label_network: str
    #: the device's resources, for utilisation percentages
    capacity: dict = field(hash=False, compare=False)


ARTY = Board(
    name="arty", title="Digilent Arty A7-35T", device="XC7A35T, xc7a35ticsg324-1L",
    oscillator_hz=100_000_000, serial_port="/dev/ttyUSB1", programmer="arty",
    uart_bridge="FT2232H", bridge_max_baud=12_000_000,
    # the largest clock the MMCM makes within the ECP5 post-route Fmax of the default build
    # (the evidence: boards/evidence.py, docs/boards.md "The clock")
    clock_hz=49_218_750,
    # the fewest LUTs: the XC7A35T's builds are limited by its LUTs
    label_network="small",
    # XC7A35T (DS180): slice LUTs, slice flip-flops, 36 Kb block RAMs, DSP48E1 slices, ...
    capacity={"LUT": 20800, "FF": 41600, "RAMB36": 50, "RAMB18": 100, "DSP": 90,
              "CARRY4": 8150, "LUTRAM": 9600})

ULX3S = Board(
    name="ulx3s", title="Radiona ULX3S-85F", device="LFE5U-85F-6BG381C, ECP5",
    oscillator_hz=25_000_000, serial_port="/dev/ttyUSB0", programmer="ulx3s",
    uart_bridge="FT231X", bridge_max_baud=3_000_000,
    # the largest clock the PLL makes 5 % below the ECP5 post-route Fmax of the default
    # build (boards/evidence.py, docs/boards.md "The clock")
    clock_hz=46_875_000,
    # the shortest path: the ECP5's builds are limited by their clock
    label_network="fast",
    # LFE5U-85F (DS1044): LUT4s, flip-flops, 18 Kb EBR blocks, 18x18 multipliers.
    capacity={"LUT": 83640, "FF": 83640, "EBR": 208, "DSP": 156})

#: Every board, by its short name.
BOARDS = {board.name: board for board in (ARTY, ULX3S)}


def get_board(name):
    """The :class:`Board` called ``name``; ValueError naming the known ones otherwise."""
    try:
        return BOARDS[name]
    except KeyError:
        raise ValueError(f"unknown board {name!r} (known: {', '.join(BOARDS)})") from None


def _positive_int(name, value, top=None):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 or (
            top is not None and value > top):
        limit = f" from 1 to {top}" if top is not None else " (at least 1)"
        raise ValueError(f"{name} must be an integer{limit}, not {value!r}")


def default_label_network(board, max_cols):
    """The label network of ``board``'s builds ``max_cols`` wide: ``pairs`` up to
    :data:`PAIRS_MAX_POINTS` points a row, the board's ``label_network`` beyond."""
    return "pairs" if max_cols + 1 <= PAIRS_MAX_POINTS else board.label_network


@dataclass(frozen=True)
class Target:
    """A build: the SoC's parts and parameters, and the board it is for.

    ``paper``: the paper's accelerator (paper mode); ``deduce``: the deduction engine
    (deduce mode) of ``band`` framed rows a word (1 to ``max_rows + 2``; the whole framed
    grid at once is the fully parallel array), ``label_network`` (:data:`LABEL_NETWORKS`)
    and ``trail_depth`` decisions on its trail; ``max_rows`` x ``max_cols``: the largest
    puzzle it takes; ``clock_hz``: the design clock (:attr:`uart_clock_hz` the UART's);
    ``baud``: the UART's rate (:func:`spec.uart.divisor_for` at the UART's clock).  Raises
    ValueError (one line) for a target that cannot be built.
    """
    board: str = ARTY.name
    paper: bool = True
    deduce: bool = True
    max_rows: int = 10
    max_cols: int = 10
    band: int = 1
    label_network: str = default_label_network(ARTY, 10)    # at the default max_cols
    trail_depth: int = 32
    clock_hz: int = ARTY.clock_hz
    baud: int = DEFAULT_BAUD

    def __post_init__(self):
        get_board(self.board)
        for name in ("paper", "deduce"):   # 0 and 1 are taken for False and True
            object.__setattr__(self, name, bool(getattr(self, name)))
        if not (self.paper or self.deduce):
            raise ValueError("a SoC needs an engine: the paper's accelerator, the deduction "
                             "engine, or both")
        for name in ("max_rows", "max_cols"):
            _positive_int(name, getattr(self, name), 255)
        _positive_int("band", self.band, self.max_rows + 2)
        _positive_int("trail_depth", self.trail_depth, (1 << 16) - 1)
        if self.label_network not in LABEL_NETWORKS:
            raise ValueError(f"label network must be one of {', '.join(LABEL_NETWORKS)}, "
                             f"not {self.label_network!r}")
        _positive_int("clock_hz", self.clock_hz)
        divisor_for(self.uart_clock_hz, self.baud)

    @property
    def uart_clock_hz(self):
        """The UART's clock, the line side's (:func:`spec.uart.uart_clock_hz`)."""
        return uart_clock_hz(self.clock_hz)

    @property
    def core(self):
        """The SoC variant's name (:data:`CORES`)."""
        return next(name for name, engines in CORES.items()
                    if engines == (self.paper, self.deduce))

    @property
    def name(self):
        """A short name that tells targets apart (build folders, caches)."""
        mhz = f"{self.clock_hz / 1e6:g}".replace(".", "p")
        engines = "-b%d-%s" % (self.band, self.label_network) if self.deduce else ""
        return (f"{self.board}-{self.core}-{self.max_rows}x{self.max_cols}{engines}"
                f"-{mhz}mhz-{self.baud}")

    def replace(self, **changes):
        """This target with ``changes`` (checked as a new one)."""
        return dataclasses.replace(self, **changes)

    def as_dict(self):
        return dataclasses.asdict(self)


def default_target(board=ARTY.name, **changes):
    """The default build of ``board`` (both modes, 10x10, band 1, the board's clock and
    the label network of its width, :func:`default_label_network`), with ``changes``; a
    ``core`` name (:data:`CORES`) sets ``paper`` and ``deduce``."""
    board = get_board(board)
    core = changes.pop("core", None)
    if core is not None:
        if core not in CORES:
            raise ValueError(f"unknown core {core!r} (known: {', '.join(CORES)})")
        changes["paper"], changes["deduce"] = CORES[core]
    max_cols = changes.get("max_cols") or Target.max_cols
    defaults = dict(board=board.name, clock_hz=board.clock_hz,
                    label_network=default_label_network(board, max_cols))
    return Target(**{**defaults, **{k: v for k, v in changes.items() if v is not None}})


#: The primary board's default build: what ``make bitstream`` builds and the virtual board
#: simulates.
DEFAULT_TARGET = default_target()
