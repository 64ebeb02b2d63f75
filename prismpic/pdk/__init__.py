"""The TFLN platform: materials, layers, stack, cross-sections, rules, dispersion, DRC."""

from prismpic.pdk.dispersion import coupling_per_um, eo_overlap, neff, ng

__all__ = ["neff", "ng", "eo_overlap", "coupling_per_um", "drc", "get_pdk", "LAYER"]


def __getattr__(name):
    # gdsfactory-heavy pieces load lazily so that `import prismpic.pdk` stays light.
    if name == "drc":
        from prismpic.pdk.klayout_drc import drc

        return drc
    if name == "get_pdk":
        from prismpic.pdk.pdk import get_pdk

        return get_pdk
    if name == "LAYER":
        from prismpic.pdk.layers import LAYER

        return LAYER
    raise AttributeError(name)
