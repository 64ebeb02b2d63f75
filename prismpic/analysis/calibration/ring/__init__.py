"""Ring calibration's stages: the jitted model, line shape and instrument, start, physical fit, solutions,
result, and the two entry points (specs, spectrum) with the calibration figure."""
