"""The TFLN platform: materials, layers, stack, cross-sections, rules, dispersion, DRC."""

from prismpic.pdk.dispersion import coupling_per_um, eo_overlap, neff, ng

__all__ = ["neff", "ng", "eo_overlap", "coupling_per_um", "drc", "LAYER"]


def __getattr__(name):
    # gdsfactory-heavy pieces load lazily so that `import prismpic.pdk` stays light.
    if name == "drc":
        from prismpic.pdk.klayout_drc import drc

        return drc
    if name == "LAYER":
        from prismpic.pdk.layers import LAYER

        return LAYER
    raise AttributeError(name)
