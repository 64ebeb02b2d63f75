"""The prepared bank (``bank_model.prepare_bank`` + ``bank_state``) against the column path, finite differences, chunks."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from prismpic.circuits import bank_layout, bank_model, bank_state

D = 3
WL = jnp.linspace(1.545, 1.555, 201)  # 10 nm > one FSR (≈ 8 nm): every ring resonates in the band
RADII = jnp.array([20.0, 20.0037, 20.0071])  # µm, off the half-nm grid ties of the drop-bus jogs
PER_CHANNEL = jnp.stack([RADII, RADII[::-1] + 0.002])  # unequal per channel: the drop-bus jogs differ
READOUT = (0.9 * jnp.exp(2j * WL), 0.8 * jnp.exp(-1j * WL))  # through, drop: any passive factors


@pytest.fixture(scope="module")
def shared():
    return bank_model.prepare_bank(WL, RADII)


@pytest.fixture(scope="module")
def per_channel():
    return bank_model.prepare_bank(WL, PER_CHANNEL, readout=READOUT)


@pytest.fixture(scope="module")
def inputs():
    rng = np.random.default_rng(7)
    return (jnp.asarray(rng.uniform(-20, 20, (2, D))), jnp.asarray(rng.uniform(-3, 3, (2, D))),
            jnp.asarray(rng.uniform(0, 1e-3, WL.shape)))


def column_path(wl, radii, v, t, ring_spacing=bank_model.RING_SPACING, **ring):
    """The path ``sax.circuit`` verifies (test_prism_bank): jitted ring columns, two-division star products."""
    cols, sp = jax.jit(lambda w, r: (bank_model.ring_columns(w, r, **ring),
                                     bank_model.spacer_transmissions(w, ring_spacing, ring, r)))(wl, radii)
    return jax.vmap(lambda vv, tt: bank_model.fields_from_columns(cols, sp, vv, tt))(v, t)


def test_prepared_fields_equal_the_column_path(shared, per_channel, inputs):
    v, t, _ = inputs
    ref = column_path(WL, RADII, v, t)
    got = bank_state.bank_fields(shared, v, t)
    for a, b in zip(got, ref, strict=True):
        assert float(jnp.max(jnp.abs(b))) > 0.5  # resonances are sampled
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
    got = bank_state.bank_fields(per_channel, v, t)
    for k in range(2):
        d, th = column_path(WL, PER_CHANNEL[k], v[k:k + 1], t[k:k + 1])
        np.testing.assert_allclose(got[0][k], d[0] * READOUT[1], rtol=0, atol=1e-12)
        np.testing.assert_allclose(got[1][k], th[0] * READOUT[0], rtol=0, atol=1e-12)


def test_currents_are_the_weighted_detector_powers(per_channel, inputs):
    v, t, p = inputs
    e_drop, e_thr = (np.asarray(x) for x in bank_state.bank_fields(per_channel, v, t))
    want = 0.95 * np.sum(np.asarray(p) * (np.abs(e_drop) ** 2 - np.abs(e_thr) ** 2), axis=-1)
    np.testing.assert_allclose(bank_state.balanced_currents_a(per_channel, p, v, t), want, rtol=1e-10, atol=1e-18)
    np.testing.assert_allclose(bank_state.balanced_currents_a(per_channel, jnp.stack([p, 2 * p]), v, t),
                               want * np.array([1, 2]), rtol=1e-10, atol=1e-18)


def test_old_functions_are_wrappers_of_the_state(shared, inputs):
    v, t, p = inputs
    np.testing.assert_array_equal(bank_model.bank_fields(WL, RADII, v, t)[0], bank_state.bank_fields(shared, v, t)[0])
    np.testing.assert_allclose(bank_model.balanced_currents_a(p, WL, RADII, v, delta_t_k=t),
                               bank_state.balanced_currents_a(shared, p, v, t), rtol=1e-12, atol=1e-18)


def test_chunked_equals_unchunked(shared, inputs):
    v, t, p = inputs
    blocks = dataclasses.replace(shared, wl_block=16)  # 13 blocks, the last one padded
    assert bank_state.block_plan(WL.size, 2 * D, 16) == (13, 16)
    for a, b in zip(bank_state.bank_fields(blocks, v, t), bank_state.bank_fields(shared, v, t), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(bank_state.balanced_currents_a(blocks, p, v, t),
                               bank_state.balanced_currents_a(shared, p, v, t), rtol=1e-13, atol=1e-19)

    def grad(state):
        return jax.grad(lambda x: jnp.sum(bank_state.balanced_currents_a(state, p, x, t) * jnp.array([1.0, -1.0])))(v)

    np.testing.assert_allclose(grad(blocks), grad(shared), rtol=1e-12, atol=1e-18)


def test_blocks_bound_the_gradients_memory(shared):
    n = 256
    v, p = jnp.zeros((n, D)), jnp.full(WL.shape, 1e-4)

    def temp_bytes(state):
        g = jax.jit(jax.grad(lambda s, x: jnp.sum(bank_state.balanced_currents_a(s, p, x)), argnums=1))
        return g.lower(state, v).compile().memory_analysis().temp_size_in_bytes

    whole = temp_bytes(shared)
    chunked = temp_bytes(dataclasses.replace(shared, wl_block=10))
    assert whole > 64 * n * D * WL.size  # the reverse sweep keeps (T, T', R', s) per ring: 4 complex
    assert chunked < whole / 8
    assert bank_state.block_plan(10_001, 1024 * 32) == (10, 1001)  # 10,001 wavelengths: blocks, not memory


def test_gradients_match_finite_differences(shared, inputs):
    v, t, p = inputs
    c = jnp.array([1.0, -0.7])

    def obj(x, y):
        return jnp.sum(c * bank_state.balanced_currents_a(shared, p, x, y))

    gv, gt = jax.grad(obj, argnums=(0, 1))(v, t)
    def central(arg, k, h):
        e = jnp.zeros_like(v).at[k].set(h)
        args_p, args_m = [v, t], [v, t]
        args_p[arg], args_m[arg] = args_p[arg] + e, args_m[arg] - e
        return (obj(*args_p) - obj(*args_m)) / (2 * h)

    # 1e-3 V (K): the currents change on a scale of volts (90 V per linewidth), so the central difference's h² term
    # is ≈ 1e-8 relative there, while below 1e-4 the rounding of the summed currents (≈ 2e-2 A) reaches 1e-5 relative
    h = 1e-3
    for g, arg in ((gv, 0), (gt, 1)):
        for k in [(0, 0), (1, 2)]:
            fd = central(arg, k, h)
            assert abs(float(g[k])) > 1e-9  # the channels' resonances move the currents
            assert float(g[k]) == pytest.approx(float(fd), rel=1e-5, abs=1e-12)


def test_hand_written_sweep_equals_autodiff_for_every_input(per_channel, inputs):
    v, t, p = inputs
    c = jnp.array([0.3, -1.0])

    def by_fields(s, x, y, q):  # autodiff through the plain cascade
        e_d, e_t = bank_state.bank_fields(s, x, y)
        return jnp.sum(c * 0.95 * jnp.sum(q * (jnp.abs(e_d) ** 2 - jnp.abs(e_t) ** 2), axis=-1))

    def by_currents(s, x, y, q):
        return jnp.sum(c * bank_state.balanced_currents_a(s, q, x, y))

    got = jax.grad(by_currents, argnums=(0, 1, 2, 3))(per_channel, v, t, p)
    want = jax.grad(by_fields, argnums=(0, 1, 2, 3))(per_channel, v, t, p)
    for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9 * float(jnp.max(jnp.abs(b))))


def test_jit_from_scratch(shared, inputs):
    # a plan no other test uses: its radii, the row's layout and every compile happen inside this trace
    kw = dict(d=2, spacing_nm=1.9, ring_spacing=11.0)
    v = jnp.array([[3.0, -4.0]])
    e_drop, e_thr = jax.jit(lambda x: bank_layout.prism_bank_fields(WL, x, **kw))(v)
    again = bank_layout.prism_bank_fields(WL, v, **kw)
    # compiled apart (the state a constant, then an argument): FMA contraction may move the ~10³ rad phase by
    # an ulp (1e-13 rad), which a resonance turns into ~1e-11 of field
    np.testing.assert_allclose(e_drop, again[0], rtol=0, atol=1e-10)
    np.testing.assert_allclose(e_thr, again[1], rtol=0, atol=1e-10)
    assert float(jnp.max(jnp.abs(e_drop))) > 0.5
    # preparing inside the trace: the state is traced
    v, t, p = inputs
    traced = jax.jit(lambda w, x: bank_state.balanced_currents_a(bank_model.prepare_bank(w, RADII), p, x, t))(WL, v)
    np.testing.assert_allclose(traced, bank_state.balanced_currents_a(shared, p, v, t), rtol=1e-9, atol=1e-18)


@pytest.mark.parametrize("call, match", [
    (lambda s: bank_state.bank_fields(s, jnp.zeros((2, D + 1))), r"voltages has shape \(2, 4\); expected"),
    (lambda s: bank_state.bank_fields(s, jnp.full((1, D), 250.0)), r"voltages = .* outside the valid range"),
    (lambda s: bank_state.bank_fields(s, jnp.zeros((2, D)), jnp.zeros(5)), r"delta_t_k has shape \(5,\)"),
    (lambda s: bank_state.bank_fields(s, jnp.zeros((2, D)), 400.0), r"delta_t_k = .* \[-150, 300\] K"),
    (lambda s: bank_state.balanced_currents_a(s, jnp.ones(3), jnp.zeros((2, D))), r"powers_w has shape \(3,\)"),
    (lambda s: bank_state.balanced_currents_a(s, -jnp.ones(WL.size), jnp.zeros((2, D))), r"powers_w = .* \[0, 10\]"),
])
def test_bad_per_call_input(shared, call, match):
    with pytest.raises(ValueError, match=match):
        call(shared)


@pytest.mark.parametrize("kw, match", [
    ({"wl_block": 0}, r"wl_block = 0 must be an integer ≥ 1"),
    ({"readout": (1.0,)}, r"readout has 1 entries"),
    ({"ring_spacing": -1.0}, r"ring_spacing = -1 .* \[0, 10000\] µm"),
    ({"wl": jnp.ones((2, 2))}, r"wl has shape \(2, 2\)"),
    ({"radii": jnp.full(3, 5.0)}, r"radii = .* outside the valid range"),
])
def test_bad_prepare_input(kw, match):
    args = {"wl": WL, "radii": RADII, **kw}
    with pytest.raises(ValueError, match=match):
        bank_model.prepare_bank(**args)


def test_a_misspelt_ring_keyword_is_refused_under_a_trace():
    """Traced radii skip the value checks, never the names: a misspelt ring keyword is a ValueError naming it
    (the bank once filtered its keywords through key lists and dropped it silently)."""
    wl = jnp.linspace(1.549, 1.551, 3)
    radii = jnp.asarray(bank_model.bank_radii(bank_model.channel_plan_um(2)))
    volts = jnp.zeros((1, 2))
    with pytest.raises(ValueError, match="gapp"):
        jax.jit(lambda r: bank_model.bank_fields(wl, r, volts, gapp=0.3))(radii)
    with pytest.raises(ValueError, match="gapp"):
        jax.jit(lambda r: bank_model.ring_columns(wl, r, gapp=0.3))(radii)
