"""How much a recirculating hollow-core-fiber loop can hold, and for how long.

Data in flight in a loop of length L: bits = symbol_rate · bits_per_symbol · channels ·
τ, with τ = n_g L / c the loop delay (for hollow-core fiber n_g ≈ 1.0, 3.34 µs/km;
Petrovich et al., Nat. Photon. 2025). Each round the signal loses the fiber and
coupler loss and an amplifier restores it, adding ASE; the optical SNR after n rounds
is OSNR_1/n (ASE adds linearly).
"""

from __future__ import annotations

import math

from scipy.constants import c, h

from prismpic.checks import check_positive, check_range

C_M_PER_S = c  # m/s (scipy.constants)
H_J_S = h  # J s


def loop_delay_s(length_m: float, ng: float = 1.0) -> float:
    """Round-trip delay (s) of a loop of ``length_m``."""
    check_positive("length_m", length_m, unit="m")
    return ng * length_m / C_M_PER_S


def bits_in_flight(
    length_m: float, symbol_rate_hz: float, channels: int, bits_per_symbol: float = 1.0, ng: float = 1.0
) -> float:
    """Bits stored as light in the loop at once."""
    check_positive("symbol_rate_hz", symbol_rate_hz, unit="Hz")
    check_range("channels", channels, 1, 1e6)
    return symbol_rate_hz * bits_per_symbol * channels * loop_delay_s(length_m, ng)


def fiber_length_for_bytes(
    n_bytes: float, symbol_rate_hz: float, channels: int, bits_per_symbol: float = 1.0, ng: float = 1.0
) -> float:
    """Loop length (m) needed to hold ``n_bytes`` in flight."""
    check_positive("n_bytes", n_bytes)
    return 8 * n_bytes / bits_in_flight(1.0, symbol_rate_hz, channels, bits_per_symbol, ng)


def osnr_after_rounds_db(
    rounds: int,
    power_per_channel_dbm: float,
    round_loss_db: float,
    nf_db: float = 6.0,
    wl_um: float = 1.55,
    ref_bw_hz: float = 12.5e9,
) -> float:
    """OSNR (dB, in ref_bw) after ``rounds`` of loss compensated by an amplifier of gain = loss.

    ASE per round, one polarization pair in the reference bandwidth: P_ase = 2 n_sp hν (G − 1) B_ref
    with n_sp = NF/2 (high gain); after n rounds n·P_ase (Olsson, JLT 7, 1071 (1989)).
    """
    check_range("rounds", rounds, 1, 1e12)
    check_range("round_loss_db", round_loss_db, 0.0, 60.0, lo_open=True)
    g = 10 ** (round_loss_db / 10)
    nsp = 10 ** (nf_db / 10) / 2
    nu = C_M_PER_S / (wl_um * 1e-6)
    p_ase = 2 * nsp * H_J_S * nu * (g - 1) * ref_bw_hz
    p_sig = 1e-3 * 10 ** (power_per_channel_dbm / 10)
    return 10 * math.log10(p_sig / (rounds * p_ase))


def rounds_until_osnr_db(
    target_osnr_db: float, power_per_channel_dbm: float, round_loss_db: float, nf_db: float = 6.0
) -> int:
    """Largest number of rounds for which OSNR stays ≥ target."""
    osnr1 = osnr_after_rounds_db(1, power_per_channel_dbm, round_loss_db, nf_db)
    return max(0, math.floor(10 ** ((osnr1 - target_osnr_db) / 10)))
