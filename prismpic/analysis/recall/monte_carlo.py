"""Monte Carlo of PRISM's photonic top-k block selection under impairments (JAX).

One trial: a bank of n_blocks signatures w (n_blocks, d) and a query sketch x (d,), both
in [-1, 1] (see ``signatures.py`` for the scaling), give the ideal normalised readings
s_c = (1/d)·Σᵢ w_ci·xᵢ (float64), or a caller's reference scores (e.g. exact block scores
of the keys). The photonic readings apply, in this order:

1. weight quantization: w → uniform quantizer with 2^bits levels over [-1, 1]
   (step 2/(2^bits − 1), ±1 are levels);
2. ring errors (only when a drift or fabrication σ > 0): the programmed weight becomes a
   detuning δ = detuning_of_weight(w); the ring sits at δ + ε, with ε the sum of
   - common-mode drift ε_c ~ N(0, σ_c²), one value per chip state shared by every ring
     (the chip's temperature); with a lock loop (``lock_residual_nm``) the loop removes
     it up to a residual, ε_c ~ N(0, σ_lock²);
   - per-ring drift N(0, σ_ring²), every ring its own (local gradients);
   - the fabrication residual e − clip(e, −R, R), e ~ N(0, σ_fab²), R = trim tuning
     (pm/V) × V_max (what trimming cannot reach remains);
   the weight becomes w + f(δ + ε) − f(δ), f = weight_of_detuning. Default transfer: a
   lossless symmetric add-drop ring in the Lorentzian approximation, D = 1/(1 + (2δ/FWHM)²),
   T = 1 − D, w = D − T = 2D − 1 (FWHM 0.155 nm, Q ≈ 10⁴ at 1550 nm, seed S1-10); δ is
   capped at ``max_detuning_nm`` (default FSR/2 = 4.15 nm for the seed's 8.3 nm FSR);
3. query DAC quantization of x (same quantizer, ``dac_bits``);
4. WDM crosstalk: ring i reads (X x)ᵢ instead of xᵢ, X a (d, d) matrix;
5. splitter-tree insertion-loss nonuniformity: channel c's reading × 10^(g_c/10),
   g_c ~ N(0, σ_gain²) dB, per chip state;
6. detector noise: + N(0, σ_rel²) per reading, σ_rel the RMS noise current over the
   full-scale difference current (``noise.NoiseBudget.relative_noise``,
   ``impairments.detector_noise_rel``) or 10^(−SNR_dB/20).

Chip states: drift changes over milliseconds and fabrication and splitter gains never,
while a query takes nanoseconds, so ``queries_per_state`` = G consecutive trials are read
on one draw of the ring errors and gains (each with its own detector noise); G = 1 draws
everything afresh per trial. The confidence interval resamples whole states.

recall@k = |top-k(photonic) ∩ top-k(ideal)| / k. The mean over trials gets a 95 %
percentile-bootstrap confidence interval (2000 resamples, fixed seed), resampling whole
trials (G = 1) or states, which respects the correlation of the k hits within a trial.

Randomness: counter-based (``counter_rng``, SplitMix64): every draw is a pure function of
(key, state, impairment, element), so results do not depend on how states are chunked,
batched or sharded, and switching one impairment on or off leaves the others' draws
unchanged (common random numbers make strength sweeps smooth). States are vmapped in
fixed-size chunks and sharded over a 1-D mesh of ``jax.devices()``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from prismpic import program_cache
from prismpic.analysis.recall import counter_rng, planted
from prismpic.analysis.recall import kernel as kern
from prismpic.checks import check_nonnegative, check_positive, check_range

FWHM_NM = 0.155  # ring linewidth, Q = λ/FWHM ≈ 1e4 at 1550 nm (seed S1-10)
MAX_DETUNING_NM = 4.15  # FSR/2 of the seed's 8.3 nm FSR (S1-10)
TRIM_PM_PER_V = 5.0  # measured TFLN MRR EO tuning ≈ 3–7 pm/V (REFERENCES.md, arXiv 1807.06531)

quantize = kern.quantize


def lorentzian_weight(detuning_nm, fwhm_nm=FWHM_NM):
    """Balanced weight w = D − T = 2D − 1 of a lossless symmetric add-drop ring,
    D = 1/(1 + (2δ/FWHM)²) (Lorentzian near resonance)."""
    return kern.lorentzian_weight(detuning_nm, fwhm_nm)


def lorentzian_detuning(w, fwhm_nm=FWHM_NM, max_detuning_nm=MAX_DETUNING_NM):
    """Inverse of ``lorentzian_weight`` on δ ≥ 0: δ = (FWHM/2)·√((1 − w)/(1 + w)),
    capped at ``max_detuning_nm``."""
    return kern.lorentzian_detuning(w, fwhm_nm, max_detuning_nm)


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
        n_trials: trials (each a query with its own detector noise).
        queries_per_state: G, consecutive trials read on one draw of ring errors and gains.
        weight_bits: weight DAC/quantization bits, None for float weights.
        dac_bits: query DAC bits, None for float queries.
        drift_sigma_nm: per-ring thermal drift σ (nm), every ring its own.
        drift_common_sigma_nm: common-mode drift σ (nm), one shift for the whole chip.
        lock_residual_nm: with a lock loop, the σ (nm) of the common mode it leaves
            (replaces ``drift_common_sigma_nm``); None: no loop.
        fab_sigma_nm: fabrication resonance spread σ (nm), trimmed as below.
        trim_pm_per_v: trim tuning efficiency (pm/V); default 5 pm/V (3–7 pm/V measured).
        trim_voltage_v: trim range V_max (V); 0 = no trimming.
        noise_rel: detector noise σ relative to full scale.
        snr_db: alternative to ``noise_rel``: σ_rel = 10^(−snr_db/20).
        gain_sigma_db: per-channel insertion-loss spread σ (dB).
        crosstalk: (d, d) WDM crosstalk matrix X, or None.
        separation: drawn banks only: how many bulk σ the planted top-k stand above the
            bulk (``planted``; 0 = the i.i.d. Gaussian null).
        planted_spread: drawn banks only: σ of the planted scores in bulk σ (1 = the bulk
            shifted, 0 = tied).
        fwhm_nm, max_detuning_nm: default Lorentzian transfer.
        weight_of_detuning, detuning_of_weight: a caller's ring transfer pair (jnp
            functions of nm and of w); both or neither.
        confidence: CI level in (0, 1).
    """

    n_blocks: int = 500
    d: int = 32
    k: int = 8
    n_trials: int = 100
    queries_per_state: int = 1
    weight_bits: int | None = None
    dac_bits: int | None = None
    drift_sigma_nm: float = 0.0
    drift_common_sigma_nm: float = 0.0
    lock_residual_nm: float | None = None
    fab_sigma_nm: float = 0.0
    trim_pm_per_v: float = TRIM_PM_PER_V
    trim_voltage_v: float = 0.0
    noise_rel: float = 0.0
    snr_db: float | None = None
    gain_sigma_db: float = 0.0
    crosstalk: np.ndarray | None = field(default=None, compare=False, hash=False)
    separation: float = 0.0
    planted_spread: float = 1.0
    fwhm_nm: float = FWHM_NM
    max_detuning_nm: float = MAX_DETUNING_NM
    weight_of_detuning: Callable | None = None
    detuning_of_weight: Callable | None = None
    confidence: float = 0.95

    def __post_init__(self):
        for name in ("n_blocks", "d", "k", "n_trials", "queries_per_state"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} = {v!r} must be an integer >= 1")
        if self.k > self.n_blocks:
            raise ValueError(f"k = {self.k} is outside the valid range [1, n_blocks = {self.n_blocks}]")
        _check_bits("weight_bits", self.weight_bits)
        _check_bits("dac_bits", self.dac_bits)
        for name in ("drift_sigma_nm", "drift_common_sigma_nm", "fab_sigma_nm"):
            check_nonnegative(name, getattr(self, name), unit="nm")
        if self.lock_residual_nm is not None:
            check_nonnegative("lock_residual_nm", self.lock_residual_nm, unit="nm")
        check_nonnegative("trim_pm_per_v", self.trim_pm_per_v, unit="pm/V")
        check_nonnegative("trim_voltage_v", self.trim_voltage_v, unit="V")
        check_nonnegative("noise_rel", self.noise_rel)
        if self.snr_db is not None:
            check_range("snr_db", self.snr_db, -100.0, 400.0, unit="dB")
            if self.noise_rel:
                raise ValueError(f"give noise_rel = {self.noise_rel:g} or snr_db = {self.snr_db:g}, not both")
        check_nonnegative("gain_sigma_db", self.gain_sigma_db, unit="dB")
        check_range("separation", self.separation, 0.0, 50.0)
        check_range("planted_spread", self.planted_spread, 0.0, 1.0)
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
    def common_sigma_nm(self) -> float:
        """σ of the common-mode drift the rings see: the lock residual with a loop, else σ_c."""
        return float(self.drift_common_sigma_nm if self.lock_residual_nm is None else self.lock_residual_nm)

    @property
    def trim_range_nm(self) -> float:
        """Largest fabrication offset trimming removes, tuning × V_max (nm)."""
        return self.trim_pm_per_v * self.trim_voltage_v * 1e-3

    def replace(self, **changes) -> RecallConfig:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)


PATHS = ("weight_bits", "dac_bits", "drift", "drift_common", "fab", "noise", "gain", "crosstalk")


def _check_paths(paths) -> frozenset:
    paths = frozenset(paths or ())
    bad = paths - set(PATHS)
    if bad:
        raise ValueError(f"paths {sorted(bad)} are not among {list(PATHS)}")
    return paths


def _static(cfg: RecallConfig, synthetic: bool, n_blocks: int, d: int, paths=(), want="hits") -> kern.Static:
    paths = _check_paths(paths)
    return kern.Static(
        k=cfg.k, n_blocks=n_blocks, d=d, group=cfg.queries_per_state, synthetic=synthetic,
        wq=cfg.weight_bits is not None or "weight_bits" in paths,
        dac=cfg.dac_bits is not None or "dac_bits" in paths,
        drift=cfg.drift_sigma_nm > 0 or "drift" in paths,
        common=cfg.common_sigma_nm > 0 or "drift_common" in paths,
        fab=cfg.fab_sigma_nm > 0 or "fab" in paths,
        noise=cfg.sigma_rel > 0 or "noise" in paths,
        gain=cfg.gain_sigma_db > 0 or "gain" in paths,
        xt=cfg.crosstalk is not None or "crosstalk" in paths,
        w_of_d=cfg.weight_of_detuning, d_of_w=cfg.detuning_of_weight, want=want,
    )


def _params(cfg: RecallConfig, d: int) -> dict:
    p = {
        "weight_bits": cfg.weight_bits or 0, "dac_bits": cfg.dac_bits or 0, "drift": cfg.drift_sigma_nm,
        "common": cfg.common_sigma_nm, "fab": cfg.fab_sigma_nm, "trim": cfg.trim_range_nm, "noise": cfg.sigma_rel,
        "gain": cfg.gain_sigma_db, "fwhm": cfg.fwhm_nm, "max_det": cfg.max_detuning_nm,
        "separation": cfg.separation, "spread": cfg.planted_spread,
    }
    p = {name: jnp.asarray(float(v)) for name, v in p.items()}
    p["xt"] = jnp.asarray(cfg.crosstalk if cfg.crosstalk is not None else np.eye(d), dtype=float)
    return p


@dataclass(frozen=True)
class RecallResult:
    """Mean recall@k over trials with a bootstrap CI.

    Attributes:
        mean: mean recall@k.
        ci_low, ci_high: percentile-bootstrap CI at ``confidence``.
        per_trial: (n_trials,) recall of each trial.
        k, confidence: as run.
        n_shards: distinct pieces of the state axis the result came in (devices used).
        queries_per_state: G of the run (trials per draw of ring errors and gains).
        selected: (n_trials, k) photonic top-k block indices, best first, when asked for.
    """

    mean: float
    ci_low: float
    ci_high: float
    per_trial: np.ndarray = field(compare=False, hash=False, repr=False)
    k: int = 8
    confidence: float = 0.95
    n_shards: int = 1
    queries_per_state: int = 1
    selected: np.ndarray | None = field(default=None, compare=False, hash=False, repr=False)

    @property
    def drop(self) -> float:
        """1 − mean recall (the seed's "recall drop")."""
        return 1.0 - self.mean


def bootstrap_ci(values, confidence: float = 0.95, n_boot: int = 2000, seed: int = 0,
                 cluster_size: int = 1) -> tuple[float, float]:
    """Percentile-bootstrap CI of the mean of ``values``, resampling whole trials or, with
    ``cluster_size`` = G > 1, whole runs of G consecutive values (chip states).

    Values with few distinct levels (recall@k takes k + 1) are resampled through their
    counts: a resample of n trials is a multinomial draw of the level counts, the same
    distribution as drawing n trial indices, at a cost independent of n."""
    check_range("confidence", confidence, 0.0, 1.0, lo_open=True, hi_open=True)
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        raise ValueError("values must not be empty")
    gen = np.random.default_rng(seed)
    levels, counts = np.unique(v, return_counts=True)
    if cluster_size == 1 and levels.size <= 64:
        means = gen.multinomial(v.size, counts / v.size, size=n_boot) @ levels / v.size
    else:
        starts = np.arange(0, v.size, cluster_size)
        sums = np.add.reduceat(v, starts)
        sizes = np.diff(np.append(starts, v.size))
        pick = gen.integers(0, starts.size, (n_boot, starts.size))
        means = sums[pick].sum(axis=1) / sizes[pick].sum(axis=1)
    a = (1 - confidence) / 2
    return float(np.quantile(means, a)), float(np.quantile(means, 1 - a))


def exact_topk(scores, k: int) -> np.ndarray:
    """Indices of the k highest scores per row, best first, ties to the lower index
    (a partial sort per row; rows with a tie across the k-th place take a stable sort)."""
    s = np.atleast_2d(np.asarray(scores, dtype=float))
    if not isinstance(k, (int, np.integer)) or not 1 <= k <= s.shape[1]:
        raise ValueError(f"k = {k!r} is outside the valid range [1, n_blocks = {s.shape[1]}]")
    if k == s.shape[1]:
        return np.argsort(-s, axis=1, kind="stable")
    sel = np.argpartition(-s, k - 1, axis=1)[:, :k]
    vals = np.take_along_axis(s, sel, axis=1)
    tied = np.count_nonzero(s >= vals.min(axis=1, keepdims=True), axis=1) > k
    if np.any(tied):
        sel[tied] = np.argsort(-s[tied], axis=1, kind="stable")[:, :k]
        vals[tied] = np.take_along_axis(s[tied], sel[tied], axis=1)
    order = np.lexsort((sel, -vals), axis=-1)
    return np.take_along_axis(sel, order, axis=1)


_prepare_weights_jit = jax.jit(kern.prepare_weights, static_argnames=("st",))
_prepare_queries_jit = jax.jit(kern.prepare_queries, static_argnames=("st",))


def _bank(config, w, x, reference, st, p, want):
    wq, det = _prepare_weights_jit(jnp.asarray(w), p, st=st)
    xt = _prepare_queries_jit(jnp.asarray(x), p, st=st)
    ideal = x @ w.T / w.shape[1]
    bank = {"wq": wq, "det": det, "xt": xt, "topk": jnp.asarray(exact_topk(ideal if reference is None else reference,
                                                                           config.k))}
    bank["ideal"] = jnp.asarray(ideal if want == "scores" else np.zeros((1, 1)))
    return bank


def _prepare(config: RecallConfig, signatures, queries, reference, paths, want):
    if (signatures is None) != (queries is None):
        raise ValueError("give both signatures and queries, or neither (then a bank is drawn per chip state)")
    if signatures is None:
        if reference is not None:
            raise ValueError("reference_scores need given signatures and queries")
        planted.check_sizes(config.n_blocks, config.d, config.k, config.queries_per_state)
        st = _static(config, True, config.n_blocks, config.d, paths, want)
        return st, {}, _params(config, config.d)
    w = np.asarray(signatures, dtype=float)
    x = np.asarray(queries, dtype=float)
    if w.ndim != 2 or x.ndim != 2:
        raise ValueError(f"signatures shape {w.shape} must be (n_blocks, d); queries shape {x.shape} must be (n_trials, d)")
    n_blocks, d = w.shape
    if x.shape != (config.n_trials, d):
        raise ValueError(f"queries shape {x.shape} must be (n_trials, d) = ({config.n_trials}, {d})")
    if config.k > n_blocks:
        raise ValueError(f"k = {config.k} is outside the valid range [1, n_blocks = {n_blocks}]")
    if config.crosstalk is not None and np.shape(config.crosstalk) != (d, d):
        raise ValueError(f"crosstalk shape {np.shape(config.crosstalk)} must be (d, d) = ({d}, {d})")
    check_range("signatures", w, -1.0 - 1e-12, 1.0 + 1e-12)
    check_range("queries", x, -1.0 - 1e-12, 1.0 + 1e-12)
    if reference is not None:
        reference = np.asarray(reference, dtype=float)
        if reference.shape != (config.n_trials, n_blocks) or not np.all(np.isfinite(reference)):
            raise ValueError(f"reference_scores shape {reference.shape} must be (n_trials, n_blocks) = "
                             f"({config.n_trials}, {n_blocks}), finite")
    st = _static(config, False, n_blocks, d, paths, want)
    p = _params(config, d)
    return st, _bank(config, w, x, reference, st, p, want), p


def _auto_chunk(st: kern.Static) -> int:
    return int(np.clip(2**19 // (st.n_blocks * st.d), 1, 4096))  # ≈ 16 states: intermediates stay in cache


@functools.lru_cache(maxsize=64)
def _reused_run(st: kern.Static):
    """``kern.run_states`` at ``st``, its program reused across runs (``program_cache``: a study's first run in a
    new process traces and lowers it, ≈ 1 CPU-s a shape family, otherwise)."""
    return program_cache.reuse(functools.partial(kern.run_states, st=st))


def _run(config, key, signatures, queries, reference, devices, paths, chunk_states, progress, want):
    st, bank, p = _prepare(config, signatures, queries, reference, paths, want)
    devices = list(jax.devices() if devices is None else devices)
    n_dev = len(devices)
    mesh = Mesh(np.asarray(devices), ("states",))
    by_state = NamedSharding(mesh, PartitionSpec("states"))
    rep = NamedSharding(mesh, PartitionSpec())
    n_states = -(-config.n_trials // st.group)
    # the automatic chunk shrinks to the next power of two above a small run (few compiled shapes)
    chunk = chunk_states or min(_auto_chunk(st), 1 << max(0, (n_states - 1).bit_length()))
    chunk = -(-chunk // n_dev) * n_dev
    key64 = jax.device_put(jnp.uint64(counter_rng.key_to_u64(key)), rep)
    bank, p = jax.device_put(bank, rep), jax.device_put(p, rep)
    pieces, shards = [], 1
    run = _reused_run(st) if n_dev == 1 else functools.partial(kern.run_states_jit, st=st)
    for start in range(0, n_states, chunk):
        idx = jax.device_put(np.arange(start, start + chunk, dtype=np.uint64), by_state)
        out = run(key64, idx, bank, p)
        first = jax.tree.leaves(out)[0]
        shards = max(shards, len({str(sh.index) for sh in first.addressable_shards}))
        pieces.append(jax.tree.map(np.asarray, out))
        if progress is not None:
            progress(min(start + chunk, n_states), n_states)
    out = jax.tree.map(lambda *a: np.concatenate(a)[:n_states], *pieces)
    return jax.tree.map(lambda a: a.reshape((n_states * st.group,) + a.shape[2:])[: config.n_trials], out), shards


def simulate_recall(config: RecallConfig, key=0, signatures=None, queries=None, *, reference_scores=None,
                    devices=None, paths=(), chunk_states: int | None = None, progress=None,
                    return_selected: bool = False) -> RecallResult:
    """Monte Carlo recall@k of the photonic top-k against the ideal top-k.

    Args:
        config: sizes and impairments.
        key: an int seed or a JAX PRNG key; the same key gives identical results.
        signatures: (n_blocks, d) bank shared by all trials, values in [-1, 1]. None: a
            ``planted`` bank (``config.separation``) is drawn per chip state.
        queries: (n_trials, d) sketches in [-1, 1] (trial t uses row t); with signatures.
        reference_scores: (n_trials, n_blocks) scores whose top-k is the truth (e.g. exact
            block scores of the keys); default the float signature readings.
        devices: JAX devices to shard the states over (default: all).
        paths: impairment paths (names in ``PATHS``) to compile in even where ``config``
            leaves them off; they then pass values through exactly, and configs run with
            the same paths share one compilation (a sweep or table compiles once).
        chunk_states: states per compiled call (results do not depend on it).
        progress: callback(states done, states in all) after each chunk.
        return_selected: also return the photonic top-k indices of every trial.
    """
    want = "selected" if return_selected else "hits"
    out, shards = _run(config, key, signatures, queries, reference_scores, devices, paths, chunk_states, progress, want)
    hits, selected = out if return_selected else (out, None)
    per = np.asarray(hits, dtype=float) / config.k
    lo, hi = bootstrap_ci(per, config.confidence, cluster_size=config.queries_per_state)
    return RecallResult(float(per.mean()), lo, hi, per, config.k, config.confidence, shards,
                        config.queries_per_state, selected)


def photonic_scores(config: RecallConfig, key=0, signatures=None, queries=None, *, devices=None, paths=(),
                    chunk_states: int | None = None):
    """Per-trial (photonic, ideal) readings, each (n_trials, n_blocks), as used by
    ``simulate_recall`` (same key and paths → same numbers)."""
    (y, ideal), _ = _run(config, key, signatures, queries, None, devices, paths, chunk_states, None, "scores")
    return y, ideal


def recall_at_k(photonic, ideal, k: int) -> np.ndarray:
    """recall@k of each row of photonic readings against the ideal ones, (n,)."""
    photonic = jnp.atleast_2d(jnp.asarray(photonic, dtype=float))
    ideal = jnp.atleast_2d(jnp.asarray(ideal, dtype=float))
    if photonic.shape != ideal.shape:
        raise ValueError(f"photonic shape {photonic.shape} must equal ideal shape {ideal.shape}")
    if not isinstance(k, (int, np.integer)) or not 1 <= k <= ideal.shape[1]:
        raise ValueError(f"k = {k!r} is outside the valid range [1, n_blocks = {ideal.shape[1]}]")
    return np.asarray(jnp.sum(kern.topk_mask(photonic, k) & kern.topk_mask(ideal, k), axis=-1)) / k


def recall_sweep(
    config: RecallConfig, name: str, values, key=0, signatures=None, queries=None, *, paths=(), **kwargs
) -> list[RecallResult]:
    """``simulate_recall`` for each value of one config field (same key: common random
    numbers; one compilation when ``paths`` covers the field)."""
    return [simulate_recall(config.replace(**{name: v}), key, signatures, queries, paths=paths, **kwargs)
            for v in values]


def measure_throughput(
    n_blocks: int = 1024, d: int = 32, k: int = 8, n_trials: int = 4096, repeats: int = 3, **impairments
) -> float:
    """Trials per second of ``simulate_recall`` with drawn banks, after compilation (best
    of ``repeats``); ``impairments`` are ``RecallConfig`` fields (e.g. queries_per_state)."""
    cfg = RecallConfig(n_blocks=n_blocks, d=d, k=k, n_trials=n_trials, **impairments)
    simulate_recall(cfg, 0)  # compile
    best = math.inf
    for r in range(repeats):
        t0 = time.perf_counter()
        simulate_recall(cfg, r + 1)
        best = min(best, time.perf_counter() - t0)
    return n_trials / best
