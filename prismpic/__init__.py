"""prismpic: physics-level modeling of TFLN photonic chips for LLM inference.

Importing prismpic enables float64 in JAX (high-Q resonances need it).
"""

import jax

jax.config.update("jax_enable_x64", True)

__version__ = "0.1.0"


def get_pdk():
    """Return the prismpic gdsfactory PDK (activated); see ``prismpic.pdk_registry``."""
    from prismpic.pdk_registry import get_pdk as build

    return build()
