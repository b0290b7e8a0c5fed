"""cocotb bench of the deduction engine's generated Verilog (run by test_cocotb_engine.py).

The bench is the firmware (firmware/src/deduce.c, as test_engine.py's
``firmware_solve``): it reads DEDUCE_ID and DEDUCE_CONFIG, then for every case of the
JSON file ``BENCH_CASES`` writes the clues and DEDUCE_SIZE, writes LOAD (the next write
waits on the bus while it runs), runs DEDUCE, then DECIDE / BACKTRACK as
:func:`model.deduce.solve` would, polling DEDUCE_STATUS until ``busy`` falls after each
command; it reads the rows of every solution it finds and, at the end of the search,
the DEDUCE counter registers.  Register addresses and fields are :mod:`spec.registers`'s.

The bus is driven as PicoRV32 drives it: ``valid``, ``addr``, ``wdata`` and ``wstrb``
change after a falling edge and hold until a rising edge samples ``ready`` high.

The bench compares nothing (the golden model runs in the pytest process): the report
(``BENCH_REPORT``, JSON) has ``id``, ``config`` and per case ``solutions`` (each a list of
DEDUCE_COLOURING words, the colouring from bit 0), ``exhausted``, ``counters`` (by
DEDUCE_HW_COUNTERS name), ``elapsed`` (clocks from the DEDUCE write to the last counter
read) and ``error`` (a full trail or a command that never ended; the test fails then).
"""

import json
import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly
from cocotb.utils import get_sim_time

from slitherlink.spec import registers as regmap

PERIOD_NS = 10
#: per bus access or command: a hung sequencer fails the test instead of the machine
MAX_CLOCKS = 1_000_000


class Hung(Exception):
    """A bus access or a command took more than MAX_CLOCKS clocks."""


def clock_now():
    return round(get_sim_time("ns") / PERIOD_NS)


async def reset(dut):
    dut.bus__valid.value = 0
    dut.bus__wstrb.value = 0
    dut.bus__addr.value = 0
    dut.bus__wdata.value = 0
    dut.rst.value = 1
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0
    await FallingEdge(dut.clk)


async def access(dut, address, wdata=0, wstrb=0):
    """One bus transfer from a falling edge to the falling edge after the rising edge that
    completes it; returns rdata (a read) or None (a write)."""
    dut.bus__addr.value = address
    dut.bus__wdata.value = wdata
    dut.bus__wstrb.value = wstrb
    dut.bus__valid.value = 1
    for _ in range(MAX_CLOCKS):
        await ReadOnly()                 # what the next rising edge samples
        ready = int(dut.bus__ready.value)
        rdata = int(dut.bus__rdata.value) if ready else None
        await FallingEdge(dut.clk)
        if ready:
            dut.bus__valid.value = 0
            dut.bus__wstrb.value = 0
            return None if wstrb else rdata
    raise Hung(f"no ready for address 0x{address:03x}")


async def write(dut, address, value):
    await access(dut, address, value, 0xF)


async def read(dut, address):
    return await access(dut, address)


async def command(dut, name):
    """DEDUCE_CONTROL with ``name`` set, then DEDUCE_STATUS until not busy (firmware's run)."""
    await write(dut, regmap.DeduceControl.address, regmap.DeduceControl.pack(**{name: 1}))
    start = clock_now()
    while clock_now() - start < MAX_CLOCKS:
        status = regmap.DeduceStatus.unpack(await read(dut, regmap.DeduceStatus.address))
        if not status["busy"]:
            return status
    raise Hung(f"{name} still busy after {MAX_CLOCKS} clocks")


async def solve(dut, case):
    """The firmware's search of one case; returns its report entry."""
    rows, cols = case["rows"], case["cols"]
    for r in range(rows):
        for c in range(cols):
            await write(dut, regmap.deduce_clue_address(r, c), case["clues"][r][c])
    await write(dut, regmap.DeduceSize.address,
                regmap.DeduceSize.pack(rows=rows, cols=cols, island=case["island"]))
    # LOAD as the firmware writes it: no poll, the DEDUCE write waits while it runs
    await write(dut, regmap.DeduceControl.address, regmap.DeduceControl.pack(load=1))
    start = clock_now()
    status = await command(dut, "deduce")
    solutions, exhausted, error = [], False, None
    while True:
        bad = status["conflict"]
        if not bad and status["complete"]:
            await write(dut, regmap.DeduceColouringStart.address, 0)
            solutions.append([await read(dut, regmap.DeduceColouring.address)
                              for _ in range(-(-rows * cols // 32))])
            if len(solutions) >= case["max_solutions"]:
                break
            bad = True
        if bad:
            if status["trail_empty"]:
                exhausted = True
                break
            status = await command(dut, "backtrack")
            continue
        if status["trail_full"]:
            error = "the trail is full: build a deeper one"
            break
        status = await command(dut, "decide")
    counters = {}
    for register, name in zip(regmap.DEDUCE_COUNTER_REGISTERS, regmap.DEDUCE_HW_COUNTERS):
        counters[name] = await read(dut, register.address)
    return {"name": case["name"], "solutions": solutions, "exhausted": exhausted,
            "counters": counters, "elapsed": clock_now() - start, "error": error}


@cocotb.test()
async def band_search(dut):
    """The firmware's search of every case of BENCH_CASES; the report for the pytest side."""
    with open(os.environ["BENCH_CASES"]) as f:
        cases = json.load(f)
    cocotb.start_soon(Clock(dut.clk, PERIOD_NS, unit="ns").start())
    await reset(dut)
    report = {"id": regmap.DeduceId.unpack(await read(dut, regmap.DeduceId.address)),
              "config": regmap.DeduceConfig.unpack(await read(dut, regmap.DeduceConfig.address)),
              "cases": len(cases), "results": []}
    errors = 0
    try:
        for case in cases:
            result = await solve(dut, case)
            report["results"].append(result)
            if result["error"]:
                errors += 1
                dut._log.error(f"{case['name']}: {result['error']}")
    except Hung as hung:
        errors += 1
        report["hung"] = f"case {len(report['results'])}: {hung}"
        dut._log.error(report["hung"])
    report["clocks"] = clock_now()
    with open(os.environ["BENCH_REPORT"], "w") as f:
        json.dump(report, f, indent=1)
    dut._log.info(f"{len(report['results'])} of {len(cases)} cases searched, "
                  f"{report['clocks']} clocks")
    assert not errors, f"{errors} cases could not be searched"
