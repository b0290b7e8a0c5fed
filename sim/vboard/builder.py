"""Build the virtual board: a design's Verilog + ``harness.cpp``, compiled by Verilator.

A :class:`Design` is what the harness needs to know about a top-level module:
its Verilog sources, the names of its four board-level ports (clock, reset,
UART receive and transmit lines; a UART clock and its reset too when it has one) and its
clock frequency and baud rate.
:func:`build` compiles one into a program, ``vboard``, in the project's one Verilator
build cache (:func:`sim.verilator.cached`: ``build/verilator/<design>-<hash>/``), so
``make vboard`` only rebuilds when an input changes and the Verilog is generated only
when no build exists for the design's inputs.
"""

import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from slitherlink.sim.verilator import (BUILD_ROOT, BuildError, cached, environment, say,
                                       source_snapshot)

__all__ = ["Design", "Build", "BuildError", "build", "BUILD_ROOT", "HARNESS_FILES",
           "source_snapshot"]

HERE = Path(__file__).resolve().parent
HARNESS_FILES = [HERE / "harness.cpp", HERE / "builder.py"]
TRACE_KINDS = (None, "vcd", "fst")


@dataclass
class Design:
    """A top-level design for the virtual board.

    ``sources`` maps file names to Verilog text (or to a :class:`Path` of a
    Verilog file used in place, such as PicoRV32's).  ``ports`` names the
    top-level ports ``clk``, ``rst`` (active high), ``uart_rx`` and ``uart_tx``,
    and optionally ``trap`` (an output that goes high when the CPU stops; the
    harness reports it) and ``served`` (an output high in each cycle in which the
    firmware's access to its UART completes; the harness's stamps report the last);
    ``uart_clk`` and ``uart_rst`` name the clock and reset of the UART's line side when it
    has a clock of its own, ``line_ratio`` (:data:`spec.uart.UART_CLOCK_RATIO`) times the
    design clock: the harness ticks it that many times a design clock cycle, in phase, and
    makes the line's rates from it.
    ``info`` is free-form metadata stored beside the binary (e.g. the firmware
    image's hash, the maximum grid size).
    ``pc`` names the CPU's program counter for a profiling build: ``(module, instance
    path under the top, signal)`` of a register holding the address of the instruction
    being executed (the harness's ``--profile``), or None.
    """
    name: str
    top: str
    clock_hz: int
    baud: int
    sources: dict
    ports: dict = field(default_factory=lambda: {
        "clk": "clk", "rst": "rst", "uart_rx": "uart_rx", "uart_tx": "uart_tx"})
    info: dict = field(default_factory=dict)
    pc: tuple = None
    line_ratio: int = 1

    def __post_init__(self):
        if not self.name.replace("_", "").replace("-", "").isalnum():
            raise ValueError(f"design name {self.name!r} must be letters, digits, '-' or '_'")
        if not isinstance(self.clock_hz, int) or self.clock_hz <= 0:
            raise ValueError(f"clock_hz must be a positive integer, not {self.clock_hz!r}")
        if not isinstance(self.line_ratio, int) or self.line_ratio < 1:
            raise ValueError(f"line_ratio must be a positive integer, not {self.line_ratio!r}")
        if ((self.line_ratio > 1) != ("uart_clk" in self.ports)
                or ("uart_clk" in self.ports) != ("uart_rst" in self.ports)):
            raise ValueError(f"design {self.name!r}: a line_ratio above 1 needs the ports "
                             f"uart_clk and uart_rst, and they need one")
        if (not isinstance(self.baud, int)
                or not 0 < 2 * self.baud <= self.clock_hz * self.line_ratio):
            raise ValueError(f"baud must be a positive integer at most the UART's clock / 2, "
                             f"not {self.baud!r}")
        missing = {"clk", "rst", "uart_rx", "uart_tx"} - set(self.ports)
        if missing:
            raise ValueError(f"design {self.name!r} does not name its ports {sorted(missing)}")
        if not self.sources:
            raise ValueError(f"design {self.name!r} has no Verilog sources")

    def source_texts(self):
        """``(file name, text)`` of every source, in a stable order."""
        out = []
        for name in sorted(self.sources):
            text = self.sources[name]
            if isinstance(text, Path):
                text = text.read_text()
            out.append((name, text))
        return out


@dataclass
class Build:
    """A built virtual board: the binary and what it was built from."""
    design: str
    path: Path          # the executable
    clock_hz: int
    baud: int
    trace: str = None   # None, "vcd" or "fst"
    info: dict = field(default_factory=dict)
    profile: bool = False   # the harness takes --profile

    @property
    def directory(self):
        return self.path.parent

    def as_json(self):
        return {"design": self.design, "path": str(self.path), "clock_hz": self.clock_hz,
                "baud": self.baud, "trace": self.trace, "info": self.info,
                "profile": self.profile}

    @classmethod
    def from_json(cls, data):
        return cls(data["design"], Path(data["path"]), data["clock_hz"], data["baud"],
                   data.get("trace"), data.get("info", {}), data.get("profile", False))


def _config_header(design, trace, profile):
    p = design.ports
    return "\n".join([
        "// Generated by sim/vboard/builder.py: the design's ports and defaults.",
        "#pragma once",
        '#define VB_MODEL_HEADER "Vboard.h"',
        "#define VB_MODEL Vboard",
        f"#define VB_CLK {p['clk']}",
        f"#define VB_RST {p['rst']}",
        f"#define VB_UART_RX {p['uart_rx']}",
        f"#define VB_UART_TX {p['uart_tx']}",
        *([f"#define VB_TRAP {p['trap']}"] if "trap" in p else []),
        *([f"#define VB_SERVED {p['served']}"] if "served" in p else []),
        *([f"#define VB_UART_CLK {p['uart_clk']}", f"#define VB_UART_RST {p['uart_rst']}"]
          if "uart_clk" in p else []),
        f"#define VB_LINE_RATIO {design.line_ratio}",
        f"#define VB_CLOCK_HZ {design.clock_hz}ull",
        f"#define VB_BAUD {design.baud}ull",
        f"#define VB_TRACE_VCD {int(trace == 'vcd')}",
        f"#define VB_TRACE_FST {int(trace == 'fst')}",
        f"#define VB_PROFILE {int(profile)}",
        *([f'#define VB_PROFILE_SCOPE "{design.top}.{design.pc[1]}"',
           f'#define VB_PROFILE_PC "{design.pc[2]}"'] if profile else []),
        "",
    ])


def build(design_factory, *, name, inputs=(), trace=None, profile=False, root=None,
          force=False, quiet=False, jobs=None, key="", snapshot=None):
    """Build (or find) the virtual board of a design.

    ``design_factory()`` returns the :class:`Design`; it is called only when
    no build exists for the current ``inputs`` (the files it is made from).
    ``trace`` is ``None``, ``"vcd"`` or ``"fst"``: a traced binary is a
    separate build; so is a profiling one (``profile``: the harness's ``--profile``
    samples the design's ``pc`` every cycle; the same cycles as the plain build).  ``key`` is any further text that selects the build (the
    design's parameters).  ``snapshot`` (:func:`sim.verilator.source_snapshot`
    of the inputs when the process started): where no build exists for the inputs
    as they are, a BuildError and no build if a Python input this process
    imported has changed since.  Returns a :class:`Build`.
    """
    if trace not in TRACE_KINDS:
        raise ValueError(f"trace must be one of {TRACE_KINDS}, not {trace!r}")
    if trace == "fst":
        _check_fst_headers()

    def generate():
        say(quiet, f"vboard: generating the {name} design's Verilog")
        design = design_factory()
        if design.name != name:
            raise ValueError(f"the factory made design {design.name!r}, expected {name!r}")
        if profile and not design.pc:
            raise BuildError(f"the {name} design names no program counter to profile")
        header = _config_header(design, trace, profile)
        flags = _verilator_flags(design, trace)
        sources = design.source_texts()
        if profile:
            sources.insert(0, ("profile.vlt", _profile_config(design)))
        parts = [header, (HERE / "harness.cpp").read_text(), json.dumps(flags),
                 *[part for name_text in sources for part in name_text]]
        return parts, (design, sources, header, flags)

    def compile(directory, payload):
        design, sources, header, flags = payload
        _compile(design, sources, header, flags, directory, quiet, jobs)
        return Build(design.name, directory / "vboard", design.clock_hz, design.baud, trace,
                     design.info, profile).as_json()

    variant = (f"-{trace}" if trace else "") + ("-profile" if profile else "")
    record = cached(f"vboard-{name}{variant}", generate=generate,
                    compile=compile, inputs=[*inputs, *HARNESS_FILES],
                    key=f"trace={trace}|profile={profile}|{key}", root=root, force=force,
                    snapshot=snapshot)
    return Build.from_json(record)


def _profile_config(design):
    """The Verilator configuration that keeps the design's program counter readable by the
    harness (public, read only: the logic and its cycles are unchanged)."""
    module, _, signal = design.pc
    return f'`verilator_config\npublic_flat_rd -module "{module}" -var "{signal}"\n'


def _check_fst_headers():
    """Verilator's FST writer includes <lz4.h> and <zlib.h>: say so before a long build."""
    cxx = os.environ.get("CXX", "c++")
    for header, package in (("lz4.h", "liblz4-dev"), ("zlib.h", "zlib1g-dev")):
        try:
            found = subprocess.run([cxx, "-x", "c++", "-E", "-"], input=f"#include <{header}>\n",
                                   capture_output=True, text=True, timeout=60).returncode == 0
        except (OSError, subprocess.SubprocessError):
            found = False
        if not found:
            raise BuildError(f"FST traces need the C header {header} (sudo apt-get install "
                             f"{package}); or write a VCD trace (a file name not ending in .fst)")


def _verilator_flags(design, trace):
    flags = ["--cc", "--exe", "--build", "--prefix", "Vboard", "--top-module", design.top,
             "--no-timing", "-O3", "--x-assign", "fast", "--x-initial", "fast", "--noassert",
             "-Wno-fatal", "-Wno-lint", "-Wno-style", "-Wno-MULTIDRIVEN", "-Wno-UNOPTFLAT",
             "--timescale", "1ps/1ps",
             "-CFLAGS", "-std=c++20",
             # the PyPI build leaves the precompiled-header option empty: give it
             "-MAKEFLAGS", "OPT_FAST=-O1 OPT_SLOW=-O0 OPT_GLOBAL=-O1 CFG_CXXFLAGS_PCH_I=-include"]
    if trace == "vcd":
        flags.append("--trace")
    elif trace == "fst":
        flags.append("--trace-fst")
    return flags


def _compile(design, sources, header, flags, directory, quiet, jobs):
    exe, env = environment()
    (directory / "src").mkdir(parents=True)
    paths = []
    for file_name, text in sources:
        path = directory / "src" / file_name
        path.write_text(text)
        paths.append(str(path))
    (directory / "src" / "vboard_config.h").write_text(header)
    shutil.copy(HERE / "harness.cpp", directory / "src" / "harness.cpp")
    jobs = jobs or max(1, min(4, os.cpu_count() or 1))
    command = [str(exe), *flags, "-j", str(jobs),
               "-CFLAGS", f"-I{directory / 'src'}",
               "--Mdir", str(directory / "obj"), "-o", str(directory / "vboard"),
               *paths, str(directory / "src" / "harness.cpp")]
    say(quiet, f"vboard: compiling the {design.name} design with Verilator into {directory} "
                f"(first time: about a minute)")
    start = time.monotonic()
    process = subprocess.run(command, env=env, capture_output=True, text=True,
                             cwd=directory)
    log = f"$ {' '.join(command)}\n{process.stdout}\n{process.stderr}"
    (directory / "build.log").write_text(log)
    if process.returncode != 0 or not (directory / "vboard").exists():
        errors = [line for line in process.stderr.splitlines()
                  if "%Error" in line or "error:" in line]
        first = errors[0].strip() if errors else f"exit status {process.returncode}"
        raise BuildError(f"Verilator could not build the {design.name} virtual board: {first} "
                         f"(full log: {directory / 'build.log'})", log)
    shutil.rmtree(directory / "obj", ignore_errors=True)  # ~200 MB of objects, never reused
    say(quiet, f"vboard: built {directory / 'vboard'} in {time.monotonic() - start:.0f} s")
