"""prismpic: physics-level modeling of TFLN photonic chips for LLM inference.

Importing prismpic enables float64 in JAX (high-Q resonances need it). It imports neither JAX nor gdsfactory:

- ``prismpic.PDK``: the gdsfactory PDK (cells, models, layers, views, stack, cross-sections), built on first
  access and not activated, where gdsfactory looks for it (``gf.get_active_pdk(name="prismpic")``);
- ``prismpic.get_pdk()``: the same PDK, activated;
- ``prismpic.activated()``: a context manager that builds prismpic cells under the prismpic platform PDK and
  activates again the user's PDK afterwards (``prismpic.pdk.activation``).
"""

import os
import sys
from importlib import metadata

# float64 in JAX without importing it (``prismpic --version`` and ``--help`` stay light): JAX reads
# JAX_ENABLE_X64 when it is first imported; if it already is, its config is set directly.
if "jax" in sys.modules:
    sys.modules["jax"].config.update("jax_enable_x64", True)
else:
    os.environ["JAX_ENABLE_X64"] = "1"

try:
    __version__ = metadata.version("prismpic")
except metadata.PackageNotFoundError:  # a source tree that is not installed
    __version__ = "0+unknown"

__all__ = ["PDK", "__version__", "activated", "get_pdk"]


def get_pdk(platform: str | None = None):
    """Return the prismpic gdsfactory PDK (activated), on a platform preset's stack when ``platform`` names one
    (``prismpic.pdk.platforms.PLATFORMS``); see ``prismpic.pdk_registry``."""
    from prismpic.pdk_registry import get_pdk as build

    return build(platform)


def __getattr__(name: str):
    # gdsfactory-heavy attributes load on first use, so that `import prismpic` stays light
    if name == "PDK":
        from prismpic.pdk_registry import build_pdk

        return build_pdk()
    if name == "activated":
        from prismpic.pdk.activation import activated

        return activated
    raise AttributeError(f"module 'prismpic' has no attribute {name!r}")
