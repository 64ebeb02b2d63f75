"""The TFLN platform: materials, layers, stack, cross-sections, rules, dispersion, DRC."""

__all__ = ["neff", "ng", "eo_overlap", "coupling_per_um", "drc", "LAYER"]


def __getattr__(name):
    # JAX- and gdsfactory-heavy pieces load lazily so that `import prismpic.pdk` (and its stack constants) stays light.
    if name in ("neff", "ng", "eo_overlap", "coupling_per_um"):
        from prismpic.pdk import dispersion

        return getattr(dispersion, name)
    if name == "drc":
        from prismpic.pdk.klayout_drc import drc

        return drc
    if name == "LAYER":
        from prismpic.pdk.layers import LAYER

        return LAYER
    raise AttributeError(name)
