"""cocotb benches of the whole SoC (hw/soc.py) driven through its UART pins."""
