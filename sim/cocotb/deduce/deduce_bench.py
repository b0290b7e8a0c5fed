"""cocotb bench of the deduction engine's generated Verilog (run by runner.py).

For every case of the JSON file ``DEDUCE_CASES``: set the puzzle's ports
(``grid``, ``clue``, ``island``), load the state and the label registers
(``load`` + ``restore_labels`` for one clock), pulse ``start``, wait for
``done``, then compare the conflict flag, every counter and (when given) the
final state with the golden model's answers the case carries, and check that
``clocks`` is the number of clocks from ``start`` to ``done``.  Inputs change
after a falling edge and are sampled at the next rising one.

The report (``DEDUCE_REPORT``, JSON): cases, checked, conflicts, clocks and the
first mismatches; the test fails when any case mismatches.
"""

import json
import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge, with_timeout
from cocotb.utils import get_sim_time

PERIOD_NS = 10
MAX_CLOCKS = 1_000_000   # per case: a hung sequencer fails the test instead of the machine


async def reset(dut):
    for port in ("start", "load", "restore_labels", "clear_labels"):
        getattr(dut, port).value = 0
    dut.rst.value = 1
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0
    await FallingEdge(dut.clk)


async def run_case(dut, case):
    """Drive one case from a falling edge; returns ({port: value}, clocks observed)."""
    dut.grid.value = case["grid"]
    dut.clue.value = case["clue"]
    dut.island.value = case["island"]
    dut.state_in.value = case["state_in"]
    dut.labels_in.value = case["labels_in"]
    dut.load.value = 1
    dut.restore_labels.value = 1
    await FallingEdge(dut.clk)
    dut.load.value = 0
    dut.restore_labels.value = 0
    dut.start.value = 1
    await RisingEdge(dut.clk)            # start is sampled here
    started = get_sim_time("ns")
    await FallingEdge(dut.clk)
    dut.start.value = 0
    await with_timeout(RisingEdge(dut.done), MAX_CLOCKS * PERIOD_NS, "ns")
    await ReadOnly()
    clocks = round((get_sim_time("ns") - started) / PERIOD_NS)
    got = {"done": int(dut.done.value), "busy": int(dut.busy.value),
           "conflict": bool(int(dut.conflict.value)), "state": int(dut.state.value),
           "clocks": int(dut.clocks.value)}
    for name in case["expect"]:
        if name not in got:
            got[name] = int(getattr(dut, name).value)
    await FallingEdge(dut.clk)
    return got, clocks


@cocotb.test()
async def deduce_cases(dut):
    """Every case of DEDUCE_CASES against the golden model's answers."""
    with open(os.environ["DEDUCE_CASES"]) as f:
        cases = json.load(f)
    cocotb.start_soon(Clock(dut.clk, PERIOD_NS, unit="ns").start())
    await reset(dut)
    mismatches, checked, conflicts, total = [], 0, 0, 0
    for i, case in enumerate(cases):
        got, clocks = await run_case(dut, case)
        wrong = {}
        if (got["done"], got["busy"]) != (1, 0):
            wrong["done/busy"] = (got["done"], got["busy"])
        if got["clocks"] != clocks:
            wrong["clocks"] = (got["clocks"], clocks)
        for name, want in case["expect"].items():
            if name == "state" and want is None:
                continue
            if got[name] != want:
                wrong[name] = (hex(got[name]), hex(want)) if name == "state" else (got[name], want)
        if wrong:
            mismatches.append({"case": i, "name": case["name"], "wrong": wrong})
            dut._log.error(f"case {i} ({case['name']}): (got, want) {wrong}")
        checked += 1
        conflicts += got["conflict"]
        total += clocks
    report = {"cases": len(cases), "checked": checked, "conflicts": conflicts, "clocks": total,
              "mismatched": len(mismatches), "mismatches": mismatches[:5]}
    with open(os.environ["DEDUCE_REPORT"], "w") as f:
        json.dump(report, f, indent=1)
    dut._log.info(f"{checked} cases, {conflicts} conflicts, {total} clocks, "
                  f"{len(mismatches)} mismatched")
    assert not mismatches, f"{len(mismatches)} of {checked} cases differ from the model"
