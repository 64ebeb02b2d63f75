"""Device library: one module per device family, each cell beside its model."""

from prismpic.components.registry import Device, devices

__all__ = ["Device", "devices"]
