"""cocotb bench of the band deduction engine's generated Verilog (hw.deduce.band_engine)."""
