"""cocotb bench of the deduction engine's generated Verilog (hw.deduce.engine.DeduceEngine)."""
