"""System budgets built on the circuits: link budget, detector noise and SNR, WDM crosstalk, channel plans,
energy and latency per query, PTU readout and card arithmetic, fiber-loop capacity."""
