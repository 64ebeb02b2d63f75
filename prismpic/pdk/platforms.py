"""Platform presets: named process stacks whose values the models and cells take as keyword arguments.

A platform fixes the stack a design is made on (film, etch, sidewall angle, cladding, propagation loss, where the
electro-optic electrodes sit);
``preset_settings(platform, fn)`` gives the values a function accepts, so ``fn(**preset_settings("tfln400",
fn), **mine)`` runs on that stack with the caller's values winning. ``prismpic.pdk_registry.platform_models``
gives every PDK model with a preset's values as defaults (for ``sax.circuit``), ``platform_cells`` every cell (the
cells whose geometry follows from the stack, such as a bank's ring radii, take its values), and
``get_pdk(platform=NAME)`` a PDK of both; the commands take ``--platform NAME`` (or ``--set platform=NAME``).

Light: importing this module imports neither gdsfactory nor JAX (``outside_domains`` reads the tables when
called).
"""

from __future__ import annotations

import inspect
from dataclasses import asdict, dataclass

from prismpic.pdk import stack

# the keyword parameters a preset sets, where a function accepts them
STACK_KEYS = ("film_thickness", "etch_depth", "sidewall_angle_deg", "cladding", "loss_db_per_cm", "electrode_height")
# the dispersion tables a platform's TE devices read (straights, bends, rings, couplers); TM is reported apart
DEVICE_DOMAINS = ("te", "bend", "coupler")


@dataclass(frozen=True)
class Platform:
    """A named stack (X-cut LN film on oxide).

    Args:
        name: the preset's name (``--platform NAME``).
        description: one line: what the stack is and where its values come from.
        film_thickness: LN film thickness (µm).
        etch_depth: ridge etch depth (µm); the slab left is ``film_thickness - etch_depth``.
        sidewall_angle_deg: ridge wall angle from the horizontal (degrees; 90 = vertical).
        cladding: material above the ridge, ``"sio2"`` or ``"air"``.
        loss_db_per_cm: propagation loss of the ridge (dB/cm); None: from physics (``pdk.scattering``).
        electrode_height: where the Pockels electrodes of phase shifters and modulators sit: None on the slab beside
            the ridge, else the metal bottom's height above the film top (µm), on the cladding
            (``pdk.electrodes``).
    """

    name: str
    description: str
    film_thickness: float
    etch_depth: float
    sidewall_angle_deg: float
    cladding: str
    loss_db_per_cm: float | None
    electrode_height: float | None = None

    def ridge(self, width: float = stack.RIDGE_WIDTH):
        """The preset's stack around a ridge of top ``width`` (µm) as a ``RidgeStack``."""
        from prismpic.pdk.ridge_stack import RidgeStack

        return RidgeStack(width=width, film_thickness=self.film_thickness, etch_depth=self.etch_depth,
                          sidewall_angle_deg=self.sidewall_angle_deg, cladding=self.cladding)

    def settings(self) -> dict:
        """The preset's keyword values ({parameter: value}, the keys of ``STACK_KEYS``; µm, degrees, dB/cm, µm)."""
        values = asdict(self)
        return {k: values[k] for k in STACK_KEYS}


PLATFORMS = {
    p.name: p
    for p in (
        # prismpic's own stack: the defaults of pdk/stack.py (their sources are there)
        Platform(
            name="prismpic",
            description="prismpic default: 600 nm X-cut film, 350 nm etch (pdk/stack.py)",
            film_thickness=stack.FILM_THICKNESS,
            etch_depth=stack.ETCH_DEPTH,
            sidewall_angle_deg=stack.SIDEWALL_ANGLE_DEG,
            cladding=stack.CLADDING,
            loss_db_per_cm=stack.LOSS_DB_PER_CM,
            electrode_height=None,  # electrodes on the slab beside the ridge (pdk/electrodes.py)
        ),
        # A 400 nm-film foundry-like stack, from Luxtelligence's public LNOI400 descriptions. It is not the
        # foundry's PDK: its design manual is not public, and prismpic models its own devices on this stack.
        Platform(
            name="tfln400",
            description="400 nm X-cut film, 200 nm rib etch, SiO2-clad: public LNOI400 (Luxtelligence) values",
            # µm: ridge 200 nm on a 200 nm slab (ridge_thickness, slab_thickness in lnoi400/tech.py of the
            # open-source gdsfactory PDK github.com/Luxtelligence/lxt_pdk_gf; PhotonForge's
            # luxtelligence-lnoi400-forge: ln_thickness 0.4, slab_thickness 0.2). X-cut: PhotonForge gives
            # the LN medium an in-plane optic axis (optical_axis=1).
            film_thickness=0.4,
            etch_depth=0.2,  # µm, film − slab = 0.4 − 0.2 (same sources)
            # 13.5° from the vertical (luxtelligence-lnoi400-forge, sidewall_angle=13.5; the gdsfactory
            # layer stack rounds it to 13°): 90 − 13.5 = 76.5° from the horizontal
            sidewall_angle_deg=90.0 - 13.5,
            # SiO2, 2 µm thick (thickness_clad in lnoi400/tech.py); prismpic's tables treat the cladding
            # as a half-space, so its thickness does not enter the models
            cladding="sio2",
            # from physics: the default roughness is calibrated on this stack's xs_rwg1000 rib (1.0 µm) so that it
            # shows the foundry's loss there, 2e-5 dB/µm = 0.2 dB/cm (lnoi400/models.py; REFERENCES.md: "0.2 dB/cm,
            # Luxtelligence lnoi400 PDK"; pdk.scattering), and other widths follow the walls' scattering
            loss_db_per_cm=None,
            # µm: the metal layer's bottom 1.0 µm above the LN film top, on the cladding (lnoi400/tech.py's layer
            # stack; docs/published_checks.md row 2, where the foundry's modulator is compared)
            electrode_height=1.0,
        ),
    )
}


def platform_names() -> list[str]:
    """The names of the presets, sorted."""
    return sorted(PLATFORMS)


def get_platform(platform: str | Platform, option: str = "platform") -> Platform:
    """The preset named ``platform`` (a ``Platform`` is returned as it is).

    Args:
        platform: a preset name (``platform_names()``) or a ``Platform``.
        option: how the caller names the input in errors (``--platform``, ``--set platform``).

    Raises:
        ValueError: ``platform`` names no preset (the message lists the names that exist).
    """
    if isinstance(platform, Platform):
        return platform
    if isinstance(platform, str) and platform in PLATFORMS:
        return PLATFORMS[platform]
    raise ValueError(f"{option} = {platform!r} is not a platform preset; valid: {platform_names()}")


def preset_settings(platform: str | Platform, fn) -> dict:
    """The preset's values for the keyword parameters ``fn`` accepts.

    Args:
        platform: a preset name or a ``Platform``.
        fn: a cell, a SAX model or any function (a ``functools.partial`` too); ``**kwargs`` does not count.

    Returns:
        {parameter: value} for the ``STACK_KEYS`` that ``fn`` has as named parameters (µm, degrees, dB/cm).
    """
    return accepted_settings(fn, get_platform(platform).settings())


def accepted_settings(fn, values: dict) -> dict:
    """The entries of ``values`` that ``fn`` takes as named keyword parameters (``**kwargs`` does not count)."""
    params = inspect.signature(fn).parameters
    named = {k for k, p in params.items() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    return {k: v for k, v in values.items() if k in named}


def outside_domains(platform: str | Platform) -> dict[str, str]:
    """The dispersion tables (``dispersion.domain()`` kinds) that do not cover the preset, with the reason.

    Args:
        platform: a preset name or a ``Platform``.

    Returns:
        {table kind: "film_thickness = 0.4 µm outside [0.5, 0.7]", ...}; empty when every table covers it.
        A model on a table listed here refuses the preset (``ValueError``) instead of extrapolating.
    """
    from prismpic.pdk import dispersion

    p = get_platform(platform)
    found = {}
    for kind, d in dispersion.domain().items():
        frac = p.etch_depth / p.film_thickness
        checks = (("film_thickness", p.film_thickness, d["film"], " µm"),
                  ("etch_depth / film_thickness", frac, d["etch_fraction"], ""),
                  ("sidewall_angle_deg", p.sidewall_angle_deg, d["angle"], "°"))
        for name, value, (lo, hi), unit in checks:
            if not lo - 1e-9 <= value <= hi + 1e-9:
                found[kind] = f"{name} = {value:g}{unit} outside [{lo:g}, {hi:g}]"
                break
        else:
            if p.cladding not in stack.CLADDINGS:
                found[kind] = f"cladding = {p.cladding!r} not in {list(stack.CLADDINGS)}"
    return found
