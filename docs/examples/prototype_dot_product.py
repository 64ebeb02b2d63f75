"""The 8×8 PRISM prototype (S1-11) computing a stated matrix–vector product.

Programs the rings of ``prototype`` for the weights w_kl = cos(π(k+1)(l+½)/n) (3 decimals),
sends query powers q = 0.2…1.0 (1 mW per channel before the chip), and prints the balanced
photocurrents beside (a) g Σ_λ R(λ) c_k(λ) P_λ w_kλ, the physics identity of the balanced
readout (c_k the common path: edge coupler, feed, tree output k; ``prototype_common_path``),
and (b) the exact dot product w·q, which the readout matches only once the input powers are
equalised per λ.
Run: python docs/examples/prototype_dot_product.py
"""

import numpy as np

import prismpic  # noqa: F401  (float64)
from prismpic.circuits.prototype import (
    prototype_channels_um,
    prototype_common_path,
    prototype_currents_a,
    prototype_program,
)
from prismpic.components.detectors import responsivity_a_per_w


def main(n: int = 8, p0_w: float = 1e-3) -> dict:
    """Currents (A), the identity's currents (A), w·q, the readout scaled by each row's mean path gain,
    and each row's largest relative spread of R·c over the channels (what separates the two)."""
    k = np.arange(n)
    w = np.round(np.cos(np.pi * (k[:, None] + 1) * (k[None, :] + 0.5) / n), 3)
    q = np.linspace(0.2, 1.0, n)
    layout = dict(n_rows=n, d=n)
    volts, g, residual = prototype_program(w, **layout)
    ch = prototype_channels_um(**layout)
    currents = np.asarray(prototype_currents_a(p0_w * q, volts, **layout))
    c = np.abs(np.asarray(prototype_common_path(ch, **layout))) ** 2  # (row, λ)
    scale = g * np.asarray(responsivity_a_per_w(ch))[None, :] * c * p0_w  # (row, λ) A per unit weight·q
    identity = np.einsum("kl,kl,l->k", scale, w, q)
    return {"w": w, "q": q, "g": g, "residual": residual, "currents_a": currents, "identity_a": identity,
            "exact": w @ q, "readout": currents / scale.mean(axis=1),
            "path_spread": np.max(np.abs(scale / scale.mean(axis=1, keepdims=True) - 1), axis=1)}


if __name__ == "__main__":
    out = main()
    np.set_printoptions(precision=4, suppress=True)
    print(f"programming residual {out['residual']:.2g}, weight gain g = {out['g']:.3f}")
    print("balanced currents (µA):        ", out["currents_a"] * 1e6)
    print("g Σ R c P w (µA):              ", out["identity_a"] * 1e6)
    print("exact w·q:                     ", out["exact"])
    print("readout / mean row path gain:  ", out["readout"])
