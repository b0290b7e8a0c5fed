"""Golden models, in plain Python: the paper's search (:mod:`model.paper`) and the deduction
engine (:mod:`model.deduce`).  The gateware and the firmware are tested against them; the host's
``model`` and ``deduce`` engines and the fake device run them."""
