"""A test kit for SAX models and gdsfactory cells, for prismpic's devices and the user's own.

Each ``check_*`` raises ``AssertionError`` with a message naming the model and what failed,
and returns the measured figure (e.g. the largest singular value) when it passes.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from prismpic import program_cache
from prismpic.components.model_signature import cell_defaults
from prismpic.lazy_imports import sax

BAND_UM = (1.50, 1.60)


def band(n: int = 1001) -> jnp.ndarray:
    """Wavelengths (µm) spanning the test band 1.50–1.60 µm."""
    return jnp.linspace(*BAND_UM, n)


def s_matrix(sdict) -> tuple[jnp.ndarray, tuple[str, ...]]:
    """Dense S (…, n, n) of an SDict with its port order."""
    s, port_map = sax.sdense(sdict)
    ports = tuple(sorted(port_map, key=port_map.get))
    return s, ports


def model_ports(model: Callable) -> tuple[str, ...]:
    """Port names of a model, learned by calling it with its defaults (as SAX does)."""
    return tuple(sorted(sax.get_ports(model())))


def _name(model) -> str:
    return getattr(model, "__name__", repr(model))


def _call(model, wl, params):
    return model(wl=wl, **params)


def _is_number(v) -> bool:
    return isinstance(v, float | int) and not isinstance(v, bool)


def _largest_singular_value(s) -> float:
    return float(jnp.max(jnp.linalg.svd(s, compute_uv=False)))


def _assert_passive(s, model, params, tol: float) -> float:
    smax = _largest_singular_value(s)
    assert smax <= 1 + tol, f"{_name(model)}: max singular value {smax:.12g} > 1 (not passive) for {params}"
    return smax


def _assert_reciprocal(s, model, params, tol: float) -> float:
    err = float(jnp.max(jnp.abs(s - jnp.swapaxes(s, -1, -2))))
    assert err <= tol, f"{_name(model)}: max |S - S^T| = {err:.3g} (not reciprocal) for {params}"
    return err


def _assert_finite(s, model, params) -> None:
    assert bool(jnp.all(jnp.isfinite(s))), f"{_name(model)}: non-finite S for {params}"


def check_passive(model: Callable, wl=None, tol: float = 1e-9, **params) -> float:
    """Largest singular value of S over ``wl`` must be ≤ 1 + tol (passive device)."""
    wl = band(201) if wl is None else wl
    return _assert_passive(s_matrix(_call(model, wl, params))[0], model, params, tol)


def check_reciprocal(model: Callable, wl=None, tol: float = 1e-12, **params) -> float:
    """S must equal its transpose: max |S − Sᵀ| ≤ tol."""
    wl = band(201) if wl is None else wl
    return _assert_reciprocal(s_matrix(_call(model, wl, params))[0], model, params, tol)


def check_finite(model: Callable, wl=None, **params) -> None:
    """Every S entry finite over ``wl``."""
    wl = band(201) if wl is None else wl
    _assert_finite(s_matrix(_call(model, wl, params))[0], model, params)


def check_s(model: Callable, n: int = 201, *, passive: bool = True, reciprocal: bool = True,
            passive_tol: float = 1e-9, reciprocal_tol: float = 1e-12, **params) -> jnp.ndarray:
    """One evaluation of S over the band (``n`` points, 1.50–1.60 µm) held to every static check: a leading axis of
    ``n``, finite, and (where the device is so) passive and reciprocal. Returns S."""
    s, _ = s_matrix(_call(model, band(n), params))
    assert s.shape[0] == n, f"{_name(model)}: band sweep returned shape {s.shape}, expected leading {n}"
    _assert_finite(s, model, params)
    if passive:
        _assert_passive(s, model, params, passive_tol)
    if reciprocal:
        _assert_reciprocal(s, model, params, reciprocal_tol)
    return s


def check_jit(model: Callable, wl=None, tol: float = 1e-9, eager=None, **params) -> float:
    """``jax.jit`` of the model (over wl and every float parameter) matches the eager call.

    The default tolerance allows XLA's reassociation on phases of ~1e6 rad (long paths); it is relative to the
    largest |S| where that exceeds 1 (an amplifier multiplies the same phase rounding by its gain). ``eager``: the
    eager S at ``wl`` when the caller has it (``check_s``'s), so the model is not evaluated eagerly again.
    """
    wl = band(51) if wl is None else wl
    # every numeric setting traced (the given ones and the defaults): one program serves every parameter set of a
    # model with the same static settings (the persistent compilation cache then hands it to the next test)
    settings = {k: v for k, v in sax.get_settings(model).items() if k != "wl"}
    floats = {k: v for k, v in {**settings, **params}.items() if _is_number(v)}
    static = {k: v for k, v in params.items() if k not in floats}
    f = _jitted_s(model, static)
    if eager is None:
        eager, _ = s_matrix(_call(model, wl, params))
    jitted = f(jnp.asarray(wl), {k: jnp.asarray(float(v)) for k, v in floats.items()})
    err = float(jnp.max(jnp.abs(eager - jitted))) / max(1.0, float(jnp.max(jnp.abs(eager))))
    assert err <= tol, f"{_name(model)}: jit differs from eager by {err:.3g} (relative to max(1, max |S|))"
    return err


_JITTED: dict = {}  # (model, static settings) -> its jitted S: a second parameter set of a model in this process
# (a kit's extreme case after its defaults) reuses the trace


def _jitted_s(model: Callable, static: dict) -> Callable:
    """``jax.jit`` of ``wl, floats -> S`` for ``model`` with the ``static`` settings fixed (kept per model and
    static settings when they are hashable)."""

    def f(wl, floats):
        return s_matrix(model(wl=wl, **floats, **static))[0]

    try:
        key = (model, tuple(sorted(static.items())))
        hash(key)
    except TypeError:
        return jax.jit(f)
    if key not in _JITTED:
        _JITTED[key] = program_cache.reuse(f)  # inside ``program_cache.enabled()``: read back, not traced again
    return _JITTED[key]


def check_gradient(
    model: Callable, param: str, value: float, wl=None, rel_step: float = 1e-5, rtol: float = 1e-4, **params
) -> tuple[float, float]:
    """d/d``param`` of a phase-sensitive scalar of S by ``jax.grad`` vs central differences.

    The scalar is Σ Re(S · c) with fixed pseudo-random complex weights c, so that
    amplitude and phase of every entry contribute. Compiled (``check_gradients``): an eager ``jax.grad``
    compiles every primitive of the reverse pass on its own.
    """
    return check_gradients(model, {param: value}, wl, rel_step, rtol, **params)[param]


def check_gradients(
    model: Callable, values: dict[str, float], wl=None, rel_step: float = 1e-5, rtol: float = 1e-4, **params
) -> dict[str, tuple[float, float]]:
    """``check_gradient`` for several parameters at once: one jitted reverse pass gives every d/d``param`` of the
    same phase-sensitive scalar, and the same compiled program's value the central differences.

    Returns:
        {param: (autodiff, finite difference)}.
    """
    wl = jnp.linspace(1.54, 1.56, 7) if wl is None else wl
    names = tuple(values)
    x0 = jnp.asarray([float(values[n]) for n in names])
    def f(x):
        s, _ = s_matrix(model(wl=wl, **params, **dict(zip(names, x, strict=True))))
        rng = np.random.default_rng(0)  # the fixed complex weights c, made from S's shape while S is traced
        c = jnp.asarray(rng.normal(size=s.shape) + 1j * rng.normal(size=s.shape))
        return jnp.sum(jnp.real(s * c)), jnp.sum(jnp.abs(c))

    # one program for the gradient and the differences (reused across runs inside ``program_cache.enabled()``)
    value_and_grad = program_cache.reuse(jax.value_and_grad(f, has_aux=True))

    def value(x):
        return value_and_grad(x)[0][0]

    (_, c_sum), g = value_and_grad(x0)
    g, c_sum = np.asarray(g), float(c_sum)
    out = {}
    for i, name in enumerate(names):
        h = rel_step * max(abs(float(x0[i])), 1e-3)
        fd = float((value(x0.at[i].add(h)) - value(x0.at[i].add(-h))) / (2 * h))
        scale = max(abs(fd), abs(g[i]), 1e-8 * c_sum)
        assert abs(g[i] - fd) <= rtol * scale + 1e-9, (
            f"{_name(model)}: d/d{name} autodiff {g[i]:.9g} vs finite difference {fd:.9g} at {name}={float(x0[i])}"
        )
        out[name] = (float(g[i]), fd)
    return out


def check_band_sweep(model: Callable, n: int = 1001, **params) -> jnp.ndarray:
    """Sweep 1.50–1.60 µm with ``n`` points; S must be finite with a leading axis of n."""
    return check_s(model, n, passive=False, reciprocal=False, **params)


def check_model(
    model: Callable,
    *,
    passive: bool = True,
    reciprocal: bool = True,
    grad_params: dict[str, float] | None = None,
    **params,
) -> None:
    """Run the whole kit: one band sweep of 1001 points held to every static check (finite, passive, reciprocal),
    jit, gradients."""
    s = check_s(model, 1001, passive=passive, reciprocal=reciprocal, **params)
    check_jit(model, band(1001), eager=s, **params)
    if grad_params:
        check_gradients(model, grad_params, **params)


def check_cell_matches_model(cell: Callable, model: Callable, component=None) -> None:
    """The cell's optical ports equal the model's ports; shared parameters share defaults."""
    component = cell() if component is None else component
    cports = tuple(sorted(p.name for p in component.ports if p.port_type == "optical"))
    mports = model_ports(model)
    assert cports == mports, f"{_name(cell)}: cell ports {cports} != model ports {mports}"
    cdef, mdef = cell_defaults(cell), sax.get_settings(model)
    shared = sorted(set(cdef) & set(mdef))
    diff = {k: (cdef[k], mdef[k]) for k in shared if cdef[k] != mdef[k]}
    assert not diff, f"{_name(cell)}: cell and model defaults differ: {diff}"
    missing = sorted(k for k in cdef if k not in mdef)
    assert not missing, f"{_name(cell)}: cell parameters the model does not take: {missing}"
