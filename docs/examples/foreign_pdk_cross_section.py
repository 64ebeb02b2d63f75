"""A circuit drawn under another PDK's cross-section names, simulated with prismpic's models on a platform preset.

A foundry PDK names its waveguides its own way (Luxtelligence's lnoi400 calls its 1 µm routing rib
``xs_rwg1000``). Here a gdsfactory Mach–Zehnder interferometer is drawn under a stand-in PDK whose
``xs_rwg1000`` is gdsfactory's ``strip`` renamed (1.0 µm wide, 75 µm bend radius, as lnoi400 draws it); its
netlist is simulated with ``prismpic.pdk_registry.platform_models`` by mapping each cross-section name to a
prismpic platform (``XS_TO_PLATFORM``) and each foreign cell to a prismpic model (``CELL_TO_MODEL``; the MMI
splitters become prismpic's ideal Y-splitter, an approximation). The arms differ by ``DELTA_LENGTH_UM``, so the
fringe period is λ²/(n_g·ΔL): on the 400 nm preset n_g ≈ 2.22, on prismpic's 600 nm default ≈ 2.3.

Writes foreign_mzi.png (the spectrum on both stacks; --quick: the 400 nm preset only) into --out (default: the
current folder).
Run: python docs/examples/foreign_pdk_cross_section.py [--out DIR] [--quick]
"""

import argparse
import inspect
from functools import partial
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import gdsfactory as gf  # noqa: E402
import jax  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import sax  # noqa: E402

import prismpic  # noqa: E402, F401
from prismpic.fileio import save_figure_atomic  # noqa: E402
from prismpic.pdk.activation import activated  # noqa: E402
from prismpic.pdk_registry import platform_models  # noqa: E402

DELTA_LENGTH_UM = 200.0
XS_TO_PLATFORM = {"xs_rwg1000": "tfln400"}  # the foreign PDK's cross-section → the prismpic stack it is made on
CELL_TO_MODEL = {"straight": "straight", "bend_euler": "bend_euler", "mmi1x2": "y_splitter"}


def foreign_pdk() -> gf.Pdk:
    """gdsfactory's generic PDK with one more cross-section, named as the foreign PDK names its routing rib."""
    pdk = gf.gpdk.get_generic_pdk().model_copy(update={"name": "foreign_stand_in"})
    pdk.register_cross_sections(xs_rwg1000=partial(gf.cross_section.strip, width=1.0, radius=75.0))
    return pdk


def foreign_mzi_netlist() -> tuple[dict, dict]:
    """The MZI drawn under the foreign PDK: its netlist and {cross-section name: (width, radius) in µm}."""
    with activated(foreign_pdk()):
        splitter = partial(gf.components.mmi1x2, cross_section="xs_rwg1000")
        c = gf.components.mzi(delta_length=DELTA_LENGTH_UM, cross_section="xs_rwg1000", splitter=splitter)
        netlist = c.get_netlist()
        shapes = {name: (gf.get_cross_section(name).width, gf.get_cross_section(name).radius)
                  for name in XS_TO_PLATFORM}
    return netlist, shapes


def mapped_netlist(netlist: dict, shapes: dict, platform_of: dict | None = None) -> tuple[dict, dict]:
    """The netlist with every instance on a prismpic model of its cross-section's platform, and the models.

    Args:
        netlist: a gdsfactory netlist (``Component.get_netlist()``) whose instances name a cross-section.
        shapes: {cross-section name: (width, radius)} of the foreign PDK (µm).
        platform_of: {cross-section name: platform}; default ``XS_TO_PLATFORM``.

    Returns:
        (netlist, models) for ``sax.circuit``: instance components become ``"<model>@<platform>"``; settings the
        prismpic model has are kept, the width and radius the foreign cross-section implies are filled in.
    """
    platform_of = XS_TO_PLATFORM if platform_of is None else platform_of
    models, instances = {}, {}
    for name, inst in netlist["instances"].items():
        settings = dict(inst.get("settings", {}))
        xs = settings.pop("cross_section")
        platform, model_name = platform_of[xs], CELL_TO_MODEL[inst["component"]]
        key = f"{model_name}@{platform}"
        if key not in models:
            models[key] = platform_models(platform)[model_name]
        accepted = inspect.signature(models[key]).parameters
        width, radius = shapes[xs]
        implied = {"width": width, "radius": radius}
        kept = {k: (implied[k] if v is None and k in implied else v) for k, v in settings.items() if k in accepted}
        kept.update({k: v for k, v in implied.items() if k in accepted and k not in kept})
        instances[name] = {"component": key, "settings": {k: v for k, v in kept.items() if v is not None}}
    return {**netlist, "instances": instances}, models


def fringe_period_nm(wl_um: np.ndarray, power: np.ndarray) -> float:
    """Mean spacing (nm) of the transmission minima of a two-beam interference spectrum."""
    inner = (power[1:-1] < power[:-2]) & (power[1:-1] < power[2:])
    minima = wl_um[1:-1][inner]
    return float(np.mean(np.diff(minima)) * 1e3)


def main(quick: bool = False, out_dir: Path | None = Path(".")) -> dict:
    """The MZI's spectrum on the 400 nm preset and (not quick) on prismpic's default stack, and their fringe
    periods (nm); the figure into ``out_dir`` (None: no figure)."""
    netlist, shapes = foreign_mzi_netlist()
    wl = np.linspace(1.54, 1.56, 801 if quick else 4001)
    out = {"wl": wl, "spectra": {}, "fringe_nm": {}}
    for platform in ("tfln400",) if quick else ("tfln400", "prismpic"):
        mapped, models = mapped_netlist(netlist, shapes, {xs: platform for xs in XS_TO_PLATFORM})
        circuit, _ = sax.circuit(mapped, models)
        power = np.abs(np.asarray(jax.jit(circuit)(wl=wl)["o1", "o2"])) ** 2
        out["spectra"][platform] = power
        out["fringe_nm"][platform] = fringe_period_nm(wl, power)
    if out_dir is None:
        return out
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for platform, power in out["spectra"].items():
        ax.plot(wl * 1e3, 10 * np.log10(power + 1e-12), label=f"{platform} (fringe {out['fringe_nm'][platform]:.3g} nm)")
    ax.set_xlabel("wavelength (nm)")
    ax.set_ylabel("o1 → o2 (dB)")
    ax.set_ylim(-40, 1)
    ax.set_title(f"gdsfactory MZI on a foreign cross-section (xs_rwg1000), ΔL = {DELTA_LENGTH_UM:g} µm", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    out["path"] = save_figure_atomic(fig, Path(out_dir) / "foreign_mzi.png", dpi=120)
    plt.close(fig)
    return out


def cli(argv=None) -> dict:
    """The command line: ``--out DIR`` (default: the current folder) and ``--quick`` (small settings)."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("."), help="folder the figure is written to (default: .)")
    ap.add_argument("--quick", action="store_true", help="small settings that run in seconds")
    args = ap.parse_args(argv)
    if not args.out.is_dir():
        ap.error(f"--out {str(args.out)!r} is not an existing folder")
    return main(quick=args.quick, out_dir=args.out)


if __name__ == "__main__":
    result = cli()
    print(", ".join(f"{k}: fringe {v:.4g} nm" for k, v in result["fringe_nm"].items()), "->", result["path"])
