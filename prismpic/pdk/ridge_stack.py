"""``RidgeStack``: the ridge and the process stack it is etched in, as the one value the guided-wave physics takes.

Width, film, etch and wall angle are leaves of a JAX pytree (traced, differentiated and vmapped like numbers);
the cladding is static (it selects a table). Public cells and models keep gdsfactory's and SAX's keyword
arguments (``width=…, film_thickness=…``) and turn them into a ``RidgeStack`` once, with ``from_params``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import jax

from prismpic.checks import check_choice, check_range
from prismpic.pdk.stack import (
    CLADDING,
    CLADDINGS,
    ETCH_DEPTH,
    FILM_THICKNESS,
    RIDGE_WIDTH,
    SIDEWALL_ANGLE_DEG,
    check_film,
)


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True, kw_only=True)
class RidgeStack:
    """An X-cut TFLN ridge in its stack (µm; angle in degrees). Defaults: ``prismpic.pdk.stack``.

    Args:
        width: ridge top width as drawn (µm).
        film_thickness: LN film thickness (µm).
        etch_depth: ridge etch depth (µm), < film_thickness; the slab is film_thickness − etch_depth.
        sidewall_angle_deg: sidewall angle from the horizontal (degrees; 90 = vertical).
        cladding: "sio2" or "air" above the film (the buried oxide below is SiO2); static.
    """

    width: float = RIDGE_WIDTH
    film_thickness: float = FILM_THICKNESS
    etch_depth: float = ETCH_DEPTH
    sidewall_angle_deg: float = SIDEWALL_ANGLE_DEG
    cladding: str = dataclasses.field(default=CLADDING, metadata=dict(static=True))

    @classmethod
    def from_params(cls, params: Mapping) -> RidgeStack:
        """The stack named by a model's or cell's keyword arguments: the keys of ``FIELDS`` in ``params`` (others
        are the caller's: radius, gap, …), the defaults for the ones absent."""
        return cls(**{k: params[k] for k in FIELDS if k in params})

    def params(self) -> dict:
        """The keyword arguments of a cell or model that describe this stack (inverse of ``from_params``)."""
        return {k: getattr(self, k) for k in FIELDS}

    def replace(self, **changes) -> RidgeStack:
        """A copy with ``changes`` (field names as keywords)."""
        return dataclasses.replace(self, **changes)

    @property
    def slab(self):
        """Slab thickness left beside the ridge (µm)."""
        return self.film_thickness - self.etch_depth

    @property
    def etch_fraction(self):
        """Etch depth over film thickness."""
        return self.etch_depth / self.film_thickness

    def check(self) -> RidgeStack:
        """ValueError naming the field unless the stack is physical (0 < etch < film, wall 45–90°, a known
        cladding); traced values are skipped. Returns self. The tables' narrower domains are checked where
        they are read (``prismpic.pdk.dispersion``)."""
        check_range("width", self.width, 0.0, float("inf"), unit="µm", lo_open=True, hi_open=True)
        check_film(self.film_thickness, self.etch_depth)
        check_range("sidewall_angle_deg", self.sidewall_angle_deg, 45.0, 90.0, unit="°")
        check_choice("cladding", self.cladding, CLADDINGS)
        return self


FIELDS = tuple(f.name for f in dataclasses.fields(RidgeStack))
DEFAULT = RidgeStack()
