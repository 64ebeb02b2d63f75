"""Analyses built on the circuits, in rooms by subject: ``spectra`` (a measured or simulated spectrum read),
``calibration`` (device parameters from measurements), ``recall`` (top-k recall under impairments),
``system`` (link, noise, crosstalk, channel plan, energy, readout), ``ledger`` (the seeds' claims judged);
``sweep`` (vectorised parameter sweeps), ``measurements`` (measured files in), ``process_spread`` (a ring
over the process corners)."""
