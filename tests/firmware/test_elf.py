"""firmware/elf.py: what the tools read of the firmware's ELF."""

from slitherlink.firmware import build as fw
from slitherlink.firmware.elf import FUNCTION, executable, symbol, symbols


def test_the_firmware_s_functions_lie_in_its_executable_sections(tmp_path):
    fw.build_firmware(4, 4, out_dir=tmp_path)
    elf = tmp_path / "firmware.elf"
    functions = {name: (address, size) for name, address, size, kind in symbols(elf)
                 if kind == FUNCTION and size}
    assert {"main", "serve_solve", "deduce_search"} <= set(functions)   # not inlined
    sections = executable(elf)
    for address, size in functions.values():
        assert any(base <= address and address + size <= base + len(code)
                   for base, code in sections)
    assert symbol(elf, "main") == functions["main"][0]
    assert symbol(elf, "__bss_end") is not None and symbol(elf, "no_such_symbol") is None


def test_a_file_that_is_not_an_elf_has_nothing(tmp_path):
    other = tmp_path / "firmware.bin"
    other.write_bytes(b"\x13\x00\x00\x00" * 16)
    assert symbols(other) == [] and executable(other) == []
