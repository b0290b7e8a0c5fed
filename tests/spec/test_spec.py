"""The specification layer (spec/): registers, memory map, layouts, tables, generated files.

Every interface is declared once in spec/; these tests check that the
generated C headers and docs tables in the repository are current, that the
headers say what the classes say and compile, and that spec/ imports nothing
of ours.  The C header is also shown to drive the gateware in
tests/hw/test_accelerator.py::test_c_header_drives_the_hardware.
"""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from slitherlink.spec import combinations, generate, protocol
from slitherlink.spec import uart as board
from slitherlink.spec import registers as regmap
from slitherlink.spec.registers import ACCEL_REGISTERS, MEMORY_MAP, c_header, markdown
from tests.conftest import HANG_SECONDS

REPO = Path(__file__).resolve().parents[2]


def defines(text, prefix=r"\w+"):
    found = re.findall(rf"^#define ({prefix}) (0x[0-9A-Fa-f]+|\d+)u$", text, re.M)
    names = [n for n, _ in found]
    assert len(names) == len(set(names)), "a name is defined twice"
    return {n: int(v, 0) for n, v in found}


def test_generated_files_are_current():
    """firmware/include/*.h and the docs tables are what spec/ generates (make generate)."""
    assert generate.stale() == [], "stale generated files: run 'make generate'"


def test_stale_file_is_detected(tmp_path):
    """The check above can fail: a changed header or docs table is reported."""
    for path, text in generate.outputs().items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    assert generate.stale(tmp_path) == []
    header = tmp_path / "firmware" / "include" / "slk_protocol.h"
    header.write_text(header.read_text().replace("#define PROTO_SOLVE_SIZE 7u",
                                                 "#define PROTO_SOLVE_SIZE 8u"))
    soc = tmp_path / "docs" / "soc.md"
    soc.write_text(soc.read_text().replace("**RAM_SIZE**", "**RAM_BYTES**"))
    assert sorted(map(str, generate.stale(tmp_path))) == ["docs/soc.md",
                                                          "firmware/include/slk_protocol.h"]
    assert generate.main(["--check", "--root", str(tmp_path)]) == 1
    assert generate.main(["--root", str(tmp_path)]) == 0
    assert generate.stale(tmp_path) == []


def test_committed_register_doc_is_generated():
    assert (REPO / "docs" / "registers.md").read_text() == markdown()


def test_header_has_every_register_and_field():
    h = defines(c_header() + regmap.build_header(max_rows=10, max_cols=10, ram_size=16384))
    assert h["SLK_BASE"] == regmap.ACCEL.base and h["SLK_MAX_ROWS"] == 10
    assert h["SOC_RX_RING_SIZE"] == regmap.rx_ring_size(10, 10)
    assert h["SLK_CELL_BASE"] == regmap.CELL_BASE and h["SLK_CELL_STRIDE"] == regmap.CELL_STRIDE
    for register in ACCEL_REGISTERS:
        name = regmap.c_name(register)
        assert h[f"SLK_{name}"] == register.address
        used = 0
        for f in register.fields:
            mask = h[f"SLK_{name}_{f.name.upper()}_MASK"]
            assert mask == ((1 << f.width) - 1) << f.offset
            assert h[f"SLK_{name}_{f.name.upper()}_SHIFT"] == f.offset
            assert not used & mask
            used |= mask
    # registers do not overlap each other or the cell window
    addresses = [r.address for r in ACCEL_REGISTERS if r is not regmap.Cell]
    assert len(set(addresses)) == len(addresses)
    assert max(addresses) < regmap.CELL_BASE <= regmap.WINDOW_SIZE <= 1 << 16
    assert regmap.cell_address(63, 63) + 4 == regmap.WINDOW_SIZE
    with pytest.raises(ValueError):
        regmap.cell_address(64, 0)


def test_soc_header_has_the_memory_map_and_peripheral_registers():
    h = defines(regmap.soc_header())
    for block in MEMORY_MAP:
        assert h[f"{block.prefix}_BASE"] == block.base
        # the accelerators' registers are in slk_regs.h, as offsets within their windows
        for register in block.registers if block not in (regmap.ACCEL, regmap.DEDUCE) else ():
            name = f"{block.prefix}_{regmap.c_name(register)}"
            assert h[name] == block.base + register.address
            for f in register.fields:
                assert h[f"{name}_{f.name.upper()}_MASK"] == f.mask
    assert h["SOC_UART_RX_WRITTEN_COUNT_MASK"] == (1 << regmap.RX_INDEX_BITS) - 1
    assert h["SOC_RX_RING_BASE"] == regmap.RX_RING.base
    assert h["SOC_SYSCTL_RAM_SIZE"] == regmap.SYSCTL.base + 0x14
    # blocks do not overlap
    spans = sorted((b.base, b.base + (b.size or 1 << regmap.REGION_SHIFT)) for b in MEMORY_MAP)
    assert all(end <= start for (_, end), (start, _) in zip(spans, spans[1:]))


def test_regs_header_has_the_deduction_engine():
    h = defines(regmap.c_header())
    assert h["SLK_DEDUCE_BASE"] == regmap.DEDUCE.base
    for register in regmap.DEDUCE_REGISTERS:
        name = f"SLK_{regmap.c_name(register)}"
        assert h[name] == register.address
        for f in register.fields:
            assert h[f"{name}_{f.name.upper()}_MASK"] == f.mask
    # the counters, one word each in DEDUCE_HW_COUNTERS order, by index
    for k, name in enumerate(regmap.DEDUCE_HW_COUNTERS):
        assert h[f"SLK_DEDUCE_COUNTER_{name.upper()}"] == k
        assert regmap.DEDUCE_COUNTER_REGISTERS[k].address == h["SLK_DEDUCE_COUNTER_BASE"] + 4 * k
    addresses = [r.address for r in regmap.DEDUCE_REGISTERS]
    assert len(set(addresses)) == len(addresses)
    assert max(addresses[:-1]) < regmap.DEDUCE_CLUE_BASE


def test_pack_unpack_round_trip():
    word = regmap.Cell.pack(pattern=5, attribute=2, clue=3)
    assert regmap.Cell.unpack(word) == {"pattern": 5, "attribute": 2, "clue": 3, "s0": 0, "s1": 0}
    with pytest.raises(ValueError):
        regmap.Size.pack(rows=256)


def test_register_validation():
    with pytest.raises(ValueError, match="overlaps"):
        class Bad(regmap.Register, address=0, access="r"):
            a: regmap.Field(4, "")
            b: regmap.Field(4, "", offset=2)
    with pytest.raises(ValueError, match="word aligned"):
        class Odd(regmap.Register, address=2, access="r"):
            a: regmap.Field(1, "")
    with pytest.raises(TypeError, match="width"):
        regmap.Field(33, "")


def test_option_words_are_the_combinations():
    """slk_options.h: every CELL word of every search option, in spec.combinations order."""
    text = combinations.c_header()
    rows = re.findall(r"\{([0-9A-Fa-fx, u]+)\},", text)
    assert len(rows) == combinations.OPTION_BLANK + 1
    counts = [int(v) for v in re.search(r"slk_option_counts\[\w+\] = \{([\d, ]+)\}", text)
              .group(1).split(",")]
    for index, (row, count) in enumerate(zip(rows, counts)):
        words = [int(w.strip().rstrip("u"), 16) for w in row.split(",")][:count]
        clue = regmap.CLUE_BLANK if index == combinations.OPTION_BLANK else index
        expected = combinations.options(index)
        assert count == len(expected)
        for word, (pattern, attribute) in zip(words, expected):
            assert regmap.Cell.unpack(word) == {"pattern": pattern, "attribute": int(attribute),
                                                "clue": clue, "s0": 0, "s1": 0}
    assert counts[:4] == [len(combinations.combinations(d)) for d in range(4)]


def test_layouts_compute_sizes_and_offsets():
    assert protocol.Solve.SIZE == 7 and protocol.Solve.offset("max_checks") == 3
    assert protocol.Result.SIZE == 4 + 8 * len(protocol.COUNTERS)
    assert protocol.OVERHEAD == 8 and protocol.FrameHeader.offset("type") == 3
    assert (protocol.FrameHeader.offset("seq"), protocol.FrameHeader.offset("check")) == (4, 5)
    h = defines(protocol.c_header(), r"PROTO_\w+")
    for layout in protocol.PAYLOADS.values():
        assert h[f"PROTO_{layout.C_NAME}_SIZE"] == layout.SIZE
        end = 0
        for f in layout.FIELDS:
            assert h[f"PROTO_{layout.C_NAME}_{f.name.upper()}_OFFSET"] == f.offset == end
            end += f.size
        assert end == layout.SIZE
    payload = protocol.Version.pack(protocol=1, regmap=1, max_rows=3, max_cols=4, clock_hz=5,
                                    baud=6, start_baud=8, max_baud=9, max_payload=7, queue=2,
                                    flags=1)
    assert protocol.Version.unpack(payload)[0]["baud"] == 6
    with pytest.raises(ValueError, match="missing"):
        protocol.Error.pack(code=1, type=2)
    with pytest.raises(ValueError, match="does not fit"):
        protocol.Error.pack(code=256, type=2, detail=0)


def test_one_divisor_limit():
    one = 1 << board.DIVISOR_FRACTION_BITS
    fastest = 50_000_000 * one // board.MIN_BIT_TIME   # the shortest bit time (7.5 cycles)
    assert board.bit_time_for(50_000_000, fastest) == board.MIN_BIT_TIME
    assert board.divisor_for(50_000_000, board.DEFAULT_BAUD) == 434
    with pytest.raises(ValueError, match="too fast"):
        board.divisor_for(50_000_000, 50_000_000 * one // (board.MIN_BIT_TIME - 1))
    # a fractional bit time makes a rate between whole divisors (18.52 cycles) to 0.01 %
    assert board.divisor_for(50_000_000, 2_700_000) == 19
    bit_time = board.bit_time_for(50_000_000, 2_700_000)
    assert abs(board.baud_of(50_000_000, bit_time) - 2_700_000) < 2_700_000 * 1e-4
    with pytest.raises(ValueError, match="too slow"):
        board.divisor_for(50_000_000, 50_000_000 >> board.DIVISOR_CYCLE_BITS)
    with pytest.raises(ValueError, match="positive"):
        board.divisor_for(50_000_000, 0)


def test_headers_compile(tmp_path):
    """The generated headers are valid C for the firmware's compiler (zig cc, from PyPI)."""
    for name, make in generate.HEADERS.items():
        (tmp_path / name).write_text(make())
    (tmp_path / "slk_build.h").write_text(regmap.build_header(max_rows=10, max_cols=10,
                                                              ram_size=16384))
    src = tmp_path / "t.c"
    src.write_text('#include "slk_regs.h"\n#include "slk_soc.h"\n#include "slk_protocol.h"\n'
                   '#include "slk_options.h"\n#include "slk_build.h"\n'
                   "unsigned f(uint8_t *p) { PROTO_PUT_RESULT_CYCLES(p, 1); "
                   "return SLK_CELL_ADDR(3, 4) + SLK_STATUS_CONFLICT_MASK + SOC_UART_DATA"
                   " + slk_option_words[2][3] + PROTO_GET_SOLVE_MAX_CHECKS(p) + SLK_MAX_ROWS; }\n")
    result = subprocess.run([sys.executable, "-m", "ziglang", "cc", "-target",
                             "riscv32-freestanding-none", "-c", "-o", "t.o", "-Wall", "-Werror",
                             "-ffreestanding", str(src)], capture_output=True, text=True,
                            cwd=tmp_path, timeout=HANG_SECONDS)
    assert result.returncode == 0, result.stderr


def test_the_colouring_registers_are_words_of_the_replies_colouring():
    """DEDUCE_COLOURING_START takes a skip of 0 to 31 bits, DEDUCE_COLOURING reads 32 bits;
    the C names are the same numbers."""
    assert regmap.DeduceColouringStart.field("skip").width == 5
    assert regmap.DeduceColouring.field("bits").width == 32
    h = defines(regmap.c_header())
    assert h["SLK_DEDUCE_COLOURING_START"] == regmap.DeduceColouringStart.address
    assert h["SLK_DEDUCE_COLOURING"] == regmap.DeduceColouring.address


def test_every_window_fits_the_engines_bus_address():
    for block in (regmap.ACCEL, regmap.DEDUCE):
        assert block.size <= 1 << regmap.ADDR_WIDTH


def test_the_soc_diagram_shows_the_memory_map():
    """docs/soc.md's diagram (generated) has every block at its base and end address."""
    lines = regmap.soc_diagram().splitlines()
    for block in MEMORY_MAP:
        base = f"0x{block.base >> 16:04X}_{block.base & 0xFFFF:04X}"
        line = next(line for line in lines if base in line)
        assert block.name in line
        if block.size:
            end = block.base + block.size - 1
            assert f"0x{end >> 16:04X}_{end & 0xFFFF:04X}" in line
        for pin, _ in block.pins:
            assert any(pin in line for line in lines)
    assert len({len(line) for line in lines[1:-1]}) == 1   # a closed box
    assert regmap.soc_diagram() in (REPO / "docs" / "soc.md").read_text()


def test_status_rule():
    """spec.protocol.status_of, and the firmware's table of it (slk_protocol.h)."""
    S = protocol.Status
    want = {(0, False): S.LIMIT, (0, True): S.NO_SOLUTION, (1, False): S.SOLVED}
    for found in range(5):
        for exhausted in (False, True):
            for unique in (False, True):
                got = protocol.status_of(found, exhausted=exhausted, unique=unique)
                if found >= 2:
                    assert got is S.MULTIPLE
                elif found == 1 and exhausted:
                    assert got is (S.SOLVED_UNIQUE if unique else S.SOLVED)
                else:
                    assert got is want[found, exhausted]
    table = re.search(r"proto_status\[3\]\[2\]\[2\] = \{\n(.*?)\n\};", protocol.c_header(),
                      re.S).group(1)
    names = re.findall(r"STATUS_(\w+)", table)
    assert [S[n] for n in names] == [protocol.status_of(f, exhausted=e, unique=u)
                                     for f in range(3) for e in (0, 1) for u in (0, 1)]


def test_the_service_interval_outlasts_a_byte_at_the_slowest_bit_time():
    """A firmware that waits for room in the transmit FIFO waits at most one byte time:
    ten bit times of at most 2^DIVISOR_CYCLE_BITS cycles, well inside the interval the
    virtual board's watch allows between two accesses to the UART."""
    assert 10 << board.DIVISOR_CYCLE_BITS < protocol.SERVICE_INTERVAL_CYCLES
