"""What the firmware's tools read of its 32-bit little-endian ELF: the section headers, the
executable sections' bytes and the symbol table (the build's end of ``.bss``, the stack
bound's functions, the profile's function spans)."""

import struct
from pathlib import Path

__all__ = ["FUNCTION", "executable", "symbol", "symbols"]

#: The ELF symbol type of a function (:func:`symbols`' ``kind``).
FUNCTION = 2

_SHT_PROGBITS, _SHT_SYMTAB, _SHF_EXECINSTR = 1, 2, 0x4


def _sections(elf):
    """``(data, headers)``: the file's bytes and its section headers, each ``(name, type,
    flags, address, offset, size, link, info, addralign, entsize)``; no headers for a file
    that is not a 32-bit ELF."""
    data = Path(elf).read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 1:
        return data, []
    shoff, = struct.unpack_from("<I", data, 0x20)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x2E)
    return data, [struct.unpack_from("<IIIIIIIIII", data, shoff + i * shentsize)
                  for i in range(shnum)]


def executable(elf):
    """``[(address, bytes)]`` of the ELF's executable sections."""
    data, headers = _sections(elf)
    return [(address, data[offset:offset + size])
            for _, kind, flags, address, offset, size, *_ in headers
            if kind == _SHT_PROGBITS and flags & _SHF_EXECINSTR]


def symbols(elf):
    """``[(name, address, size, kind)]`` of the ELF's symbol table (``kind``: the ELF symbol
    type, :data:`FUNCTION` for a function); ``[]`` for a file that is not a 32-bit ELF."""
    data, headers = _sections(elf)
    found = []
    for header in headers:
        if header[1] == _SHT_SYMTAB:
            strings = headers[header[6]][4]
            for off in range(header[4], header[4] + header[5], 16):
                st_name, st_value, st_size, st_info = struct.unpack_from("<IIIB", data, off)
                start = strings + st_name
                found.append((data[start:data.index(b"\0", start)].decode(), st_value,
                              st_size, st_info & 15))
    return found


def symbol(elf, name):
    """Address of symbol ``name`` in the ELF's symbol table, or None."""
    return next((address for found, address, _, _ in symbols(elf) if found == name), None)
