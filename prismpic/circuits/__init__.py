"""Compositions of devices: layout, netlist simulation and structured fast models."""
