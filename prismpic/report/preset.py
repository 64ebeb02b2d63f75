"""The report's platform preset (``pdk.platforms``): the stack each section runs on, and what cannot follow it.

``write_report(platform=NAME)`` runs every section that takes stack values on the preset's stack:

- platform: the straight ridge's n_eff, n_g and Pockels overlap solved at the preset's film, etch, wall angle and
  cladding (``platform_values``);
- ring, and what reuses its ring (crosstalk, the link budget's ring bank, noise, recall's linewidth, time domain):
  ``ring_params`` = the preset's values for ``rings.ring_add_drop_model`` under the user's ring values (they win);
- link budget (and the noise built on its received power): every stage's model on the preset's stack;
- the ring's process spread: the preset's stack as the process's nominal point (``preset_process``), prismpic's
  spreads around it;
- devices and layout: each cell built with the preset's values it accepts (``preset_settings``).

What cannot follow the preset says which and why (``*_note`` functions: a sentence, or None when the section is on
the preset): report.json holds them in ``platform_preset["not_followed"]`` by section, the page shows them on the
section. The claims ledger stays on prismpic's own stack: the seed documents' claims are about it.
Without a preset the report runs on ``DEFAULT``, prismpic's own stack, whose values are the models' defaults.
"""

from __future__ import annotations

from dataclasses import replace

from prismpic.pdk.platforms import DEVICE_DOMAINS, Platform, get_platform, outside_domains, preset_settings

DEFAULT = "prismpic"  # the preset of a report run without one: the models' own defaults
WAFER_KEYS = ("film_thickness", "etch_depth", "sidewall_angle_deg", "cladding")  # what sets a ring's index
PLATFORM_WL_UM = 1.55  # wavelength of the platform section (µm)


def report_platform(platform: str | Platform | None = None) -> Platform:
    """The preset a report runs on: ``platform``, or ``DEFAULT`` for None.

    Args:
        platform: a preset name (``pdk.platforms.platform_names()``), a ``Platform`` or None.

    Raises:
        ValueError: an unknown name, one line naming ``--platform``, the value and the valid names.
    """
    return get_platform(DEFAULT if platform is None else platform, "--platform")


def is_default(preset: Platform) -> bool:
    """Whether ``preset`` has the values of prismpic's own stack (then every section is as without a preset)."""
    return preset.settings() == get_platform(DEFAULT).settings()


def stack_text(preset: Platform) -> str:
    """The preset's stack in one phrase: film and etch (nm), wall angle (°), cladding, loss (dB/cm)."""
    return (f"{preset.film_thickness * 1e3:g} nm film, {preset.etch_depth * 1e3:g} nm etch, "
            f"{preset.sidewall_angle_deg:g}° walls, {preset.cladding} cladding, "
            + ("loss from physics" if preset.loss_db_per_cm is None else f"{preset.loss_db_per_cm:g} dB/cm"))


def record(preset: Platform) -> dict:
    """report.json's ``platform_preset``: the preset's name, description, settings and the tables outside it.

    Args:
        preset: the report's preset.

    Returns:
        {"name", "description", "settings" (µm, degrees, dB/cm; ``Platform.settings``), "default" (prismpic's own
        stack), "outside_domains" ({table kind: reason}, ``pdk.platforms.outside_domains``)}; ``write_report``
        adds "not_followed".
    """
    return {"name": preset.name, "description": preset.description, "settings": preset.settings(),
            "default": is_default(preset), "outside_domains": outside_domains(preset)}


def platform_values(preset: Platform, wl: float = PLATFORM_WL_UM) -> dict:
    """The platform section: the preset's stack, bulk indices and the straight ridge's TE0 along both in-plane
    crystal axes, solved at the preset's film, etch, wall angle and cladding.

    Args:
        preset: the report's preset.
        wl: wavelength (µm).

    Returns:
        Stack values (µm, degrees, dB/cm; ``electrode_height_um`` None for electrodes on the slab), bulk n_e and
        n_o, ``neff_te_z``/``neff_te_y``, ``ng_te_z``/``ng_te_y`` (``crystal_axis`` of the TE field,
        ``pdk.ridge_geometry.Ridge``), ``eo_overlap`` (Γ with a uniform horizontal field) and the tables that do
        not cover the preset (``outside_domains``).
    """
    from prismpic.pdk import dispersion, materials, scattering

    p = preset
    ridge = p.ridge()
    return {
        "platform": p.name,
        "description": p.description,
        "film_thickness_um": p.film_thickness,
        "etch_depth_um": p.etch_depth,
        "sidewall_angle_deg": p.sidewall_angle_deg,
        "cladding": p.cladding,
        "electrode_height_um": p.electrode_height,
        "ridge_width_um": ridge.width,
        # the ridge's loss at wl: typed, or from physics (absorption + sidewall scattering, pdk.scattering)
        "loss_db_per_cm": float(scattering.propagation_loss_db_per_cm(wl, ridge, p.loss_db_per_cm)),
        "loss_from_physics": p.loss_db_per_cm is None,
        "wl_um": wl,
        "n_e_bulk": float(materials.n_ln_e(wl)),
        "n_o_bulk": float(materials.n_ln_o(wl)),
        "neff_te_z": float(dispersion.neff(wl, ridge, crystal_axis="z")),
        "neff_te_y": float(dispersion.neff(wl, ridge, crystal_axis="y")),
        "ng_te_z": float(dispersion.ng(wl, ridge, crystal_axis="z")),
        "ng_te_y": float(dispersion.ng(wl, ridge, crystal_axis="y")),
        "eo_overlap": float(dispersion.eo_overlap(wl, ridge)),
        "outside_domains": outside_domains(p),
    }


def ring_params(preset: Platform, user_ring: dict | None = None) -> dict:
    """The report's ring: the preset's values for ``rings.ring_add_drop_model`` under the user's ring values.

    Args:
        preset: the report's preset.
        user_ring: ring model keywords from ``--params`` (µm, dB/cm, V); they win over the preset's.
    """
    from prismpic.components import rings

    return {**preset_settings(preset, rings.ring_add_drop_model), **(user_ring or {})}


def ignored_settings(preset: Platform, fn) -> dict:
    """The preset's values that ``fn`` has no parameter for, where they differ from prismpic's own stack.

    Args:
        preset: the report's preset.
        fn: a model or cell.

    Returns:
        {parameter: the preset's value}: what ``fn`` cannot follow (empty on prismpic's own stack).
    """
    taken = preset_settings(preset, fn)
    default = get_platform(DEFAULT).settings()
    return {k: v for k, v in preset.settings().items() if k not in taken and v != default[k]}


def ring_note(preset: Platform, user_ring: dict | None = None) -> str | None:
    """Why the ring (and what reuses it) is not wholly on the preset, or None: the preset's values the ring model
    has no parameter for, and the user's ring values that replace the preset's."""
    from prismpic.components import rings

    parts = []
    ignored = ignored_settings(preset, rings.ring_add_drop_model)
    if ignored:
        parts.append(f"rings.ring_add_drop_model has no parameter for {ignored}")
    overridden = {k: v for k, v in (user_ring or {}).items() if k in preset.settings() and v != preset.settings()[k]}
    if overridden and not is_default(preset):
        parts.append(f"the --params ring values {overridden} replace the preset's")
    return "; ".join(filter(None, parts)) or None


def preset_process(preset: Platform):
    """prismpic's process description (``pdk.process.DEFAULT_PROCESS``: spreads, ranges, sources) with the preset's
    film, etch, wall angle and cladding as its nominal point (``Process.on_stack``).

    Raises:
        ValueError: a preset value outside the process's range (the dispersion tables').
    """
    from prismpic.pdk.process import DEFAULT_PROCESS

    return DEFAULT_PROCESS.on_stack(preset.ridge())


def process_refusals(preset: Platform, process) -> dict[str, str]:
    """The process corners whose stack the device tables (ring, bend, coupler) do not cover.

    Args:
        preset: the report's preset.
        process: its ``preset_process``.

    Returns:
        {corner name: "kind: reason"} (``outside_domains`` of the preset moved to the corner); empty when every
        corner is inside.
    """
    found = {}
    for name, values in process.corners().items():
        moved = replace(preset, **{k: values[k] for k in WAFER_KEYS})
        out = {kind: why for kind, why in outside_domains(moved).items() if kind in DEVICE_DOMAINS}
        if out:
            found[name] = "; ".join(f"{kind}: {why}" for kind, why in out.items())
    return found


def process_note(preset: Platform, refusals: dict[str, str], error: str | None = None) -> str | None:
    """Why the ring's process spread is not shown on the preset (None when it is).

    Args:
        preset: the report's preset.
        refusals: ``process_refusals``' corners outside the device tables.
        error: the models' refusal of a Monte Carlo draw or corner, where they raised.
    """
    if refusals:
        where = "±3σ corners leave the device tables: " + "; ".join(f"{name} ({why})" for name, why in refusals.items())
    elif error is not None:
        where = f"a process point leaves the models' tables ({error})"
    else:
        return None
    return (f"process spread not computed on {preset.name}: around its stack, with prismpic's spreads "
            f"(pdk/process.py), {where}; the models refuse such a stack rather than extrapolate")


def layout_note(preset: Platform, cell) -> str | None:
    """Why the layout's cell is not drawn on the preset's stack (None when it is).

    Args:
        preset: the report's preset.
        cell: the cell drawn (``circuits.prototype.prototype``).
    """
    missing = {k: v for k, v in ignored_settings(preset, cell).items() if k in WAFER_KEYS}
    if not missing:
        return None
    return (f"the {cell.__name__} cell takes no {', '.join(missing)}: its rings' radii are planned on prismpic's "
            f"own stack ({stack_text(get_platform(DEFAULT))}), not on {preset.name}'s")


def energy_note(preset: Platform) -> str | None:
    """The energy section takes no stack values (None on prismpic's stack)."""
    if is_default(preset):
        return None
    return ("takes no stack values: the energy per query and the PTU card come from typed parameters "
            "(analysis.system.energy.PrismEnergyParams: ring capacitance and voltage, laser power, converter "
            f"figures of merit), the same on every preset, {preset.name} included")


def claims_note(preset: Platform) -> str | None:
    """The claims ledger stays on prismpic's own stack (None on prismpic's stack)."""
    if is_default(preset):
        return None
    return (f"judged on prismpic's own stack ({stack_text(get_platform(DEFAULT))}), not on {preset.name}: the seed "
            "documents' claims are about prismpic's design; the ledger recomputes the ring, crosstalk and link "
            "budget there (with the --params ring values)")
