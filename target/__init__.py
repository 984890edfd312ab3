"""What the compiler knows about the chip, apart from how anything runs.

`hardware.py`: the hardware table (one `Hardware` per chip, each figure with
its source). `units.py`: the compute units and `choose_unit`. `cost_model.py`:
the roofline estimate of one task. `scheduler.py`: the discrete-event model of
tasks on streams, events and core groups. Passes and lowering read these to
make their choices; the simulated device (runtime/sim/) reads the same ones to
report time, so the compiler's picture of the chip and the reported numbers
cannot disagree. This package imports only ge_dialect (and xDSL).
"""
