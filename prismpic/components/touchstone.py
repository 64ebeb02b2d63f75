"""Touchstone (``.sNp``) in and out: a file's S-parameters as a SAX model, and any model's S-parameters as a file.

Reading (``read_touchstone``): scikit-rf parses the file (Touchstone 1.x and 2.0; RI, MA and DB; any frequency
unit), and prismpic refuses, with a ``ValueError`` naming the file, what it cannot use as it stands: text that does
not parse, Y/Z/G/H parameters (optical exchange is S only), fewer than two frequencies, frequencies that do not
increase strictly (in a 2-port Touchstone 1.x file a decrease starts the noise-parameter block, which is refused
for the same reason), non-finite values, a port mapping whose length is not the file's port count, and gain: the
largest singular value of S over the file's frequencies above 1 + ``gain_tol`` (default ``GAIN_TOL``) unless
``allow_gain=True``. The result (``Touchstone``) carries that largest singular value (``max_singular_value``), the
band, and the mapping of Touchstone port i to a prismpic port name (``ports``; default ``o1..oN``).

Interpolation over wavelength (λ = c/f, µm): the real and imaginary parts of each S_ij, after removing its mean
delay, each a cubic spline (``scipy.interpolate.CubicSpline``, not-a-knot; ``jnp`` evaluates it). Per entry the
delay b_ij is the |S|-weighted mean slope of the phase over ν = 1/λ (from the wrapped phase steps between
neighbouring samples), the entry is interpolated as S_ij(λ)·exp(−i b_ij (1/λ − ν₀)) and turned back. Why: the
S-parameters of a linear device are smooth (analytic) in λ, and their real and imaginary parts are smooth functions;
magnitude and phase are not where an entry passes near zero (the through port of a ring near critical coupling, an
MZI null, a small reflection): |S| has a cusp there and the phase a step of up to π. Measured
(``benchmarks/touchstone_interpolation.py``, largest error between samples): ``ring_add_drop`` (FWHM 133 pm,
extinction 24 dB) sampled every FWHM/10, 1.1e-4 this way against 2.9e-2 (PCHIP) and 3.0e-2 (spline) with magnitude
and unwrapped phase. What magnitude and unwrapped phase do well, a long device whose phase turns by a large fraction
of 2π between samples, the delay removal does: a 1 cm straight sampled every 20 pm (1.2 rad per sample), 1.1e-10,
against 5.6e-2 for real and imaginary parts without it. Where magnitude and phase do better is an under-coupled
all-pass ring (extinction 2.5 dB) with a spline on both: 7.5e-5 against 1.7e-4 at FWHM/10 (PCHIP: 9.1e-4).
No sampling recovers an entry whose phase (less its delay) turns by π or more between samples. The interpolant is exact at the samples and has a
continuous second derivative (gradients in λ are smooth); ``max_singular_value_between`` is the largest singular
value of S at the midpoints between samples (reported, not a gate: a spline may overshoot slightly). Outside the
file's band the model refuses concrete wavelengths (``ValueError`` giving the band) and returns NaN under tracing:
no extrapolation.

Models: ``Touchstone.model()`` (or ``touchstone_model(path)``) is a model of the file alone, its ports those of the
file; register it under a name of its own for netlists (``models = {**PDK.models, "dut": touchstone_model(p)}``).
``touchstone`` is the netlist model ``PDK.models["touchstone"]``: the file path and the port mapping are settings
(strings, which SAX passes through). SAX learns a model's ports from one call with its defaults, so this one model
name is a 2-port with ports o1 and o2 (mapped in either order), and refuses other files, naming the way out.
The file is read when the model is called (once per path, mapping and modification time; cached), not traced.
The SDict key (a, b) holds S_ab of the file, a and b the mapped names of Touchstone ports i and j (S_ij = b_i/a_j),
as SAX's own Touchstone parser (``sax.parsers.touchstone``) maps them; the two readings of a key agree for the
reciprocal devices prismpic models.

Writing (``write_touchstone``): a model (any registered one, with settings, or a ``sax.circuit``) evaluated at
the given wavelengths, written by scikit-rf with every digit (Python's shortest repr of each float64) and the
frequency axis ascending as the format requires, through ``prismpic.fileio`` (atomic: the file is complete or
absent). The port order (natural sort of the model's port names) is stated in the file's comment lines; so are the
model and its settings. The reference resistance (R 50) is nominal: optical S-parameters are mode amplitudes
normalised so that |S|² is power.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from natsort import natsorted
from scipy.constants import c as C_M_PER_S

from prismpic.checks import concrete, is_traced
from prismpic.components.model_signature import FloatArrayLike
from prismpic.fileio import jsonable, write_text_atomic
from prismpic.lazy_imports import sax

GAIN_TOL = 1e-6  # largest singular value of S allowed above 1 before a file counts as gain (measured files carry
# 6–10 significant digits; a passive model written with every digit stays within 1e-12 of its own bound)
BAND_RTOL = 1e-12  # relative slack at the band edges: λ = c/f rounds in the last digits of a float64
NETLIST_PORTS = ("o1", "o2")  # the ports of the netlist model ``touchstone`` (see the module docstring)
FORMS = ("ri", "ma", "db")
SUFFIX = re.compile(r"\.s(\d+)p$", re.IGNORECASE)
WRITE_UNIT = "GHz"  # Touchstone 1.x allows Hz, kHz, MHz and GHz


def wl_to_hz(wl_um):
    """Frequency (Hz) of the vacuum wavelength ``wl_um`` (µm): f = c/λ."""
    return C_M_PER_S / (np.asarray(wl_um, dtype=float) * 1e-6)


def hz_to_wl(f_hz):
    """Vacuum wavelength (µm) of the frequency ``f_hz`` (Hz): λ = c/f."""
    return C_M_PER_S / np.asarray(f_hz, dtype=float) * 1e6


def default_ports(n: int) -> tuple[str, ...]:
    """The default mapping of an n-port file: Touchstone port i is prismpic port ``o{i}``."""
    return tuple(f"o{i}" for i in range(1, n + 1))


def port_names(ports, n: int, name: str) -> tuple[str, ...]:
    """A declared mapping (``"a,b"``, a sequence of names, or None for ``o1..oN``) checked against the file's port
    count ``n``; ValueError naming the file ``name``."""
    if ports is None:
        return default_ports(n)
    names = tuple(p.strip() for p in ports.split(",")) if isinstance(ports, str) else tuple(ports)
    if not all(isinstance(p, str) and p and "," not in p for p in names):
        raise ValueError(f"ports = {ports!r} for touchstone file {name!r} must be non-empty port names, e.g. 'o1,o2'")
    if len(names) != n:
        raise ValueError(f"ports = {ports!r} declares {len(names)} port(s) for touchstone file {name!r}, which has {n}"
                         f" port(s); give {n} names (Touchstone port order), e.g. {','.join(default_ports(n))!r}")
    if len(set(names)) != n:
        raise ValueError(f"ports = {ports!r} for touchstone file {name!r} names a port twice")
    return names


# ---------------------------------------------------------------------------- interpolation
def mean_delay(nu: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Per entry, the |S|-weighted mean slope (rad·µm) of the phase of ``s`` (n, …) over ``nu`` = 1/λ (n,, µm⁻¹),
    from the wrapped phase steps between neighbouring samples; 0 for an entry that is zero throughout."""
    w = np.abs(s[1:]) * np.abs(s[:-1])
    step = np.angle(s[1:] * np.conj(s[:-1]))
    dnu = np.diff(nu).reshape((-1,) + (1,) * (s.ndim - 1))
    den = np.sum(w * dnu, axis=0)
    return np.where(den != 0, np.sum(w * step, axis=0) / np.where(den != 0, den, 1.0), 0.0)


def spline_coefficients(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Power-basis coefficients (4, n−1, …) of the not-a-knot cubic spline of ``y`` (n, …, real or complex) over
    ascending ``x`` (n,), highest power first, each piece in (x − x_k)."""
    from scipy.interpolate import CubicSpline

    return np.asarray(CubicSpline(x, y, axis=0).c)


def piecewise_cubic(x: np.ndarray, coeffs: np.ndarray, xq):
    """Evaluate power-basis cubic pieces ``coeffs`` (4, n−1, …) on breakpoints ``x`` (n,) at ``xq`` (any shape):
    shape ``xq.shape + coeffs.shape[2:]``; jittable, differentiable in ``xq``. Points outside [x₀, x_{n−1}] use the
    end pieces (callers keep ``xq`` inside)."""
    xq = jnp.asarray(xq, dtype=float)
    k = jnp.clip(jnp.searchsorted(jnp.asarray(x), xq, side="right") - 1, 0, x.size - 2)
    t = (xq - jnp.asarray(x)[k]).reshape(xq.shape + (1,) * (coeffs.ndim - 2))
    c = jnp.asarray(coeffs)
    return ((c[0][k] * t + c[1][k]) * t + c[2][k]) * t + c[3][k]


def interpolant(wl: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """What ``delayed_spline`` needs for S (n, N, N) at ascending ``wl`` (µm): spline coefficients of S with its
    mean delay removed, the delays (N, N) and the reference ν₀ (µm⁻¹)."""
    nu = 1.0 / wl
    nu0 = float(np.mean(nu))
    delay = mean_delay(nu, s)
    return spline_coefficients(wl, s * np.exp(-1j * delay * (nu - nu0)[:, None, None])), delay, nu0


def delayed_spline(wl: np.ndarray, coeffs: np.ndarray, delay: np.ndarray, nu0: float, wq):
    """S (…, N, N) at ``wq`` (µm) from ``interpolant``'s output: the spline turned back by its delays."""
    wq = jnp.asarray(wq, dtype=float)
    turn = jnp.exp(1j * jnp.asarray(delay) * (1.0 / wq - nu0).reshape(wq.shape + (1, 1)))
    return piecewise_cubic(wl, coeffs, wq) * turn


# ---------------------------------------------------------------------------- reading
@dataclasses.dataclass(frozen=True, eq=False)
class Touchstone:
    """A Touchstone file read and checked (``read_touchstone``); ``model()`` is its SAX model.

    Attributes:
        path: the file, as given.
        ports: prismpic port name of Touchstone port 1, 2, … .
        wl_um: wavelengths (µm) of the file's frequencies, ascending (the file's frequencies reversed).
        s: S-parameters (n_wl, N, N) at ``wl_um``, in Touchstone port order (``s[:, i, j]`` = S_{i+1, j+1}).
        max_singular_value: largest singular value of S over the file's frequencies (≤ 1 + tolerance: passive).
        wl_at_max_um: wavelength (µm) where it occurs.
        max_singular_value_between: the same for the interpolant at the midpoints between samples (reported only).
        allow_gain: whether gain was allowed when reading.
        coeffs, delay, nu0: the interpolant (``interpolant``): spline coefficients (4, n_wl − 1, N, N) of S with
            each entry's mean delay (rad·µm, (N, N)) removed about ν₀ (µm⁻¹).
    """

    path: str
    ports: tuple[str, ...]
    wl_um: np.ndarray
    s: np.ndarray
    max_singular_value: float
    wl_at_max_um: float
    max_singular_value_between: float
    allow_gain: bool
    coeffs: np.ndarray
    delay: np.ndarray
    nu0: float

    @property
    def band_um(self) -> tuple[float, float]:
        """Lowest and highest wavelength (µm) of the file."""
        return float(self.wl_um[0]), float(self.wl_um[-1])

    @property
    def passive(self) -> bool:
        """Largest singular value of S at the file's frequencies ≤ 1 + ``GAIN_TOL``."""
        return self.max_singular_value <= 1 + GAIN_TOL

    def summary(self) -> str:
        """One line: ports, points, band, largest singular value."""
        lo, hi = self.band_um
        return (f"{self.path}: {len(self.ports)} ports ({', '.join(self.ports)}), {self.wl_um.size} points, "
                f"{lo:.6g}–{hi:.6g} µm; max singular value {self.max_singular_value:.9g} at {self.wl_at_max_um:.6g} µm"
                f" ({'passive' if self.passive else 'gain'}), {self.max_singular_value_between:.9g} between samples")

    def checked_wl(self, wl):
        """``wl`` (µm) inside the band: ValueError naming the file and the band for concrete values outside it;
        under tracing, NaN where outside (no extrapolation)."""
        lo, hi = self.band_um
        lo, hi = lo * (1 - BAND_RTOL), hi * (1 + BAND_RTOL)
        if is_traced(wl):
            w = jnp.asarray(wl, dtype=float)
            return jnp.where((w >= lo) & (w <= hi), w, jnp.nan)
        a = np.asarray(concrete(wl))
        if a.dtype.kind not in "biuf":
            raise ValueError(f"wl = {wl!r} must be real wavelengths (µm) for touchstone file {self.path!r}")
        a = a.astype(float)
        bad = ~((a >= lo) & (a <= hi))
        if np.any(bad):
            first = float(a.reshape(-1)[np.flatnonzero(bad.reshape(-1))[0]])
            f_lo, f_hi = wl_to_hz(self.band_um[1]) * 1e-12, wl_to_hz(self.band_um[0]) * 1e-12
            raise ValueError(f"wl = {first:g} µm is outside the band of touchstone file {self.path!r}: "
                             f"[{self.band_um[0]:.9g}, {self.band_um[1]:.9g}] µm ({f_lo:.6g}–{f_hi:.6g} THz)"
                             + (f"; {int(bad.sum())} of {a.size} wavelengths outside" if a.size > 1 else "")
                             + "; prismpic does not extrapolate S-parameters")
        return jnp.asarray(a)

    def s_dense(self, wl):
        """Interpolated S (…, N, N) at ``wl`` (µm), Touchstone port order; jittable, differentiable in ``wl``."""
        return delayed_spline(self.wl_um, self.coeffs, self.delay, self.nu0, self.checked_wl(wl))

    def sdict(self, wl) -> sax.SDict:
        """Interpolated S at ``wl`` (µm) as an SDict over the mapped port names (every pair, keys in the natural
        order of the names, so that mappings that permute the same names give the same keys)."""
        s = self.s_dense(wl)
        index = {p: i for i, p in enumerate(self.ports)}
        order = natsorted(self.ports)
        return {(a, b): s[..., index[a], index[b]] for a in order for b in order}

    def model(self) -> sax.Model:
        """A SAX model of this file alone: ``model(wl=<band centre>) -> SDict`` over its ports (``ports``)."""
        centre = round(0.5 * sum(self.band_um), 9)
        lo, hi = self.band_um
        centre = min(max(centre, lo), hi)

        def model(wl: FloatArrayLike = centre) -> sax.SDict:
            return self.sdict(wl)

        model.__name__ = "touchstone_" + re.sub(r"\W", "_", Path(self.path).stem)
        model.__doc__ = (f"S-parameters of the Touchstone file {self.path!r} (prismpic.components.touchstone).\n\n"
                         f"Args:\n    wl: wavelength (µm), inside {lo:.9g}–{hi:.9g} µm.\n")
        model.touchstone = self
        return model


def _parse(path: Path, name: str):
    """scikit-rf's parse of the file (``skrf.io.touchstone.Touchstone``); ValueError naming the file otherwise."""
    from skrf.io.touchstone import Touchstone as SkrfTouchstone

    if not path.exists():
        raise ValueError(f"touchstone file {name!r} does not exist")
    if not path.is_file():
        raise ValueError(f"touchstone file {name!r} is not a file")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return SkrfTouchstone(str(path))
    except OSError as e:
        raise ValueError(f"touchstone file {name!r} cannot be read ({e.strerror or e})") from None
    except Exception as e:  # noqa: BLE001  (any parse failure of a foreign file is bad input)
        why = " ".join(str(e).split()) or type(e).__name__
        raise ValueError(f"touchstone file {name!r} does not parse as Touchstone (.sNp): {why[:200]}") from None


def _checked_data(ts, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Frequencies (Hz) and S (n, N, N) of a parsed file, checked (see the module docstring)."""
    parameter = str(ts.parameter).lower()
    if parameter != "s":
        raise ValueError(f"touchstone file {name!r} holds {parameter.upper()}-parameters; prismpic reads "
                         "S-parameters only")
    f = np.asarray(ts.f, dtype=float)
    s = np.asarray(ts.s, dtype=complex)
    if getattr(ts, "noise", None) is not None:
        f_noise = float(np.asarray(ts.noise)[0, 0])
        raise ValueError(f"touchstone file {name!r}: the frequency falls to {f_noise / 1e9:.9g} GHz after "
                         f"{f[-1] / 1e9:.9g} GHz; frequencies must increase strictly (a 2-port Touchstone 1.x file "
                         "reads a decrease as the start of noise parameters, which prismpic does not read)")
    if f.size < 2:
        raise ValueError(f"touchstone file {name!r} holds {f.size} frequency point(s); at least 2 are needed to "
                         "interpolate over wavelength")
    if s.ndim != 3 or s.shape[0] != f.size or s.shape[1] != s.shape[2] or s.shape[1] < 1:
        raise ValueError(f"touchstone file {name!r} does not parse as Touchstone (.sNp): S has shape {s.shape}")
    if not (np.all(np.isfinite(f)) and np.all(f > 0)):
        raise ValueError(f"touchstone file {name!r}: frequencies must be finite and positive")
    if not np.all(np.isfinite(s)):
        k = int(np.flatnonzero(~np.all(np.isfinite(s), axis=(1, 2)))[0])
        raise ValueError(f"touchstone file {name!r}: non-finite S-parameter at {f[k] / 1e9:.9g} GHz")
    step = np.diff(f)
    if np.any(step <= 0):
        k = int(np.flatnonzero(step <= 0)[0])
        raise ValueError(f"touchstone file {name!r}: frequencies must increase strictly; point {k + 2} "
                         f"({f[k + 1] / 1e9:.9g} GHz) follows {f[k] / 1e9:.9g} GHz")
    return f, s


def read_touchstone(path, ports=None, *, allow_gain: bool = False, gain_tol: float = GAIN_TOL) -> Touchstone:
    """Read and check a Touchstone file (see the module docstring).

    Args:
        path: the ``.sNp`` file (Touchstone 1.x or 2.0).
        ports: prismpic port name of Touchstone port 1, 2, …, as a sequence or ``"a,b,..."``; None is ``o1..oN``.
        allow_gain: read a file whose S has a singular value above 1 + ``gain_tol`` (an active device).
        gain_tol: tolerance on the largest singular value above 1 (dimensionless), in [0, 1].

    Returns:
        The checked data, its interpolant and its figures (``Touchstone``).
    """
    name = str(path)
    if not (isinstance(gain_tol, int | float) and 0 <= gain_tol <= 1):
        raise ValueError(f"gain_tol = {gain_tol!r} must be a number in [0, 1]")
    f, s_file = _checked_data(_parse(Path(path), name), name)
    names = port_names(ports, s_file.shape[1], name)
    wl = hz_to_wl(f)[::-1].copy()
    s = s_file[::-1].copy()
    sv = np.linalg.svd(s, compute_uv=False).max(axis=-1)
    k = int(np.argmax(sv))
    if sv[k] > 1 + gain_tol and not allow_gain:
        raise ValueError(f"touchstone file {name!r} has gain: the largest singular value of S is {sv[k]:.9g} at "
                         f"{wl[k]:.9g} µm, above 1 + {gain_tol:g}; pass allow_gain=True to read an active device")
    coeffs, delay, nu0 = interpolant(wl, s)
    with jax.ensure_compile_time_eval():  # concrete even when the file is first read inside a jit trace
        s_mid = np.asarray(delayed_spline(wl, coeffs, delay, nu0, 0.5 * (wl[1:] + wl[:-1])))
    return Touchstone(path=name, ports=names, wl_um=wl, s=s, max_singular_value=float(sv[k]),
                      wl_at_max_um=float(wl[k]),
                      max_singular_value_between=float(np.linalg.svd(s_mid, compute_uv=False).max()),
                      allow_gain=bool(allow_gain), coeffs=coeffs, delay=delay, nu0=nu0)


def touchstone_model(path, ports=None, *, allow_gain: bool = False, gain_tol: float = GAIN_TOL) -> sax.Model:
    """The SAX model of a Touchstone file: ``read_touchstone(...).model()``; its ``touchstone`` attribute holds the
    data and figures (``max_singular_value``, band, ports).

    Args:
        path, ports, allow_gain, gain_tol: as ``read_touchstone``.
    """
    return read_touchstone(path, ports, allow_gain=allow_gain, gain_tol=gain_tol).model()


@functools.lru_cache(maxsize=32)
def _cached(resolved: str, stamp: tuple[int, int], name: str, ports: tuple[str, ...] | None,
            allow_gain: bool) -> Touchstone:
    return read_touchstone(name, ports, allow_gain=allow_gain)


def cached_touchstone(path, ports=None, *, allow_gain: bool = False) -> Touchstone:
    """``read_touchstone`` once per file (its resolved path, modification time and size), mapping and gain flag."""
    name = str(path)
    p = Path(path)
    try:
        st = p.stat()
    except OSError:
        return read_touchstone(name, ports, allow_gain=allow_gain)  # refuses, naming the file
    key = None if ports is None else (ports if isinstance(ports, str) else tuple(ports))
    key = tuple(q.strip() for q in key.split(",")) if isinstance(key, str) else key
    return _cached(str(p.resolve()), (st.st_mtime_ns, st.st_size), name, key, allow_gain)


def touchstone(wl: FloatArrayLike = 1.55, *, path: str = "", ports: str = "o1,o2") -> sax.SDict:
    """S-parameters of a 2-port Touchstone file, for netlists (``PDK.models["touchstone"]``).

    The file is read (once; cached) and checked as ``read_touchstone`` does. SAX learns a model's ports from one
    call with its defaults, so this model is always the 2-port o1, o2: a file with another port count, or a mapping
    to other names, is refused; use ``touchstone_model(path, ports)`` under a name of its own for those, and for a
    file with gain (``touchstone_model(path, allow_gain=True)``: SAX turns a true/false setting into an array, traced
    under ``jax.jit``, so this model takes strings only). Without a ``path`` (SAX's call that learns the ports)
    every entry is NaN, so an instance that lacks its path cannot pass for a device.

    Args:
        wl: wavelength (µm), inside the file's band.
        path: the ``.s2p`` file.
        ports: prismpic port names of Touchstone ports 1 and 2, ``"o1,o2"`` or ``"o2,o1"``.
    """
    if not isinstance(path, str):
        raise ValueError(f"path = {path!r} must be a file name (a string)")
    if not isinstance(ports, str):
        raise ValueError(f"ports = {ports!r} must be a string of two port names, e.g. 'o1,o2'")
    if path == "":
        names = port_names(ports, 2, "(none)")
        nan = jnp.full(jnp.shape(jnp.asarray(wl)), jnp.nan, dtype=complex)
        return {(a, b): nan for a in natsorted(names) for b in natsorted(names)}
    try:
        data = cached_touchstone(path)
    except ValueError as e:
        if "has gain" not in str(e):
            raise
        raise ValueError(str(e).split("; pass allow_gain")[0] + "; the netlist model 'touchstone' reads passive files "
                         "only: touchstone_model(path, allow_gain=True) under a name of its own reads this one") from None
    n = len(data.ports)
    names = port_names(ports, n, path) if n == len(NETLIST_PORTS) else ()
    if set(names) != set(NETLIST_PORTS):
        raise ValueError(f"touchstone file {path!r} has {n} port(s)" + (f" mapped to {ports!r}" if names else "")
                         + f"; the netlist model 'touchstone' is the 2-port {' and '.join(NETLIST_PORTS)} (SAX learns"
                         " a model's ports from its defaults): register touchstone_model(path, ports) under a name of"
                         " its own, e.g. models = {**PDK.models, 'dut': touchstone_model(path)}")
    data = dataclasses.replace(data, ports=names)
    return data.sdict(wl)


FILE_MODELS = {"touchstone": touchstone}  # models without a cell, registered by pdk_registry beside the devices'


# ---------------------------------------------------------------------------- writing
def touchstone_port_count(path, what: str = "out") -> int:
    """N of a ``.sNp`` file name; ValueError naming ``what`` and the path otherwise."""
    m = SUFFIX.search(Path(path).name)
    if m is None or int(m.group(1)) < 1:
        raise ValueError(f"{what} = {str(path)!r} must end in .sNp (Touchstone, N the port count, e.g. .s2p)")
    return int(m.group(1))


def model_s(model, wl, settings: dict | None = None, name: str = "model") -> tuple[np.ndarray, tuple[str, ...]]:
    """S (n_wl, N, N) of ``model(wl=wl, **settings)`` (any SAX model or circuit) and its port order (natural sort
    of the port names); entries the model does not give are 0. ValueError for non-finite values."""
    wl = np.asarray(wl, dtype=float)
    sd = sax.sdict(model(wl=jnp.asarray(wl), **(settings or {})))
    ports = tuple(natsorted({p for pair in sd for p in pair}))
    index = {p: i for i, p in enumerate(ports)}
    s = np.zeros((wl.size, len(ports), len(ports)), dtype=complex)
    for (a, b), v in sd.items():
        s[:, index[a], index[b]] = np.broadcast_to(np.asarray(v, dtype=complex), wl.shape)
    if not np.all(np.isfinite(s)):
        k = int(np.flatnonzero(~np.all(np.isfinite(s), axis=(1, 2)))[0])
        raise ValueError(f"{name} gives non-finite S-parameters at wl = {wl[k]:.9g} µm; nothing written")
    return s, ports


def checked_wavelengths(wl, what: str = "wl") -> np.ndarray:
    """Wavelengths (µm) of an export: 1-D, at least 2, finite, positive, distinct; returned ascending."""
    a = np.atleast_1d(np.asarray(wl, dtype=float))
    if a.ndim != 1 or a.size < 2:
        raise ValueError(f"{what} = {wl!r} must hold at least 2 wavelengths (µm) in a 1-D array")
    if not (np.all(np.isfinite(a)) and np.all(a > 0)):
        raise ValueError(f"{what}: wavelengths must be finite and positive (µm), got min {np.nanmin(a):g}")
    a = np.sort(a)
    if np.any(np.diff(a) <= 0):
        k = int(np.flatnonzero(np.diff(a) <= 0)[0])
        raise ValueError(f"{what}: wavelength {a[k]:.12g} µm is given twice")
    return a


def network_text(wl, s, ports, *, comments: str = "", form: str = "ri") -> str:
    """Touchstone 1.1 text of S (n_wl, N, N) at ``wl`` (µm, ascending) with ``ports`` (Touchstone order), written by
    scikit-rf: frequency ascending (GHz), every digit of each float64, ``comments`` as ``!`` lines."""
    import skrf

    if form not in FORMS:
        raise ValueError(f"form = {form!r} must be one of {', '.join(FORMS)}")
    f = wl_to_hz(wl)
    order = np.argsort(f)  # frequency ascending (wavelength descending)
    net = skrf.Network(frequency=skrf.Frequency.from_f(f[order], unit="Hz"), s=s[order], z0=50.0)
    net.frequency.unit = WRITE_UNIT.lower()
    net.port_names = list(ports)
    net.comments = comments
    # with return_string the file name only sets the suffix: nothing is written by scikit-rf
    return net.write_touchstone(f"prismpic.s{len(ports)}p", return_string=True, form=form, skrf_comment=False)


def export_comments(label: str, settings: dict | None, wl: np.ndarray, ports) -> str:
    """The comment lines of an exported file: prismpic's version, the model and its settings, the band, the port
    order, what the reference resistance means (ASCII, as Touchstone files are)."""
    from prismpic import __version__

    text_settings = json.dumps(jsonable(settings or {}), sort_keys=True, ensure_ascii=True)
    return "\n".join([
        f" prismpic {__version__}: S-parameters of {label} {text_settings}",
        f" wavelengths {wl[0]:.12g} - {wl[-1]:.12g} um, {wl.size} points; frequency = c / wavelength "
        f"(c = {C_M_PER_S:.0f} m/s), ascending",
        " ports (Touchstone order): " + ", ".join(f"{i} = {p}" for i, p in enumerate(ports, 1)),
        " optical S-parameters: mode amplitudes normalised so that |S|^2 is power; R 50 is nominal",
    ])


def touchstone_text(model, wl, *, settings: dict | None = None, name: str = "", form: str = "ri",
                    n_ports: int | None = None, what: str = "out") -> str:
    """The Touchstone 1.1 text of ``model``'s S at ``wl`` (µm): frequency ascending (GHz), every digit, port order
    (natural sort of the model's port names) and the model's settings in the comment lines.

    Args:
        model: a SAX model or circuit, ``model(wl=..., **settings) -> SDict``.
        wl: wavelengths (µm), at least 2, distinct (any order).
        settings: keyword arguments of the model.
        name: what the comments call the model (default: its function name).
        form: ``"ri"`` (real, imaginary), ``"ma"`` (magnitude, angle in degrees) or ``"db"`` (20·log10|S|, angle).
        n_ports: the port count the file must have (its ``.sNp`` suffix), or None.
        what: the option or parameter that named the file, for messages.
    """
    if form not in FORMS:
        raise ValueError(f"form = {form!r} must be one of {', '.join(FORMS)}")
    wl = checked_wavelengths(wl)
    label = name or getattr(model, "__name__", "model")
    s, ports = model_s(model, wl, settings, label)
    if n_ports is not None and len(ports) != n_ports:
        raise ValueError(f"{what}: a .s{n_ports}p file holds {n_ports} port(s) but {label} has {len(ports)} "
                         f"({', '.join(ports)}); name the file .s{len(ports)}p")
    return network_text(wl, s, ports, comments=export_comments(label, settings, wl, ports), form=form)


def write_touchstone(path, model, wl, *, settings: dict | None = None, name: str = "", form: str = "ri",
                     what: str = "out") -> Path:
    """Write ``model``'s S at ``wl`` (µm) as the Touchstone file ``path`` (``.sNp``, N the model's port count),
    atomically (``prismpic.fileio``: the file is complete or absent).

    Args:
        path: the output file; its suffix must be ``.s{N}p``.
        model, wl, settings, name, form: as ``touchstone_text``.
        what: the option or parameter that named ``path``, for messages.

    Returns:
        ``path``.
    """
    n = touchstone_port_count(path, what)
    text = touchstone_text(model, wl, settings=settings, name=name, form=form, n_ports=n,
                           what=f"{what} = {str(path)!r}")
    return write_text_atomic(path, text, what=what)
