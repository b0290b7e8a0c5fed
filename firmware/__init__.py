"""The SoC's C firmware (sources in ``firmware/src``) and its build (:mod:`firmware.build`)."""
