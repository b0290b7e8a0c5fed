"""The specification: every interface of the system, declared once (docs/design.md section 4).

Plain Python (the standard library only).  The gateware (``hw``), the host
(``host``), the firmware build (``firmware``) and the docs all take their
register maps, memory map, message layouts, constants and tables from here;
``python -m slitherlink.spec.generate`` writes the C headers and the docs tables.

* :mod:`spec.registers` -- Field/Register machinery; the accelerator's, the
  UART's and the system controller's registers; the SoC memory map;
* :mod:`spec.protocol` -- the UART protocol: constants, codes, message layouts, the status
  rule;
* :mod:`spec.counters` -- the counters of each mode (models, payloads, engine registers);
* :mod:`spec.combinations` -- the paper's combination tables (Tables 1-6) and
  the firmware's option words;
* :mod:`spec.geometry` -- the framed bitboard layout shared by model and gateware;
* :mod:`spec.deduce` -- the deduction engine's state layout and its rule tables, enumerated
  from the rules (docs/deduce.md);
* :mod:`spec.uart` -- the UART's rates and divisor;
* :mod:`spec.target` -- one description of a build (board, engines, grid, clock, UART) and
  the boards' facts;
* :mod:`spec.exits` -- the exit codes of ``host/solve.py``, their names and meanings;
* :mod:`spec.generate` -- the generator of the C headers and docs tables.
"""
