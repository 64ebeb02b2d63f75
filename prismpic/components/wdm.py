"""(placeholder: device family not built yet)."""

DEVICES: dict = {}
