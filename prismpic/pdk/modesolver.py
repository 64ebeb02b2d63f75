"""Full-vector finite-difference eigenmode solver for TFLN ridge waveguides.

Method: Yee-grid finite differences for the transverse electric field (Zhu & Brown,
Opt. Express 10, 853 (2002)), the formulation of the open FDE solvers (e.g. Tidy3D's
mode plugin). With fields ∝ exp(j(ωt − βz)) and derivatives normalised by k0,

    β Eₜ = P Hₜ,   β Hₜ = Q Eₜ   →   n_eff² Eₜ = P Q Eₜ,

where P and Q hold the diagonal tensors ε = diag(εxx, εyy, εzz) and μ = diag(μxx, μyy, μzz)
at their staggered Yee positions, so LN's diagonal anisotropy enters natively. The
permittivity at each field component is averaged over its cell, harmonically across the
interface the component is normal to and arithmetically along it (the standard sub-pixel
rule for axis-aligned interfaces; e.g. Farjadpour et al., Opt. Lett. 31, 2972 (2006)).
The sparse eigenproblem is solved by shift-invert ARPACK (``scipy.sparse.linalg.eigs``).

Bends use the exact coordinate transformation to a straight frame (z = Rθ, x = r − R):
εxx, εyy, μxx, μyy scale by (1 + x/R) and εzz, μzz by 1/(1 + x/R), so that the index
product is n'(x) = n(x)(1 + x/R), the conformal-transformation profile of Heiblum &
Harris, JQE 11, 75 (1975), without its scalar approximation. A stretched-coordinate PML
(s = 1 − jσ) on the outer side absorbs the radiation into the slab, so Im n_eff gives the
bend's radiation loss. n_eff of a bend refers to the ridge-centre radius R (β = m/R).

Mirror symmetry: a straight ridge (or a pair of identical ridges) is symmetric about
x = 0, so only x ≥ 0 is solved, with an electric wall (PEC: Ex even, TE0 class) or a
magnetic wall (PMC: Ey even, TM0 class) at x = 0. This halves the problem, separates the
TE0 and TM0 families exactly (no spurious hybridisation where they cross) and gives the
even (PEC) and odd (PMC) TE supermodes of a coupler directly.

Why hand-written: femwell (scikit-fem FEM; it has a diagonal-anisotropy example) would
fit, but needs gmsh through its meshing stack, a heavy new dependency not installed here;
T. E. Murphy's ``modesolver`` (the reference code of Fallahkhair, Li & Murphy, JLT 26,
1423 (2008)) is not on PyPI and has no PML for bend radiation. The Yee scheme here is a
few hundred lines on scipy.sparse, converges as O(h²) with sub-pixel averaging and gives
dn_eff/dλ from one solve.

Performance note: sparse LU calls BLAS; on shared cores OpenBLAS threads spin and can
slow a solve tenfold. Set OPENBLAS_NUM_THREADS=1 for batch runs (``tables`` does).

Lengths in µm, wavelengths in µm.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.optimize import brentq

from prismpic.checks import check_choice, check_range
from prismpic.pdk import materials
from prismpic.pdk.ridge_geometry import Mesh, Ridge, axis_nodes
from prismpic.pdk.stack import CLADDING, ETCH_DEPTH, FILM_THICKNESS, RIDGE_WIDTH, SIDEWALL_ANGLE_DEG
from prismpic.pdk.yee_operators import cell_average, diff_ops, eigs_near, ln_fraction

# a search next to a coarser mesh's mode starts this far above it (mesh refinement moves n_eff by ≲ 1e-3)
GUESS_MARGIN = 0.005

# ----------------------------------------------------------------------------- results


@dataclass
class Mode:
    """One eigenmode.

    Fields are on the Yee grid: Ex, Hy at (xh, y); Ey, Hx at (x, yh); Ez at (x, y); Hz at
    (xh, yh), where x, y are the integer nodes and xh, yh the half nodes (arrays of shape
    (len(x), len(y))). H is Z0·H (same units as E). Normalised to Re ∫(E × H*)·ẑ dA = 1 µm².
    For mirror-symmetric solves only x ≥ 0 is stored.

    Attributes:
        neff: complex effective index; Im n_eff > 0 is loss (power ∝ exp(−2 k0 Im n_eff z)).
        dneff_dwl: dn_eff/dλ (1/µm), exact for the discrete problem: first-order perturbation
            ⟨y|dA/dλ|x⟩/⟨y|x⟩ with the left eigenvector y from Lorentz reciprocity.
        te_fraction: ∫|Ex|² / ∫(|Ex|² + |Ey|²).
        mode_area_um2: (∫|E|²)² / ∫|E|⁴ over the full cross-section.
        ln_overlap: Γ (see ``eo_overlap``).
        confinement: share of the transverse |E|² within 0.5 µm of the ridge(s) and 0.3 µm of the film.
        symmetry: the wall at x = 0 ("pec", "pmc") or None for a full cross-section.
        loss_db_per_cm: 10 log10(e) · 2 k0 Im n_eff · 1e4.
    """

    neff: complex
    dneff_dwl: complex
    wl: float
    te_fraction: float
    mode_area_um2: float
    ln_overlap: float
    confinement: float
    x: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    xh: np.ndarray = field(repr=False)
    yh: np.ndarray = field(repr=False)
    fields: dict = field(repr=False)
    symmetry: str | None = None
    areas: tuple = field(repr=False, default=())

    @property
    def ng(self) -> float:
        """Group index n_eff − λ dn_eff/dλ (material dispersion included)."""
        return (self.neff - self.wl * self.dneff_dwl).real

    @property
    def loss_db_per_cm(self) -> float:
        return 10 * math.log10(math.e) * 2 * (2 * math.pi / self.wl) * self.neff.imag * 1e4


# ----------------------------------------------------------------------------- solver


def _validate(wl, radius):
    check_range("wl", wl, 0.4, 3.7, unit="µm")
    check_range("radius", radius, 0.0, math.inf, unit="µm", lo_open=True)


def _grid(ridge: Ridge, mesh: Mesh, bend: bool, symmetry: str | None):
    """Node positions (xn, yn) and the x limits of the PML(s)."""
    hw, foot = 0.5 * ridge.width, ridge.half_width_at(ridge.slab)
    m = mesh.core_margin
    # core segments for x ≥ 0, from the axis outwards
    if ridge.gap is None:
        half = [(0.0, hw, "ridge"), (hw, foot, "foot")]
    else:
        c = ridge.centers[1]
        half = [
            (0.0, c - foot, "gap"),
            (c - foot, c - hw, "foot"),
            (c - hw, c + hw, "ridge2"),
            (c + hw, c + foot, "foot"),
        ]
    x_out = half[-1][1]
    half.append((x_out, x_out + m, "margin"))
    half = [seg for seg in half if seg[1] > seg[0] + 1e-12]
    if symmetry is None:  # full cross-section, mirror the half segments
        if ridge.gap is not None:
            raise ValueError("a ridge pair is solved with symmetry 'pec' or 'pmc'")
        half = [(-b, -a, k) for a, b, k in reversed(half[1:])] + [(-hw, hw, "ridge2")] + half[1:]
    segs = [(a, b, mesh.cells(b - a)) for a, b, _ in half]
    x_hi = x_out + mesh.pad_x + mesh.pml
    x_lo = 0.0 if symmetry is not None else (-(x_out + mesh.pad_x) if bend else -x_hi)  # a bend radiates outwards
    t, sl = ridge.film_thickness, ridge.slab
    ysegs = [(a, b, mesh.cells(b - a)) for a, b in ((-m, 0.0), (0.0, sl), (sl, t), (t, t + m)) if b > a + 1e-12]
    if ridge.metal:  # gold's faces on grid lines: a cell straddling gold and oxide averages ε = −110 with 2
        segs = _with_breaks(segs, [e for r in ridge.metal for e in r[:2]], x_lo, x_hi - mesh.pml, mesh)
        ysegs = _with_breaks(ysegs, [e for r in ridge.metal for e in r[2:]], -mesh.pad_below, t + mesh.pad_above,
                             mesh)
    xn = axis_nodes(x_lo, x_hi, segs, mesh.step, mesh.step_max, mesh.growth)
    yn = axis_nodes(-mesh.pad_below, t + mesh.pad_above, ysegs, mesh.step, mesh.step_max, mesh.growth)
    pml_hi = x_hi - mesh.pml if mesh.pml > 0 else math.inf
    pml_lo = x_lo + mesh.pml if (mesh.pml > 0 and symmetry is None and not bend) else -math.inf
    return xn, yn, pml_lo, pml_hi


def _with_breaks(segs, breaks, lo: float, hi: float, mesh: Mesh) -> list:
    """Core segments (a, b, cells) re-split at the ``breaks`` inside (lo, hi), the core extended to reach them."""
    pts = {a for a, _, _ in segs} | {segs[-1][1]}
    for b in breaks:
        if lo < b < hi and min(abs(b - p) for p in pts) > 0.25 * mesh.step:
            pts.add(b)
    pts = sorted(pts)
    return [(a, b, mesh.cells(b - a)) for a, b in zip(pts[:-1], pts[1:], strict=True)]


def solve_modes(
    wl: float = 1.55,
    width: float = RIDGE_WIDTH,
    film_thickness: float = FILM_THICKNESS,
    etch_depth: float = ETCH_DEPTH,
    radius: float = math.inf,
    crystal_axis: str = "z",
    cladding: str = CLADDING,
    sidewall_angle_deg: float = SIDEWALL_ANGLE_DEG,
    gap: float | None = None,
    symmetry: str | None = "pec",
    num_modes: int = 3,
    mesh: Mesh | None = None,
    neff_guess: float | None = None,
    extra: int | None = None,
    decouple_tm: bool = False,
    ncv: int | None = None,
    metal: tuple = (),
    gold_relaxation_fs: float = materials.AU_RELAXATION_FS,
) -> list[Mode]:
    """Eigenmodes of a TFLN ridge (or ridge pair), highest Re n_eff first.

    Args:
        wl: wavelength (µm).
        width, film_thickness, etch_depth, sidewall_angle_deg, cladding, crystal_axis, gap:
            see ``Ridge``.
        radius: bend radius of the ridge centre (µm); inf for straight. Bends are solved on
            the full cross-section (``symmetry`` is ignored) with a PML on the outer side,
            and only modes with most of their field near the ridge are kept.
        symmetry: for straight guides, "pec" (electric wall at x = 0: TE0 family, even
            supermodes), "pmc" (magnetic wall: TM0 family, odd TE supermodes) or None (full
            cross-section, PML on both sides).
        num_modes: number of modes returned (at most).
        mesh: grid settings (default ``Mesh()``).
        neff_guess: search near this index (default: just above the highest index possible).
        extra: eigenpairs computed beyond ``num_modes`` and then filtered out (radiation, PML
            modes); default 6 for bends, 0 for straight guides.
        decouple_tm: see ``Ridge``.
        ncv: Arnoldi vectors (None: ARPACK's default, max(2k + 1, 20)); a few suffice for one mode just below
            ``neff_guess``.
        metal, gold_relaxation_fs: gold rectangles in the cross-section and the gold's Drude relaxation time (fs; see
            ``Ridge``); their absorption is 2 k0 Im n_eff.

    Returns:
        list of ``Mode``.

    Long because the steps (grid, PML stretching, permittivity tensor on the Yee cells, operator assembly,
    shift-invert eigen-solve, filtering of radiation and PML modes) share the grid arrays; each is marked.
    """
    _validate(wl, radius)
    ridge = Ridge(width, film_thickness, etch_depth, sidewall_angle_deg, cladding, crystal_axis, gap, decouple_tm,
                  metal, gold_relaxation_fs)
    mesh = mesh or Mesh()
    bend = math.isfinite(radius)
    if bend and gap is not None:
        raise ValueError(f"gap = {gap}: bent ridge pairs are not supported (radius must be inf)")
    if bend:
        symmetry = None
    check_choice("symmetry", symmetry, ("pec", "pmc", None))

    xn, yn, pml_lo, pml_hi = _grid(ridge, mesh, bend, symmetry)
    nx, ny = len(xn) - 1, len(yn) - 1
    x, y = xn[:-1], yn[:-1]
    xh, yh = 0.5 * (xn[:-1] + xn[1:]), 0.5 * (yn[:-1] + yn[1:])
    # bounds of the dual cells around the integer nodes (mirror image at the near wall)
    xd = np.concatenate([[2 * xn[0] - xh[0]], xh])
    yd = np.concatenate([[2 * yn[0] - yh[0]], yh])

    def stretch(pos):  # PML: s = 1 − jσ(d/L)², outgoing waves exp(−jkx) decay
        d = np.clip((pos - pml_hi) / mesh.pml, 0, None) if math.isfinite(pml_hi) else 0 * pos
        if math.isfinite(pml_lo):
            d = d + np.clip((pml_lo - pos) / mesh.pml, 0, None)
        return 1.0 - 1j * mesh.pml_sigma * d**2

    left_x = symmetry or "pec"
    dxf1, dxb1, hx, hxd = diff_ops(xn, left_x, stretch(x), stretch(xh))
    dyf1, dyb1, hy, hyd = diff_ops(yn, "pec")
    ix, iy = sp.identity(nx, format="csr"), sp.identity(ny, format="csr")
    k0 = 2 * math.pi / wl
    dxf = sp.kron(dxf1, iy, format="csr") / k0
    dxb = sp.kron(dxb1, iy, format="csr") / k0
    dyf = sp.kron(ix, dyf1, format="csr") / k0
    dyb = sp.kron(ix, dyb1, format="csr") / k0

    # materials at the Yee positions (sub-pixel averaged), and their λ-derivatives
    def eps(w):
        e = (
            cell_average(ridge, w, 0, xn[:-1], xn[1:], yd[:-1], yd[1:], mesh.subpixel, harmonic_axis=0),
            cell_average(ridge, w, 1, xd[:-1], xd[1:], yn[:-1], yn[1:], mesh.subpixel, harmonic_axis=1),
            cell_average(ridge, w, 2, xd[:-1], xd[1:], yd[:-1], yd[1:], mesh.subpixel, harmonic_axis=None),
        )
        if bend:  # transformation optics for z = Rθ: ε ⟂ × (1 + x/R), ε ∥ ÷ (1 + x/R)
            e = (e[0] * fh, e[1] * fi, e[2] / fi)
        return e

    fi = (1.0 + x / radius)[:, None]  # integer x: Ey, Ez, Hx
    fh = (1.0 + xh / radius)[:, None]  # half x: Ex, Hy, Hz
    exx, eyy, ezz = eps(wl)
    dwl = 1e-4
    d_eps = [(a - b) / (2 * dwl) for a, b in zip(eps(wl + dwl), eps(wl - dwl), strict=True)]
    mxx, myy, mzz = fi * np.ones((nx, ny)), fh * np.ones((nx, ny)), 1.0 / fh * np.ones((nx, ny))

    def dg(a):
        return sp.diags(np.ravel(a))

    # electric walls: tangential E on integer nodes vanishes (Ex, Ez at y0; Ey, Ez at x0 if PEC)
    m_ex, m_ey, m_ez = np.ones((nx, ny)), np.ones((nx, ny)), np.ones((nx, ny))
    m_ex[:, 0] = m_ez[:, 0] = 0
    if left_x == "pec":
        m_ey[0, :] = m_ez[0, :] = 0
    mt = dg(np.concatenate([m_ex.ravel(), m_ey.ravel()]))
    imzz = dg(1.0 / mzz)

    def p2(iezz):  # the curl-curl part of P (k0-normalised derivatives)
        return sp.bmat([[-dxf @ iezz @ dyb, dxf @ iezz @ dxb], [-dyf @ iezz @ dyb, dyf @ iezz @ dxb]], format="csr")

    # β Eₜ = P Hₜ ;  β Hₜ = Q Eₜ   (see the module docstring)
    p_curl = p2(dg(m_ez / ezz))
    q_curl = sp.bmat([[dxb @ imzz @ dyf, -dxb @ imzz @ dxf], [dyb @ imzz @ dyf, -dyb @ imzz @ dxf]], format="csr")
    p = p_curl + sp.bmat([[None, dg(myy)], [-dg(mxx), None]], format="csr")
    q = q_curl + sp.bmat([[None, -dg(eyy)], [dg(exx), None]], format="csr")
    a = (mt @ p @ q @ mt).tocsc()
    # dA/dλ: the curl parts scale as λ² (derivatives / k0); ε(λ) from the Sellmeier fits
    dp = (2.0 / wl) * p_curl + p2(dg(-m_ez * d_eps[2] / ezz**2))
    dq = (2.0 / wl) * q_curl + sp.bmat([[None, -dg(d_eps[1])], [dg(d_eps[0]), None]], format="csr")

    ln, box, clad = ridge.eps_tensor(wl)
    # shift just above the highest possible n_eff: TE0 of the unetched film at the largest LN
    # index, times the bend's outward shift
    n_top = slab_te0_neff(wl, film_thickness, math.sqrt(max(ln)), math.sqrt(box), math.sqrt(clad))
    sigma = (neff_guess if neff_guess is not None else n_top * (1 + 0.5 * width / radius) + 0.01) ** 2
    n_cap = math.sqrt(max(ln)) * (1 + xn[-1] / radius)
    nev = min(num_modes + (extra if extra is not None else (6 if bend else 0)), 2 * nx * ny - 2)
    vals, vecs = eigs_near(a, sigma, nev, nx, ny, ncv)

    # post-processing
    n = nx * ny
    area_xh = np.outer(hx, hyd)  # cells of Ex, Hy (half x, integer y)
    area_yh = np.outer(hxd, hy)  # cells of Ey, Hx
    area_c = np.outer(hxd, hyd)  # cells of Ez
    ln_frac_x = ln_fraction(ridge, xn[:-1], xn[1:], yd[:-1], yd[1:], mesh.subpixel)
    weight = 1.0 if symmetry is None else 2.0
    in_pml = ((xh > pml_hi) | (xh < pml_lo))[:, None]
    near = np.zeros((nx, ny), bool)
    for c in ridge.centers:
        near |= np.abs(xh - c)[:, None] < 0.5 * width + 0.5
    near &= ((y > -0.3) & (y < film_thickness + 0.3))[None, :]
    modes = []
    for lam, v in zip(vals, vecs.T, strict=True):
        if lam.real <= 0 or lam.real > n_cap**2:
            continue  # evanescent, or spurious above every index in the guide
        beta = np.sqrt(lam)  # Re β > 0
        ht = (q @ mt @ v) / beta
        ex, ey = v[:n].reshape(nx, ny), v[n:].reshape(nx, ny)
        hxf, hyf = ht[:n].reshape(nx, ny), ht[n:].reshape(nx, ny)
        ix2, iy2 = np.abs(ex) ** 2 * area_xh, np.abs(ey) ** 2 * area_yh
        total = ix2.sum() + iy2.sum()
        if ((ix2 + iy2) * in_pml).sum() > 0.3 * total:
            continue  # a PML mode
        confinement = float(((ix2 + iy2) * near).sum() / total)
        if bend and confinement < 0.3:
            continue  # slab radiation, not the ridge mode
        # dn/dλ by first-order perturbation, left eigenvector from reciprocity: y = [A Hy; −A Hx]
        y_left = np.concatenate([(area_xh * hyf).ravel(), -(area_yh * hxf).ravel()])
        dlam = (y_left @ (mt @ (dp @ (q @ (mt @ v)) + p @ (dq @ (mt @ v))))) / (y_left @ v)
        dn_dwl = complex(np.conj(dlam / (2 * beta)))
        ez = (-1j * dg(m_ez / ezz) @ (dxb @ ht[n:] - dyb @ ht[:n])).reshape(nx, ny)
        hz = (1j * imzz @ (dxf @ v[n:] - dyf @ v[:n])).reshape(nx, ny)
        power = weight * (np.sum(ex * hyf.conj() * area_xh) - np.sum(ey * hxf.conj() * area_yh)).real
        big = ex if ix2.sum() >= iy2.sum() else ey
        c = np.exp(-1j * np.angle(big.ravel()[np.argmax(np.abs(big))])) / math.sqrt(abs(power))
        f = {"Ex": ex * c, "Ey": ey * c, "Ez": ez * c, "Hx": hxf * c, "Hy": hyf * c, "Hz": hz * c}
        e2 = _at_nodes(np.abs(f["Ex"]) ** 2, 0) + _at_nodes(np.abs(f["Ey"]) ** 2, 1) + np.abs(f["Ez"]) ** 2
        a_eff = weight * np.sum(e2 * area_c) ** 2 / np.sum(e2**2 * area_c)
        gamma = math.sqrt(ln[0]) * weight * np.sum(ln_frac_x * np.abs(f["Ex"]) ** 2 * area_xh)
        modes.append(
            Mode(
                neff=complex(np.conj(beta)),  # Im > 0 ⇔ loss
                dneff_dwl=dn_dwl,
                wl=wl,
                te_fraction=float(ix2.sum() / total),
                mode_area_um2=float(a_eff),
                ln_overlap=float(gamma),
                confinement=confinement,
                x=x, y=y, xh=xh, yh=yh, fields=f, symmetry=symmetry,
                areas=(area_xh, area_yh),
            )
        )  # fmt: skip
    modes.sort(key=lambda m: -m.neff.real)
    return modes[:num_modes]


def slab_te0_neff(wl: float, t: float, n1: float, n_below: float, n_above: float) -> float:
    """TE0 index of an asymmetric slab (core n1, thickness t): k0 t κ = atan(γb/κ) + atan(γa/κ)."""
    k0 = 2 * math.pi / wl
    lo = max(n_below, n_above) + 1e-12

    def f(n):
        kap = math.sqrt(n1**2 - n**2)
        return (
            k0 * t * kap - math.atan(math.sqrt(n**2 - n_below**2) / kap) - math.atan(math.sqrt(n**2 - n_above**2) / kap)
        )

    return brentq(f, lo, n1 - 1e-12) if f(lo) > 0 else lo


def _at_nodes(a, axis):
    """Average a half-node quantity onto the integer nodes along ``axis``."""
    b = np.zeros_like(a)
    if axis == 0:
        b[1:] = 0.5 * (a[1:] + a[:-1])
        b[0] = a[0]
    else:
        b[:, 1:] = 0.5 * (a[:, 1:] + a[:, :-1])
        b[:, 0] = 0.5 * a[:, 0]
    return b


def fundamental(modes: list[Mode], polarization: str) -> Mode:
    """The highest mode of the wanted polarisation (TE: te_fraction > 0.5)."""
    want_te = polarization == "te"
    for m in modes:
        if (m.te_fraction > 0.5) == want_te:
            return m
    raise RuntimeError(f"no {polarization.upper()}-like mode among the {len(modes)} guided modes found")


def straight_mode(wl, width, film_thickness, etch_depth, polarization, crystal_axis, cladding, sidewall_angle_deg, mesh,
              decouple_tm=False, near: Mode | None = None):  # fmt: skip
    """Fundamental straight mode in its mirror class (TE0: PEC wall, TM0: PMC wall): the highest guided mode of
    that polarisation among the three highest. ``near``: the same mode on another mesh; the search then starts
    ``GUESS_MARGIN`` above it and the mode must lie within the margin of it (``benchmarks/bench_table_jobs.py``)."""
    symmetry = "pec" if polarization == "te" else "pmc"
    geo = (wl, width, film_thickness, etch_depth, math.inf, crystal_axis, cladding, sidewall_angle_deg, None, symmetry)
    guess = None if near is None else near.neff.real + GUESS_MARGIN
    # nearly always the mode nearest the shift: one eigenpair first (1/3–1/7 of the Arnoldi steps), else three
    (m,) = solve_modes(*geo, 1, mesh, guess, decouple_tm=decouple_tm, ncv=6 if near else None) or (None,)
    if (m is not None and m.confinement > 0.2 and (m.te_fraction > 0.5) == (polarization == "te")
            and (near is None or abs(m.neff.real - near.neff.real) < GUESS_MARGIN)):
        return m
    modes = solve_modes(*geo, 3, mesh, guess, decouple_tm=decouple_tm)
    return fundamental([m for m in modes if m.confinement > 0.2], polarization)


def bend_modes(
    wl: float = 1.55,
    width: float = RIDGE_WIDTH,
    film_thickness: float = FILM_THICKNESS,
    etch_depth: float = ETCH_DEPTH,
    radius: float = 20.0,
    crystal_axis: str = "z",
    cladding: str = CLADDING,
    sidewall_angle_deg: float = SIDEWALL_ANGLE_DEG,
    mesh: Mesh | None = None,
    neff_guess: float | None = None,
    decouple_tm: bool = False,
) -> dict:
    """Fundamental TE-like and TM-like modes of a bent ridge.

    The bend breaks the mirror symmetry, so TE and TM mix where their indices are close:
    in X-cut film with crystal_axis "z" the TE0 (n_e) and TM0 (n_o) ridge modes cross near
    600–650 nm film (Wang et al. and others report this hybridisation in X-cut rings).
    The modes returned are the eigenmodes themselves (what a ring with that cross-section
    resonates on): the guided mode of highest Re n_eff with TE fraction > 0.5 ("te") and
    < 0.5 ("tm"). Through an avoided crossing the labels swap branches. Only modes with
    ≥ 30 % of their field within 0.5 µm of the ridge count as guided (a tight bend of a
    wide ridge gives a whispering-gallery mode, which counts; a shallow etch can leave none).

    Args:
        wl, width, film_thickness, etch_depth, crystal_axis, cladding, sidewall_angle_deg, mesh:
            see ``solve_modes``.
        radius: bend radius of the ridge centre (µm).
        neff_guess: straight-guide index to centre the search on (speeds it up).
        decouple_tm: see ``Ridge``.

    Returns:
        dict with "te" and "tm" (``Mode``; a key is missing when no such mode is guided) and
        "modes" (all guided bend modes found).
    """
    geo = (wl, width, film_thickness, etch_depth, radius, crystal_axis, cladding, sidewall_angle_deg, None, None)
    if neff_guess is not None:
        modes = solve_modes(*geo, 4, mesh, neff_guess, 2, decouple_tm=decouple_tm)
    else:
        modes = solve_modes(*geo, 6, mesh, decouple_tm=decouple_tm)
    out = {"modes": modes}
    for pol in ("te", "tm"):
        try:
            out[pol] = fundamental(modes, pol)
        except RuntimeError:
            pass
    if "te" not in out and "tm" not in out:
        raise RuntimeError(f"no guided bend mode at radius = {radius} µm")
    return out


def bend_shift(
    wl: float = 1.55,
    radius: float = 20.0,
    width: float = RIDGE_WIDTH,
    film_thickness: float = FILM_THICKNESS,
    etch_depth: float = ETCH_DEPTH,
    crystal_axis: str = "z",
    mesh: Mesh | None = None,
    cladding: str = CLADDING,
    sidewall_angle_deg: float = SIDEWALL_ANGLE_DEG,
) -> tuple[complex, complex]:
    """TE bend shift n_bend − n_straight and its λ-derivative, without TE/TM hybridisation.

    Both indices are solved with ``decouple_tm`` (LN εyy = εxx), which moves TM0 away so
    the bend cannot mix it into TE0; what remains is the bend's own shift (outward
    displacement and its dispersion) and radiation (the imaginary part). Against the
    true bend eigenmode this differs by ≲ 3e-4 in n_eff and ≲ 2e-3 in n_g where TE0 and
    TM0 are ≥ 0.02 apart; near the TE0/TM0 crossing of X-cut film (crystal_axis "z",
    film ≈ 0.55–0.7 µm) the real mode also carries the avoided crossing, which this
    smooth shift leaves out (at 600 nm film, R = 20 µm, 1.55 µm: 7e-4 in n_eff, 0.013 in
    n_g); the compact model adds it from the pair's 2×2 (``dispersion.bend_pair_elements``).

    Returns:
        (Δn_eff (complex; Im = radiation), dΔn_eff/dλ (1/µm)).
    """
    args = (wl, width, film_thickness, etch_depth)
    st = straight_mode(*args, "te", crystal_axis, cladding, sidewall_angle_deg, mesh, decouple_tm=True)
    b = bend_modes(*args, radius, crystal_axis, cladding, sidewall_angle_deg, mesh=mesh, neff_guess=st.neff.real,
                   decouple_tm=True)
    if "te" not in b:
        raise RuntimeError(f"no guided TE bend mode at radius = {radius} µm")
    return b["te"].neff - st.neff.real, b["te"].dneff_dwl - st.dneff_dwl


def solve_mode(
    wl: float = 1.55,
    width: float = RIDGE_WIDTH,
    film_thickness: float = FILM_THICKNESS,
    etch_depth: float = ETCH_DEPTH,
    radius: float = math.inf,
    polarization: str = "te",
    crystal_axis: str = "z",
    cladding: str = CLADDING,
    sidewall_angle_deg: float = SIDEWALL_ANGLE_DEG,
    mesh: Mesh | None = None,
) -> Mode:
    """Fundamental TE (in-plane E) or TM mode of a single ridge.

    Straight: the highest guided mode of that polarisation in its mirror class. Bent: the
    highest guided bend mode of that polarisation (see ``bend_modes``).
    """
    check_choice("polarization", polarization, ("te", "tm"))
    _validate(wl, radius)
    args = (wl, width, film_thickness, etch_depth)
    if not math.isfinite(radius):
        return straight_mode(*args, polarization, crystal_axis, cladding, sidewall_angle_deg, mesh)
    b = bend_modes(*args, radius, crystal_axis, cladding, sidewall_angle_deg, mesh)
    if polarization not in b:
        raise RuntimeError(f"no guided {polarization.upper()}-like bend mode at radius = {radius} µm")
    return b[polarization]


def neff_bend(wl: float = 1.55, radius: float = 20.0, polarization: str = "te", **kwargs) -> complex:
    """Complex n_eff of the fundamental mode (``solve_mode``); radius = inf is straight."""
    return solve_mode(wl, radius=radius, polarization=polarization, **kwargs).neff


def group_index(wl: float = 1.55, dwl: float = 0.005, radius: float = math.inf, polarization: str = "te", **kwargs):
    """n_g = n_eff − λ dn_eff/dλ by central difference over λ ± dwl (material dispersion included).

    Args:
        wl: wavelength (µm).
        dwl: half step (µm).
        radius, polarization: as in ``solve_mode``.
        **kwargs: geometry and mesh, forwarded to ``neff_bend``.
    """
    n = [neff_bend(w, radius, polarization, **kwargs).real for w in (wl - dwl, wl, wl + dwl)]
    return n[1] - wl * (n[2] - n[0]) / (2 * dwl)


def eo_overlap(mode: Mode) -> float:
    """Pockels overlap Γ of a TE mode with a uniform horizontal field in the LN.

    Defined by first-order perturbation theory (e.g. Chuang, Physics of Photonic Devices,
    2009, ch. 8) for Δεxx = −n_e⁴ r33 E in the LN:

        Δn_eff = −½ n_e³ r33 Γ E,   Γ = n_e ∫_LN |Ex|² dA / Re ∫ (E × H*)·ẑ dA,

    with H in units of Z0·H. For weak guidance H ≈ n_eff E and Γ ≈ (n_e/n_eff) ∫_LN|Ex|²/∫|E|²,
    the index-weighted confinement of Wooten et al., JSTQE 6, 69 (2000). With E = V/g this
    is |Δn_eff| = ½ n_e³ r33 Γ V/g. n_e is the film's horizontal index (n_e for crystal_axis
    "z"; for "y" the same integral is n_o-weighted and is not an r33 overlap).
    """
    return mode.ln_overlap


def solve_ridge_summary(
    wl: float = 1.55,
    width: float = RIDGE_WIDTH,
    film_thickness: float = FILM_THICKNESS,
    etch_depth: float = ETCH_DEPTH,
    radius: float = math.inf,
    polarization: str = "te",
    crystal_axis: str = "z",
    mesh: Mesh | None = None,
    cladding: str = CLADDING,
    sidewall_angle_deg: float = SIDEWALL_ANGLE_DEG,
) -> dict:
    """One fresh solve, summarised as plain floats (for the CLI and reports).

    Returns:
        dict: neff, ng, loss_db_per_cm, te_fraction, mode_area_um2, gamma (Γ, see
        ``eo_overlap``) of the fundamental mode (the bend eigenmode for finite radius);
        for a TE bend also neff_model and ng_model, the straight mode plus ``bend_shift``
        (the definition the compact model tabulates).
    """
    wall = {"cladding": cladding, "sidewall_angle_deg": sidewall_angle_deg}
    m = solve_mode(wl, width, film_thickness, etch_depth, radius, polarization, crystal_axis, mesh=mesh, **wall)
    out = {
        "neff": m.neff.real,
        "ng": m.ng,
        "loss_db_per_cm": m.loss_db_per_cm,
        "te_fraction": m.te_fraction,
        "mode_area_um2": m.mode_area_um2,
        "gamma": m.ln_overlap,
    }
    if math.isfinite(radius) and polarization == "te":
        st = solve_mode(wl, width, film_thickness, etch_depth, math.inf, "te", crystal_axis, mesh=mesh, **wall)
        shift, dshift = bend_shift(wl, radius, width, film_thickness, etch_depth, crystal_axis, mesh, **wall)
        out["neff_model"] = st.neff.real + shift.real
        out["ng_model"] = st.ng + shift.real - wl * dshift.real
    return out
