"""INTERIM placeholder for the compact dispersion model (being replaced by the mode-solver fit).

Signatures are final; numbers are a rough linear stand-in so that other modules can be
developed. Do not rely on the values.
"""

from __future__ import annotations

import jax.numpy as jnp


def neff(wl=1.55, width=1.4, film_thickness=0.6, etch_depth=0.3, radius=jnp.inf, polarization="te", crystal_axis="z"):
    """Effective index of the ridge's fundamental mode (INTERIM)."""
    wl = jnp.asarray(wl, dtype=float)
    base = 1.88 if crystal_axis == "z" else 1.93
    return base - 0.35 * (wl - 1.55) + 0.05 * (width - 1.4) + 0.3 * (film_thickness - 0.6) - 0.05 * (etch_depth - 0.3)


def ng(wl=1.55, width=1.4, film_thickness=0.6, etch_depth=0.3, radius=jnp.inf, polarization="te", crystal_axis="z"):
    """Group index n_g = n_eff − λ ∂n_eff/∂λ (INTERIM)."""
    return neff(wl, width, film_thickness, etch_depth, radius, polarization, crystal_axis) + 0.35 * jnp.asarray(wl, dtype=float)


def eo_overlap(wl=1.55, width=1.4, film_thickness=0.6, etch_depth=0.3):
    """Overlap Γ of the TE mode with a uniform in-plane field in the LN (INTERIM)."""
    return 0.7 + 0.0 * jnp.asarray(wl, dtype=float)


def coupling_per_um(wl=1.55, gap=0.25, width=1.4, film_thickness=0.6, etch_depth=0.3):
    """Coupling coefficient C = π Δn / λ (1/µm) of two parallel identical ridges (INTERIM)."""
    return 0.02 * jnp.exp(-(jnp.asarray(gap, dtype=float) - 0.25) / 0.15) + 0.0 * jnp.asarray(wl, dtype=float)


def bend_loss_db_per_cm(wl=1.55, radius=20.0, width=1.4, film_thickness=0.6, etch_depth=0.3):
    """Bend radiation loss (dB/cm) (INTERIM)."""
    return 10.0 * jnp.exp(-(jnp.asarray(radius, dtype=float) - 10.0) / 5.0) + 0.0 * jnp.asarray(wl, dtype=float)
