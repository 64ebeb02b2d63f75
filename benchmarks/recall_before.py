# Baseline for benchmarks/bench_recall.py: prismpic/analysis/recall/monte_carlo.py as of commit 931ee77 (before issue 12),
# verbatim (git show 931ee77:prismpic/analysis/recall/monte_carlo.py), so that one run times the old and the new code.
"""Monte Carlo of PRISM's photonic top-k block selection under impairments (JAX).

One trial: a bank of n_blocks signatures w (n_blocks, d) and a query sketch x (d,), both
in [-1, 1] (see ``signatures.py`` for the scaling), give the ideal normalised readings
s_c = (1/d)·Σᵢ w_ci·xᵢ (float64). The photonic readings apply, in this order:

1. weight quantization: w → uniform quantizer with 2^bits levels over [-1, 1]
   (step 2/(2^bits − 1), ±1 are levels);
2. ring errors (only when drift or fabrication σ > 0): the programmed weight becomes a
   detuning δ = detuning_of_weight(w); the ring actually sits at δ + ε with ε the sum of
   thermal drift N(0, σ_drift²) and the fabrication residual e − clip(e, −R, R),
   e ~ N(0, σ_fab²), R = trim tuning (pm/V) × V_max (what trimming cannot reach remains);
   the weight becomes weight_of_detuning(δ + ε). Every ring draws its own ε per trial.
   Default transfer: a lossless symmetric add-drop ring in the Lorentzian approximation,
   D = 1/(1 + (2δ/FWHM)²), T = 1 − D, w = D − T = 2D − 1 (FWHM 0.155 nm, Q ≈ 10⁴ at
   1550 nm, seed S1-10); w → −1 needs δ → ∞, so δ is capped at ``max_detuning_nm``
   (default FSR/2 = 4.15 nm for the seed's 8.3 nm FSR, where w = −0.9993);
3. query DAC quantization of x (same quantizer, ``dac_bits``);
4. WDM crosstalk: ring i reads (X x)ᵢ instead of xᵢ, X a (d, d) matrix;
5. splitter-tree insertion-loss nonuniformity: channel c's reading × 10^(g_c/10),
   g_c ~ N(0, σ_gain²) dB;
6. detector noise: + N(0, σ_rel²), σ_rel the RMS noise current over the full-scale
   difference current (``noise.NoiseBudget.relative_noise``) or 10^(−SNR_dB/20).

recall@k = |top-k(photonic) ∩ top-k(ideal)| / k. The mean over trials gets a 95 %
percentile-bootstrap confidence interval over trials (2000 resamples, fixed seed),
which respects the correlation of the k hits within a trial.

Randomness: trial t uses the key fold_in(key, t) and each impairment its own
fold_in(trial key, j), so results do not depend on how trials are batched or sharded,
and switching one impairment on or off leaves the others' draws unchanged (common random
numbers make strength sweeps smooth). Trials are vmapped and sharded over a 1-D mesh of
``jax.devices()`` (``NamedSharding`` of the trial axis; jit follows the data).
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

import prismpic  # noqa: F401  (float64)
from prismpic.checks import check_nonnegative, check_positive, check_range
from prismpic.components.lineshapes import lorentzian

FWHM_NM = 0.155  # ring linewidth, Q = λ/FWHM ≈ 1e4 at 1550 nm (seed S1-10)
MAX_DETUNING_NM = 4.15  # FSR/2 of the seed's 8.3 nm FSR (S1-10)
TRIM_PM_PER_V = 5.0  # measured TFLN MRR EO tuning ≈ 3–7 pm/V (REFERENCES.md, arXiv 1807.06531)


def quantize(x, bits):
    """Uniform quantizer with 2^bits levels over [-1, 1] (±1 included); x is clipped."""
    steps = 2.0**bits - 1.0
    return jnp.round((jnp.clip(x, -1.0, 1.0) + 1.0) * 0.5 * steps) / steps * 2.0 - 1.0


def lorentzian_weight(detuning_nm, fwhm_nm=FWHM_NM):
    """Balanced weight w = D − T = 2D − 1 of a lossless symmetric add-drop ring,
    D = 1/(1 + (2δ/FWHM)²) (Lorentzian near resonance)."""
    return 2.0 * lorentzian(detuning_nm, fwhm_nm) - 1.0  # ×2 is exact in floating point


def lorentzian_detuning(w, fwhm_nm=FWHM_NM, max_detuning_nm=MAX_DETUNING_NM):
    """Inverse of ``lorentzian_weight`` on δ ≥ 0: δ = (FWHM/2)·√((1 − w)/(1 + w)),
    capped at ``max_detuning_nm``."""
    w = jnp.clip(w, -1.0, 1.0)
    ratio = (1.0 - w) / jnp.maximum(1.0 + w, 1e-300)
    return jnp.minimum(0.5 * fwhm_nm * jnp.sqrt(ratio), max_detuning_nm)


def adjacent_crosstalk(d: int, crosstalk_db: float, neighbours: int = 1) -> np.ndarray:
    """Crosstalk matrix X = I + Σ_{0<|i−j|≤neighbours} 10^(crosstalk_db/10): each ring also
    picks up its neighbouring wavelengths at a power ratio of ``crosstalk_db``."""
    if not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"d = {d!r} must be an integer >= 1")
    check_range("crosstalk_db", crosstalk_db, -math.inf, 0.0, unit="dB")
    i = np.arange(d)
    sep = np.abs(i[:, None] - i[None, :])
    return np.eye(d) + 10 ** (crosstalk_db / 10) * ((sep > 0) & (sep <= neighbours))


def _check_bits(name, bits):
    if bits is not None and (not isinstance(bits, (int, np.integer)) or bits < 1 or bits > 32):
        raise ValueError(f"{name} = {bits!r} must be None or an integer in [1, 32]")


@dataclass(frozen=True)
class RecallConfig:
    """Sizes and impairments of a recall@k Monte Carlo (module docstring for the model).

    Args:
        n_blocks: channels (blocks) per bank; used when signatures are drawn.
        d: wavelengths per channel; used when signatures are drawn.
        k: blocks selected, 1 ≤ k ≤ n_blocks.
        n_trials: trials (each a query and fresh impairment draws).
        weight_bits: weight DAC/quantization bits, None for float weights.
        dac_bits: query DAC bits, None for float queries.
        drift_sigma_nm: ring thermal drift σ (nm), per ring and trial.
        fab_sigma_nm: fabrication resonance spread σ (nm), trimmed as below.
        trim_pm_per_v: trim tuning efficiency (pm/V); default 5 pm/V (3–7 pm/V measured).
        trim_voltage_v: trim range V_max (V); 0 = no trimming.
        noise_rel: detector noise σ relative to full scale.
        snr_db: alternative to ``noise_rel``: σ_rel = 10^(−snr_db/20).
        gain_sigma_db: per-channel insertion-loss spread σ (dB).
        crosstalk: (d, d) WDM crosstalk matrix X, or None.
        fwhm_nm, max_detuning_nm: default Lorentzian transfer.
        weight_of_detuning, detuning_of_weight: a caller's ring transfer pair (jnp
            functions of nm and of w); both or neither.
        confidence: CI level in (0, 1).
    """

    n_blocks: int = 500
    d: int = 32
    k: int = 8
    n_trials: int = 100
    weight_bits: int | None = None
    dac_bits: int | None = None
    drift_sigma_nm: float = 0.0
    fab_sigma_nm: float = 0.0
    trim_pm_per_v: float = TRIM_PM_PER_V
    trim_voltage_v: float = 0.0
    noise_rel: float = 0.0
    snr_db: float | None = None
    gain_sigma_db: float = 0.0
    crosstalk: np.ndarray | None = field(default=None, compare=False, hash=False)
    fwhm_nm: float = FWHM_NM
    max_detuning_nm: float = MAX_DETUNING_NM
    weight_of_detuning: Callable | None = None
    detuning_of_weight: Callable | None = None
    confidence: float = 0.95

    def __post_init__(self):
        for name in ("n_blocks", "d", "k", "n_trials"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} = {v!r} must be an integer >= 1")
        if self.k > self.n_blocks:
            raise ValueError(f"k = {self.k} is outside the valid range [1, n_blocks = {self.n_blocks}]")
        _check_bits("weight_bits", self.weight_bits)
        _check_bits("dac_bits", self.dac_bits)
        check_nonnegative("drift_sigma_nm", self.drift_sigma_nm, unit="nm")
        check_nonnegative("fab_sigma_nm", self.fab_sigma_nm, unit="nm")
        check_nonnegative("trim_pm_per_v", self.trim_pm_per_v, unit="pm/V")
        check_nonnegative("trim_voltage_v", self.trim_voltage_v, unit="V")
        check_nonnegative("noise_rel", self.noise_rel)
        if self.snr_db is not None:
            check_range("snr_db", self.snr_db, -100.0, 400.0, unit="dB")
            if self.noise_rel:
                raise ValueError(f"give noise_rel = {self.noise_rel:g} or snr_db = {self.snr_db:g}, not both")
        check_nonnegative("gain_sigma_db", self.gain_sigma_db, unit="dB")
        check_positive("fwhm_nm", self.fwhm_nm, unit="nm")
        check_positive("max_detuning_nm", self.max_detuning_nm, unit="nm")
        check_range("confidence", self.confidence, 0.0, 1.0, lo_open=True, hi_open=True)
        if (self.weight_of_detuning is None) != (self.detuning_of_weight is None):
            raise ValueError("weight_of_detuning and detuning_of_weight must be given together (or neither)")
        if self.crosstalk is not None:
            x = np.asarray(self.crosstalk)
            if x.shape != (self.d, self.d) or not np.all(np.isfinite(x)):
                raise ValueError(f"crosstalk shape {x.shape} must be (d, d) = ({self.d}, {self.d}), finite")

    @property
    def sigma_rel(self) -> float:
        """Detector noise σ relative to full scale."""
        return 10 ** (-self.snr_db / 20) if self.snr_db is not None else float(self.noise_rel)

    @property
    def trim_range_nm(self) -> float:
        """Largest fabrication offset trimming removes, tuning × V_max (nm)."""
        return self.trim_pm_per_v * self.trim_voltage_v * 1e-3

    def replace(self, **changes) -> RecallConfig:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)


class _Static(NamedTuple):
    k: int
    n_blocks: int
    d: int
    draw: bool
    sig_per_trial: bool
    wq: bool
    dac: bool
    drift: bool
    fab: bool
    noise: bool
    gain: bool
    xt: bool
    w_of_d: Callable | None
    d_of_w: Callable | None


PATHS = ("weight_bits", "dac_bits", "drift", "fab", "noise", "gain", "crosstalk")


def _check_paths(paths) -> frozenset:
    paths = frozenset(paths or ())
    bad = paths - set(PATHS)
    if bad:
        raise ValueError(f"paths {sorted(bad)} are not among {list(PATHS)}")
    return paths


def _static(cfg: RecallConfig, draw: bool, sig_per_trial: bool, n_blocks: int, d: int, paths=()) -> _Static:
    paths = _check_paths(paths)
    return _Static(
        k=cfg.k,
        n_blocks=n_blocks,
        d=d,
        draw=draw,
        sig_per_trial=sig_per_trial,
        wq=cfg.weight_bits is not None or "weight_bits" in paths,
        dac=cfg.dac_bits is not None or "dac_bits" in paths,
        drift=cfg.drift_sigma_nm > 0 or "drift" in paths,
        fab=cfg.fab_sigma_nm > 0 or "fab" in paths,
        noise=cfg.sigma_rel > 0 or "noise" in paths,
        gain=cfg.gain_sigma_db > 0 or "gain" in paths,
        xt=cfg.crosstalk is not None or "crosstalk" in paths,
        w_of_d=cfg.weight_of_detuning,
        d_of_w=cfg.detuning_of_weight,
    )


def _params(cfg: RecallConfig, d: int) -> dict:
    return {
        "weight_bits": float(cfg.weight_bits or 0),
        "dac_bits": float(cfg.dac_bits or 0),
        "drift": float(cfg.drift_sigma_nm),
        "fab": float(cfg.fab_sigma_nm),
        "trim": float(cfg.trim_range_nm),
        "noise": float(cfg.sigma_rel),
        "gain": float(cfg.gain_sigma_db),
        "fwhm": float(cfg.fwhm_nm),
        "max_det": float(cfg.max_detuning_nm),
        "xt": jnp.asarray(cfg.crosstalk if cfg.crosstalk is not None else np.eye(d), dtype=float),
    }


def _topk_indices(v, k):
    """Indices of the k largest entries of a 1-D array, ties to the lower index (as
    ``lax.top_k``). For small k, k masked argmax passes: XLA's CPU top_k on float64 is
    ~20× slower than this at n = 1024, k = 8."""
    if k > 32:
        return jax.lax.top_k(v, k)[1]
    pos = jnp.arange(v.shape[0])
    out = []
    for _ in range(k):
        i = jnp.argmax(v)
        out.append(i)
        v = jnp.where(pos == i, -jnp.inf, v)
    return jnp.stack(out)


def _topk_hits(photonic, ideal, k):
    ip = _topk_indices(photonic, k)
    ie = _topk_indices(ideal, k)
    return jnp.sum(ip[:, None] == ie[None, :])


def _normal(key, shape):
    # float32 draws (half the threefry bits of float64; a perturbation needs no more than
    # 24 bits, tails reach ≈ 5.4σ), used in float64 arithmetic.
    return jax.random.normal(key, shape, dtype=jnp.float32).astype(jnp.float64)


def _unit_scale(a):
    m = jnp.max(jnp.abs(a))
    return a / jnp.where(m > 0, m, 1.0)


def _trial(tkey, w, x, p, st: _Static):
    """One trial: (photonic readings, ideal readings), each (n_blocks,)."""
    keys = [jax.random.fold_in(tkey, j) for j in range(7)]
    if st.draw:  # unstructured null model: i.i.d. Gaussian signatures and query
        w = _unit_scale(_normal(keys[0], (st.n_blocks, st.d)))
        x = _unit_scale(_normal(keys[1], (st.d,)))
    ideal = w @ x / st.d
    # A compiled-in path whose parameter is zero passes values through exactly (jnp.where,
    # identity crosstalk, gain 10^0 = 1, noise 0·z), so one compilation serves many configs.
    wp, xp = w, x
    if st.wq:
        wp = jnp.where(p["weight_bits"] > 0, quantize(wp, jnp.maximum(p["weight_bits"], 1.0)), wp)
    if st.drift or st.fab:
        if st.d_of_w is None:
            det = lorentzian_detuning(wp, p["fwhm"], p["max_det"])
        else:
            det = st.d_of_w(wp)
        eps = jnp.zeros_like(wp)
        if st.drift:
            eps = eps + p["drift"] * _normal(keys[2], wp.shape)
        if st.fab:
            e = p["fab"] * _normal(keys[3], wp.shape)
            eps = eps + (e - jnp.clip(e, -p["trim"], p["trim"]))
        w_ring = lorentzian_weight(det + eps, p["fwhm"]) if st.w_of_d is None else st.w_of_d(det + eps)
        wp = jnp.where((p["drift"] > 0) | (p["fab"] > 0), w_ring, wp)
    if st.dac:
        xp = jnp.where(p["dac_bits"] > 0, quantize(xp, jnp.maximum(p["dac_bits"], 1.0)), xp)
    if st.xt:
        xp = p["xt"] @ xp
    y = wp @ xp / st.d
    if st.gain:
        y = y * 10 ** (p["gain"] * _normal(keys[4], y.shape) / 10)
    if st.noise:
        y = y + p["noise"] * _normal(keys[5], y.shape)
    return y, ideal


def _batch_recall(key, idx, w, x, p, st: _Static):
    def one(i, wi, xi):
        y, ideal = _trial(jax.random.fold_in(key, i), wi, xi, p, st)
        return _topk_hits(y, ideal, st.k) / st.k

    return jax.vmap(one, in_axes=(0, 0 if st.sig_per_trial else None, 0))(idx, w, x)


_batch_recall_jit = jax.jit(_batch_recall, static_argnames=("st",))


def _batch_scores(key, idx, w, x, p, st: _Static):
    def one(i, wi, xi):
        return _trial(jax.random.fold_in(key, i), wi, xi, p, st)

    return jax.vmap(one, in_axes=(0, 0 if st.sig_per_trial else None, 0))(idx, w, x)


_batch_scores_jit = jax.jit(_batch_scores, static_argnames=("st",))


@dataclass(frozen=True)
class RecallResult:
    """Mean recall@k over trials with a bootstrap CI.

    Attributes:
        mean: mean recall@k.
        ci_low, ci_high: percentile-bootstrap CI at ``confidence``.
        per_trial: (n_trials,) recall of each trial.
        k, confidence: as run.
        n_shards: distinct pieces of the trial axis the result came in (devices used).
    """

    mean: float
    ci_low: float
    ci_high: float
    per_trial: np.ndarray = field(compare=False, hash=False, repr=False)
    k: int = 8
    confidence: float = 0.95
    n_shards: int = 1

    @property
    def drop(self) -> float:
        """1 − mean recall (the seed's "recall drop")."""
        return 1.0 - self.mean


def bootstrap_ci(values, confidence: float = 0.95, n_boot: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Percentile-bootstrap CI of the mean of ``values`` (resampling whole trials)."""
    check_range("confidence", confidence, 0.0, 1.0, lo_open=True, hi_open=True)
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        raise ValueError("values must not be empty")
    rng = np.random.default_rng(seed)
    means = v[rng.integers(0, v.size, (n_boot, v.size))].mean(axis=1)
    a = (1 - confidence) / 2
    return float(np.quantile(means, a)), float(np.quantile(means, 1 - a))


def _as_key(key):
    if isinstance(key, (int, np.integer)):
        return jax.random.key(int(key))
    if jnp.issubdtype(jnp.asarray(key).dtype, jax.dtypes.prng_key):
        return key
    return jax.random.wrap_key_data(jnp.asarray(key, dtype=jnp.uint32))


def _prepare(config, signatures, queries, paths=()):
    if (signatures is None) != (queries is None):
        raise ValueError("give both signatures and queries, or neither (then they are drawn per trial)")
    if signatures is None:
        d, n_blocks = config.d, config.n_blocks
        w = np.zeros((1, 1))
        x = np.zeros((config.n_trials, 1))
        return w, x, _static(config, True, False, n_blocks, d, paths)
    w = np.asarray(signatures, dtype=float)
    x = np.asarray(queries, dtype=float)
    if w.ndim not in (2, 3) or x.ndim != 2:
        raise ValueError(
            f"signatures shape {w.shape} must be (n_blocks, d) or (n_trials, n_blocks, d); "
            f"queries shape {x.shape} must be (n_trials, d)"
        )
    n_blocks, d = w.shape[-2:]
    if x.shape != (config.n_trials, d):
        raise ValueError(f"queries shape {x.shape} must be (n_trials, d) = ({config.n_trials}, {d})")
    if w.ndim == 3 and w.shape[0] != config.n_trials:
        raise ValueError(f"signatures shape {w.shape} must have n_trials = {config.n_trials} rows first")
    if config.k > n_blocks:
        raise ValueError(f"k = {config.k} is outside the valid range [1, n_blocks = {n_blocks}]")
    if config.crosstalk is not None and np.shape(config.crosstalk) != (d, d):
        raise ValueError(f"crosstalk shape {np.shape(config.crosstalk)} must be (d, d) = ({d}, {d})")
    check_range("signatures", w, -1.0 - 1e-12, 1.0 + 1e-12)
    check_range("queries", x, -1.0 - 1e-12, 1.0 + 1e-12)
    return w, x, _static(config, False, w.ndim == 3, n_blocks, d, paths)


def _sharded_inputs(n_trials, w, x, st, devices):
    devices = list(jax.devices() if devices is None else devices)
    n_dev = len(devices)
    n_pad = -(-n_trials // n_dev) * n_dev
    mesh = Mesh(np.asarray(devices), ("trials",))
    by_trial = NamedSharding(mesh, PartitionSpec("trials"))
    replicated = NamedSharding(mesh, PartitionSpec())

    def pad(a):
        return np.concatenate([a, np.repeat(a[:1], n_pad - n_trials, axis=0)]) if n_pad > n_trials else a

    idx = jax.device_put(np.arange(n_pad), by_trial)
    xs = jax.device_put(pad(x), by_trial)
    ws = jax.device_put(pad(w), by_trial) if st.sig_per_trial else jax.device_put(w, replicated)
    return idx, ws, xs, replicated


def simulate_recall(
    config: RecallConfig, key=0, signatures=None, queries=None, *, devices=None, paths=()
) -> RecallResult:
    """Monte Carlo recall@k of the photonic top-k against the ideal float top-k.

    Args:
        config: sizes and impairments.
        key: an int seed or a JAX PRNG key; the same key gives identical results.
        signatures: (n_blocks, d) bank shared by all trials, or (n_trials, n_blocks, d);
            values in [-1, 1]. None: drawn per trial (i.i.d. Gaussian, scaled by max |w|).
        queries: (n_trials, d) sketches in [-1, 1] (trial t uses row t); with signatures.
        devices: JAX devices to shard the trials over (default: all).
        paths: impairment paths (names in ``PATHS``) to compile in even where ``config``
            leaves them off; they then pass values through exactly, and configs run with
            the same paths share one compilation (a sweep or table compiles once).

    Returns:
        ``RecallResult``.
    """
    w, x, st = _prepare(config, signatures, queries, paths)
    idx, ws, xs, replicated = _sharded_inputs(config.n_trials, w, x, st, devices)
    base = jax.device_put(_as_key(key), replicated)
    out = _batch_recall_jit(base, idx, ws, xs, _params(config, st.d), st=st)
    per = np.asarray(out)[: config.n_trials]
    lo, hi = bootstrap_ci(per, config.confidence)
    n_shards = len({str(sh.index) for sh in out.addressable_shards})
    return RecallResult(float(per.mean()), lo, hi, per, config.k, config.confidence, n_shards)


def photonic_scores(config: RecallConfig, key=0, signatures=None, queries=None, *, devices=None, paths=()):
    """Per-trial (photonic, ideal) readings, each (n_trials, n_blocks), as used by
    ``simulate_recall`` (same key and paths → same numbers)."""
    w, x, st = _prepare(config, signatures, queries, paths)
    idx, ws, xs, replicated = _sharded_inputs(config.n_trials, w, x, st, devices)
    base = jax.device_put(_as_key(key), replicated)
    y, ideal = _batch_scores_jit(base, idx, ws, xs, _params(config, st.d), st=st)
    return np.asarray(y)[: config.n_trials], np.asarray(ideal)[: config.n_trials]


def recall_at_k(photonic, ideal, k: int) -> np.ndarray:
    """recall@k of each row of photonic readings against the ideal ones, (n,)."""
    photonic = jnp.atleast_2d(jnp.asarray(photonic, dtype=float))
    ideal = jnp.atleast_2d(jnp.asarray(ideal, dtype=float))
    if photonic.shape != ideal.shape:
        raise ValueError(f"photonic shape {photonic.shape} must equal ideal shape {ideal.shape}")
    if not isinstance(k, (int, np.integer)) or not 1 <= k <= ideal.shape[1]:
        raise ValueError(f"k = {k!r} is outside the valid range [1, n_blocks = {ideal.shape[1]}]")
    return np.asarray(jax.vmap(lambda a, b: _topk_hits(a, b, k) / k)(photonic, ideal))


def recall_sweep(
    config: RecallConfig, name: str, values, key=0, signatures=None, queries=None, *, paths=()
) -> list[RecallResult]:
    """``simulate_recall`` for each value of one config field (same key: common random
    numbers; one compilation when ``paths`` covers the field)."""
    return [simulate_recall(config.replace(**{name: v}), key, signatures, queries, paths=paths) for v in values]


def measure_throughput(
    n_blocks: int = 1024, d: int = 32, k: int = 8, n_trials: int = 4096, repeats: int = 3, **impairments
) -> float:
    """Trials per second of ``simulate_recall`` with drawn signatures, after compilation
    (best of ``repeats``)."""
    cfg = RecallConfig(n_blocks=n_blocks, d=d, k=k, n_trials=n_trials, **impairments)
    simulate_recall(cfg, 0)  # compile
    best = math.inf
    for r in range(repeats):
        t0 = time.perf_counter()
        simulate_recall(cfg, r + 1)
        best = min(best, time.perf_counter() - t0)
    return n_trials / best
