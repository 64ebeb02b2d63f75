"""The results of a spectrum analysis: resonances, their intrinsic-Q solutions and the summary.

Each result has ``to_dict()``: a JSON-ready dict through :func:`prismpic.fileio.jsonable`
(tuples become lists, non-finite floats ``None``; the plotting arrays are left out).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

from prismpic.fileio import jsonable


class _ToDict:
    def to_dict(self) -> dict:
        """JSON-ready dict (tuples become lists, non-finite floats ``None``; arrays are left out)."""
        return {f.name: jsonable(getattr(self, f.name)) for f in fields(self) if f.compare}


@dataclass(frozen=True)
class CouplingSolution(_ToDict):
    """One solution (r1, r2, a) consistent with the measured x, T0 (and D0).

    Attributes:
        regime: ``"under"`` (r1 > a·r2: input coupling weaker than loss plus drop coupling)
            or ``"over"``.
        q_intrinsic: λ0 over the linewidth of the loss alone (inf for a ≥ 1).
        q_coupling_in: λ0 over the linewidth of the input coupler alone.
        q_coupling_drop: same for the drop coupler; None for a through port alone.
        r1, r2, a: self-coupling amplitudes and single-pass amplitude transmission
            (None in the coupled-mode fallback used without an FSR; r2 = 1 for all-pass).
        loss_db_per_cm: propagation loss −20·log10(a)/L (None without the ring length).
        physical: False if a, r1 or r2 exceeds 1 beyond the fit's accuracy.
    """

    regime: str
    q_intrinsic: float
    q_coupling_in: float
    q_coupling_drop: float | None
    r1: float | None
    r2: float | None
    a: float | None
    loss_db_per_cm: float | None
    physical: bool


@dataclass(frozen=True)
class IntrinsicQ(_ToDict):
    """Intrinsic Q of one resonance.

    Attributes:
        q_intrinsic: the chosen value, or None when the regime is ambiguous.
        regime: ``"under"``/``"over"``/``"critical"`` for the chosen solution, or None.
        ambiguous: True when both solutions remain and no ``coupling`` chose one.
        method: what was used: ``"all-pass (through)"``, ``"add-drop (through + drop)"``,
            with ``", coupled-mode"`` when no FSR was available for the Airy inversion.
        assumption: the ``coupling`` hint applied, or ``""``.
        solutions: the under- and over-coupled solutions.
    """

    q_intrinsic: float | None
    regime: str | None
    ambiguous: bool
    method: str
    assumption: str
    solutions: tuple[CouplingSolution, ...]


@dataclass(frozen=True)
class Resonance(_ToDict):
    """One fitted resonance. Wavelengths in nm; errors are 1σ.

    Attributes:
        center_nm, center_err_nm: resonance wavelength.
        fwhm_nm, fwhm_err_nm: full width at half maximum of the Airy/Lorentzian dip (peak).
        q_loaded, q_loaded_err: λ0/FWHM.
        extinction_db, extinction_err_db: of the primary port (through if given, else drop).
        depth: through, 1 − T0 (fraction of the baseline removed at resonance); drop
            alone, the peak height D0.
        through_min: T0, through on resonance relative to the baseline (None without through).
        through_extinction_db: T_max/T0 in dB.
        drop_peak: D0, drop on resonance relative to the through baseline when both ports
            are given (same couplers assumed), else in the drop's own units (tilt removed).
        drop_extinction_db: drop peak over the floor (fitted minimum plus median misfit), dB.
        points_per_fwhm: samples per FWHM at the resonance.
        fsr_local_nm: mean spacing to the neighbouring resonances (None for a lone one).
        finesse: fsr_local_nm / fwhm_nm.
        family: mode family, 0 for the primary one (the FSR summary uses family 0), 1 for a
            second family with a linewidth more than 1.6× different.
        intrinsic: intrinsic-Q analysis (None when only the drop port is given).
        extinction_bound: True when ``extinction_db`` is a lower bound (the dip reaches the noise or the
            detector floor).
        split_nm: the splitting of a split resonance (backscatter doublet) fitted as such (nm), else None;
            then ``fwhm_nm`` and ``q_loaded`` are one mode's and the extinction the unsplit one's.
    """

    center_nm: float
    center_err_nm: float
    fwhm_nm: float
    fwhm_err_nm: float
    q_loaded: float
    q_loaded_err: float
    extinction_db: float
    extinction_err_db: float
    depth: float
    through_min: float | None
    through_extinction_db: float | None
    drop_peak: float | None
    drop_extinction_db: float | None
    points_per_fwhm: float
    fsr_local_nm: float | None
    finesse: float | None
    family: int
    intrinsic: IntrinsicQ | None
    extinction_bound: bool = False
    split_nm: float | None = None


@dataclass(frozen=True, eq=False)
class SpectrumAnalysis(_ToDict):
    """Resonances and figures of merit of a ring spectrum.

    Attributes:
        port: ``"through"`` or ``"drop"``, the port resonances were detected on.
        resonances: fitted resonances, by increasing wavelength.
        reference_nm: the wavelength the summary refers to.
        nearest: index in ``resonances`` of the family-0 resonance nearest ``reference_nm``.
        center_nm, fwhm_nm, q_loaded, extinction_db, q_intrinsic: of that resonance.
        fsr_nm, fsr_err_nm: FSR of family 0 at ``reference_nm`` (clamped to the span of the
            resonances): a linear fit of the pair spacings versus wavelength for 3 pairs
            or more, else the nearest pair's spacing scaled as λ²; None for a lone resonance.
        fsr_slope: dFSR/dλ (dimensionless) of that fit, None with fewer than 3 pairs.
        fsr_wl_nm, fsr_pairs_nm: midpoint and spacing of each adjacent pair (divided by
            the number of FSRs when a resonance is missing in between).
        group_index: n_g of each pair, λ_m·λ_(m+1)/(Δλ·L) (None without ring length).
        n_group: n_g at ``reference_nm`` (clamped as for ``fsr_nm``), λ²/(FSR·L).
        ring_length_um: L used for n_g and loss, or None.
        noise: robust noise standard deviation of each normalized port (median over the band).
        notes: what was skipped or assumed.
        families: each mode family found (FSR, n_g, linewidth, depth, periodicity; ``ModeFamily.to_dict``),
            numbered by increasing FSR.
        family: the number of the family analysed (resonances of family 0 above; the others are numbered
            from 1 in ``Resonance.family``).
        baseline_order: the baseline polynomial order used (chosen by the data unless given).
        wl_nm, through, drop, baseline_through, baseline_drop, model_through, model_drop:
            the data (linear), the baselines and the fitted curves (NaN outside fit
            windows), for plotting; left out of ``to_dict``.
    """

    port: str
    resonances: tuple[Resonance, ...]
    reference_nm: float
    nearest: int
    center_nm: float
    fwhm_nm: float
    q_loaded: float
    extinction_db: float
    q_intrinsic: float | None
    fsr_nm: float | None
    fsr_err_nm: float | None
    fsr_slope: float | None
    fsr_wl_nm: tuple[float, ...]
    fsr_pairs_nm: tuple[float, ...]
    group_index: tuple[float, ...] | None
    n_group: float | None
    ring_length_um: float | None
    noise: dict
    notes: tuple[str, ...]
    wl_nm: np.ndarray = field(repr=False, compare=False)
    through: np.ndarray | None = field(repr=False, compare=False)
    drop: np.ndarray | None = field(repr=False, compare=False)
    baseline_through: np.ndarray | None = field(repr=False, compare=False)
    baseline_drop: np.ndarray | None = field(repr=False, compare=False)
    model_through: np.ndarray | None = field(repr=False, compare=False)
    model_drop: np.ndarray | None = field(repr=False, compare=False)
    families: tuple[dict, ...] = ()
    family: int = 0
    baseline_order: int = 2
