"""PTU readout analyses: photodiode, demultiplexer and ADC counts, and a column's SNR with row SOAs.

Built on the crossbar model (``circuits.ptu_model``), the card arithmetic (``accelerator``)
and the detector noise (``noise``).
"""

from __future__ import annotations

import dataclasses
import math

import jax.numpy as jnp
import numpy as np

from prismpic.analysis.system import noise
from prismpic.analysis.system.accelerator import PtuConfig, ptu_budget
from prismpic.checks import check_choice, check_range
from prismpic.circuits.ptu_model import (
    DESIGN_WL,
    READOUTS,
    check_count,
    check_crossbar_arrays,
    photodiode_responsivity,
    ptu_optical_powers,
    row_soa_gain_db,
    soa_power_gain,
)
from prismpic.components.gain import GAIN_FWHM_NM, NOISE_FIGURE_DB


def ptu_readout_counts(rows: int = 128, cols: int = 128, n_wavelengths: int = 64, readout: str = "broadband",
                       cores: int = 128) -> dict:
    """Photodiodes, demultiplexers and summing nodes (TIA + ADC) per core, and ADCs per card.

    Summing nodes and card ADCs are ``accelerator.ptu_budget``'s detectors and ADCs.
    """
    check_choice("readout", readout, READOUTS)
    for name, v in (("rows", rows), ("cols", cols), ("n_wavelengths", n_wavelengths), ("cores", cores)):
        check_count(name, v, 10**6)
    b = ptu_budget(PtuConfig(rows=rows, cols=cols, n_wavelengths=n_wavelengths, cores=cores), readout=readout)
    per_wl = readout == "per_wavelength"
    return {
        "photodiodes_per_core": rows * cols * (n_wavelengths if per_wl else 1),
        "demultiplexers_per_core": rows * cols if per_wl else 0,
        "summing_nodes_per_core": b.detectors_per_core,
        "adcs_card": b.adcs_card,
        "macs_per_clock_core": b.macs_per_clock_core,
    }


def column_snr_db(
    x_w,
    crystalline_fraction,
    wl=DESIGN_WL,
    *,
    column: int = 0,
    soa_gain_db=None,
    nf_db: float | None = None,
    upstream_loss_db: float = 0.0,
    soa_bandwidth_nm: float | None = None,
    photodiode=None,
    receiver=None,
    **geometry,
) -> dict:
    """SNR (dB) of a broadband column summing node with the row SOAs on and with them replaced by a waveguide.

    The input ``x_w`` first loses ``upstream_loss_db`` (the previous cores). With SOAs, each
    row's gain is ``soa_gain_db`` or, when None, the saturated gain for the row's total
    input (``row_soa_gain_db``), and each SOA adds ASE n_sp·hν·(G − 1) per polarization over
    its gain bandwidth (broadband detectors see all of it) times the SOA-to-diode
    transmission; G, ν and that transmission are the row's input-power-weighted means over
    the wavelengths. Each row's diode contributes shot, dark and ASE-beat variances from
    ``noise.noise_budget`` (one diode each, variances add); the column's TIA or
    load noise is counted once.

    Args:
        x_w, crystalline_fraction, wl: as ``ptu_optical_powers``.
        column: the column read.
        soa_gain_db: SOA peak gain (dB, scalar or (rows,)); None: saturated by each row's input.
        nf_db: SOA noise figure (dB); None: ``gain.NOISE_FIGURE_DB``.
        upstream_loss_db: loss of the inputs before this core (dB).
        soa_bandwidth_nm: optical bandwidth of the ASE reaching a diode (nm); None: the SOA's
            gain FWHM (broadband diodes have no filter).
        photodiode: ``noise.Photodiode``; None: the Ge diode's responsivity (mean over ``wl``),
            ``noise.Photodiode``'s dark current.
        receiver: ``noise.Receiver`` of the column; None: 5 GHz, 50 Ω.
        **geometry: as ``ptu_optical_powers`` (and ``ge_length``).

    Returns:
        dict with ``snr_without_db``, ``snr_with_db``, ``gain_db`` (rows,), and the column
        currents (A) ``current_without_a``, ``current_with_a``.
    """
    nf_db = NOISE_FIGURE_DB if nf_db is None else nf_db
    bw_nm = GAIN_FWHM_NM if soa_bandwidth_nm is None else soa_bandwidth_nm
    check_range("upstream_loss_db", upstream_loss_db, 0.0, 100.0, unit="dB")
    x = jnp.asarray(x_w, dtype=float) * 10.0 ** (-upstream_loss_db / 10.0)
    _, f, wl = check_crossbar_arrays(x, crystalline_fraction, wl)
    if photodiode is None:
        r = float(jnp.mean(photodiode_responsivity(wl, geometry.pop("ge_length", 12.0))))
        photodiode = noise.Photodiode(responsivity_a_per_w=r)
    geometry.pop("ge_length", None)
    receiver = noise.Receiver(bandwidth_hz=5e9) if receiver is None else receiver
    check_range("column", column, 0, f.shape[1] - 1)
    sl = geometry.get("soa_gain_length", 1000.0)
    gain = row_soa_gain_db(x, sl) if soa_gain_db is None else jnp.broadcast_to(jnp.asarray(soa_gain_db, float),
                                                                                (f.shape[0],))
    geo = dict(geometry, with_soa=True)
    p_off = np.asarray(ptu_optical_powers(x, f, wl, soa_gain_db=0.0, **geo)[0])[:, column, :]
    p_on = np.asarray(ptu_optical_powers(x, f, wl, soa_gain_db=gain, **geo)[0])[:, column, :]
    xn = np.asarray(x)
    quiet = dataclasses.replace(receiver, load_resistance_ohm=None, input_noise_a_per_rthz=None, adc_bits=None)
    thermal = noise.noise_budget(0.0, photodiode=dataclasses.replace(photodiode, dark_current_a=0.0),
                                 receiver=receiver, balanced=False).terms.get("thermal", 0.0)
    xg_on = xn * np.asarray(soa_power_gain(wl, gain, sl, geometry.get("cross_section", "xs_ridge")))
    out = {"gain_db": np.asarray(gain)}
    for key, p, amp in (("without", p_off, False), ("with", p_on, True)):
        var, sig = thermal, 0.0
        for r in range(f.shape[0]):
            pr = float(p[r].sum())
            a = None
            if amp and xn[r].sum() > 0:
                # the row's input-power-weighted gain, wavelength and SOA-to-diode transmission
                wl_r = float(np.sum(xn[r] * np.asarray(wl)) / xn[r].sum())
                g_r = float(xg_on[r].sum() / xn[r].sum())
                after = float(p[r].sum() / xg_on[r].sum())
                b_o = noise.C_LIGHT * bw_nm * 1e-9 / (wl_r * 1e-6) ** 2
                a = noise.Amplifier(gain_db=10 * math.log10(g_r), nf_db=nf_db, optical_bandwidth_hz=b_o,
                                    loss_after_db=-10 * math.log10(max(after, 1e-300)), wavelength_um=wl_r)
            nb = noise.noise_budget(pr, photodiode=photodiode, receiver=quiet, amplifier=a, balanced=False)
            var += nb.total_variance_a2
            sig += nb.signal_current_a
        out[f"snr_{key}_db"] = 10 * math.log10(sig**2 / var)
        out[f"current_{key}_a"] = sig
    return out
