"""Circuits with time-domain models (the ``prismpic transient CIRCUIT`` names), their runs and figures.

- ``ring_add_drop``, ``ring_all_pass``: one ring (``ring_runs.ring_transient``); ``--set`` takes the ring model's
  parameters plus ``samples_per_symbol``, ``n_orders``, ``seed``, ``dac_rise_ps``.
- ``prism_channel``: a d-wavelength PRISM channel (``simulate.channel_setup``) carrying random on/off query
  symbols through DAC, MZM, rings, balanced detectors and TIA, ring voltages random within ±1 linewidth of
  tuning; ``--set`` takes ``d``, ``samples_per_symbol``, ``n_orders``, ``seed``, ``dac_bits``, ``power_w``,
  ``noise`` (true/false), ``tia_bandwidth_ghz``.
- ``ptu_column``: one PTU column (``ptu_column.column_waveforms``): random 6-bit inputs on ``rows`` EAM-driven rows,
  random phase-change weights, the column's photodiodes on one wire, the TIA; ``--set`` takes ``rows``,
  ``samples_per_symbol``, ``seed``, ``swing_v``, ``tia_bandwidth_ghz``, ``dac_rise_ps``.

``prism_channel`` and ``ptu_column`` take a user's query stream (``--input FILE``, ``input_file``) in place of the
random one; the ring circuits draw their own on/off stream.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

CIRCUITS = ("ring_add_drop", "ring_all_pass", "prism_channel", "ptu_column")
RING_OPTIONS = ("samples_per_symbol", "n_orders", "seed", "dac_rise_ps")
CHANNEL_OPTIONS = ("d", "samples_per_symbol", "n_orders", "seed", "dac_bits", "power_w", "noise", "tia_bandwidth_ghz")
COLUMN_OPTIONS = ("rows", "samples_per_symbol", "seed", "swing_v", "tia_bandwidth_ghz", "dac_rise_ps")
DEFAULT_BIT_RATE_HZ = 10e9
DEFAULT_SYMBOLS = 256


def check_circuit(name: str) -> str:
    """ValueError unless ``name`` has time-domain models."""
    if name not in CIRCUITS:
        raise ValueError(f"CIRCUIT = {name!r} has no time-domain models; valid: {', '.join(CIRCUITS)}")
    return name


def check_settings(name: str, settings: dict) -> None:
    """ValueError naming the first ``--set`` key that is neither a model parameter nor a run option of ``name``."""
    check_circuit(name)
    if name.startswith("ring_"):
        from prismpic.analysis.transient import ring_modes

        try:
            ring_modes.ring_parameters(name[len("ring_"):], {k: v for k, v in settings.items() if k not in RING_OPTIONS})
        except ValueError as e:
            raise ValueError(f"--set: {e}") from None
        return
    options = COLUMN_OPTIONS if name == "ptu_column" else CHANNEL_OPTIONS
    unknown = sorted(set(settings) - set(options))
    if unknown:
        raise ValueError(f"--set {unknown[0]}: not an option of {name}; valid: {', '.join(options)}")
    if name == "ptu_column":
        from prismpic.analysis.transient import ptu_column

        ptu_column.check_options(**settings)


def input_shape(name: str, settings: dict) -> tuple[int, str]:
    """(columns, what one column drives) of a ``--input`` file for ``name``; ValueError for the ring circuits."""
    if name == "prism_channel":
        return int(settings.get("d", 8)), "wavelength"
    if name == "ptu_column":
        return int(settings.get("rows", 128)), "row"
    raise ValueError(f"--input: {name} draws its own on/off stream; --input applies to prism_channel and ptu_column")


def run_circuit(name: str, bit_rate_hz: float = DEFAULT_BIT_RATE_HZ, symbols: int = DEFAULT_SYMBOLS,
                settings: dict | None = None, progress=None, inputs=None) -> tuple[dict, dict]:
    """(summary, traces): the scalar results (transient.json) and the waveforms the figures draw. ``inputs``: the
    query values (inputs, symbols) in [0, 1] of ``prism_channel`` or ``ptu_column`` (``input_file``); None:
    random."""
    from prismpic.analysis.transient.simulate import check_run

    check_circuit(name)
    settings = dict(settings or {})
    sps = settings.pop("samples_per_symbol", 8)
    check_run(bit_rate_hz, symbols, sps)
    if name.startswith("ring_"):
        from prismpic.analysis.transient import ring_runs

        kind = name[len("ring_"):]
        r = ring_runs.ring_transient(kind, bit_rate_hz, symbols, sps, **settings)
        traces = dict(t_ps=r.t_ps, p_in=r.p_in, p_out=r.p_out, p_static=r.p_static, delay=r.eye_delay, sps=sps,
                      step_t_ps=r.step_t_ps, step_p=r.step_p, label=r.summary()["output_port"] + " power / P_in")
        return r.summary(), traces
    check_settings(name, settings)
    if name == "ptu_column":
        return column_run(bit_rate_hz, symbols, sps, **settings, inputs=inputs)
    return channel_run(bit_rate_hz, symbols, sps, **settings, inputs=inputs)


def column_run(bit_rate_hz, symbols, samples_per_symbol, rows: int = 128, seed: int = 0, swing_v: float = 2.0,
               tia_bandwidth_ghz=None, dac_rise_ps=None, inputs=None):
    """A PTU column's stream: (summary, traces); see the module docstring."""
    from prismpic.analysis.transient import ptu_column

    eye, y, target = ptu_column.column_waveforms(bit_rate_hz, rows, symbols, samples_per_symbol, seed, swing_v,
                                                 tia_bandwidth_ghz, dac_rise_ps, inputs)
    dt = 1e12 / bit_rate_hz / samples_per_symbol
    summary = {"circuit": "ptu_column", "rows": eye.rows, "bit_rate_hz": float(bit_rate_hz), "symbols": int(symbols),
               "samples_per_symbol": int(samples_per_symbol), "eye_opening": eye.eye_opening,
               "sampling_delay_ps": eye.sampling_delay_ps, "dac_bandwidth_ghz": eye.dac_bandwidth_ghz,
               "eam_bandwidth_ghz": eye.eam_bandwidth_ghz, "column_bandwidth_ghz": eye.column_bandwidth_ghz,
               "tia_bandwidth_ghz": eye.tia_bandwidth_ghz, "static_blocks": list(eye.static_blocks)}
    traces = dict(t_ps=np.arange(y.size) * dt, p_in=None, p_out=y, p_static=target,
                  delay=int(round(eye.sampling_delay_ps / dt)), sps=samples_per_symbol, step_t_ps=None, step_p=None,
                  label="column sum (row transmissions × weights)")
    return summary, traces


def channel_run(bit_rate_hz, symbols, samples_per_symbol, d: int = 8, n_orders: int = 1, seed: int = 0,
                dac_bits: int | None = None, power_w: float = 1e-3, noise: bool = False, tia_bandwidth_ghz=None,
                inputs=None):
    """A PRISM channel's query stream: (summary, traces); see the module docstring. ``dac_bits`` default: 1 for the
    random on/off stream, 6 for a user's ``inputs`` (the seed's 6-bit query DAC, S1-04)."""
    import jax

    from prismpic.analysis.transient import simulate, waveform_metrics
    from prismpic.components import rings

    if not isinstance(noise, bool):
        raise ValueError(f"noise = {noise!r} must be true or false")
    bits = (1 if inputs is None else 6) if dac_bits is None else dac_bits
    setup = simulate.channel_setup(d, bit_rate_hz, samples_per_symbol, n_symbols=symbols, n_orders=n_orders,
                                   dac_bits=bits, power_w=power_w, tia_bandwidth_ghz=tia_bandwidth_ghz)
    rng = np.random.default_rng(seed)
    v_lw = rings.ring_specs(1.55, "add_drop")["v_per_linewidth"]
    volts = rng.uniform(-v_lw, v_lw, d)
    simulate.check_channel_step(setup, volts)
    sym = rng.integers(0, 2, (d, symbols)).astype(float) if inputs is None else np.asarray(inputs, dtype=float)
    clean = jax.jit(lambda s, v: simulate.query_waveforms(setup, s, v)["current_a"])
    y_clean = np.asarray(clean(sym, volts))
    y = y_clean
    if noise:
        noisy = jax.jit(lambda s, v, k: simulate.query_waveforms(setup, s, v, k, True)["current_a"])
        y = np.asarray(noisy(sym, volts, jax.random.PRNGKey(seed)))
    target = np.asarray(simulate.static_currents(setup, sym, volts))
    eye, delay = waveform_metrics.eye_opening(y_clean, target, samples_per_symbol)
    eye_noisy = waveform_metrics.eye_opening(y, target, samples_per_symbol)[0] if noise else None
    t = np.arange(y.size) * setup.dt_ps
    summary = {"circuit": "prism_channel", "d": int(d), "bit_rate_hz": float(bit_rate_hz), "symbols": int(symbols),
               "samples_per_symbol": int(samples_per_symbol), "eye_opening": eye,
               "eye_opening_with_noise": eye_noisy, "sampling_delay_ps": delay * setup.dt_ps,
               "static_blocks": list(setup.static_blocks), "full_scale_current_a": float(np.ptp(target)),
               "ring_voltages_v": volts.tolist(), "n_orders": int(n_orders), "dac_bits": int(bits),
               "queries": "random on/off" if inputs is None else "--input file"}
    traces = dict(t_ps=t, p_in=None, p_out=y * 1e6, p_static=target * 1e6, delay=delay, sps=samples_per_symbol,
                  step_t_ps=None, step_p=None, label="balanced TIA input current (µA)")
    return summary, traces


def write_figures(traces: dict, folder: Path, title: str, prefix: str = "") -> list[str]:
    """``prefix``waveforms.png and ``prefix``eye.png in ``folder`` (atomic writes); returns the file names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from prismpic.analysis.transient.waveform_metrics import eye_traces
    from prismpic.fileio import save_figure_atomic

    sps, delay = traces["sps"], traces["delay"]
    t, y = traces["t_ps"], traces["p_out"]
    n_show = min(y.size, 48 * sps)
    fig, axes = plt.subplots(2 if traces["step_p"] is not None else 1, 1, figsize=(9, 6), constrained_layout=True,
                             squeeze=False)
    ax = axes[0, 0]
    if traces["p_in"] is not None:
        ax.plot(t[:n_show], traces["p_in"][:n_show], color="0.6", lw=1, label="input power / P_in")
    ax.plot(t[:n_show], y[:n_show], lw=1.4, label=traces["label"])
    sample_t = (np.arange(n_show // sps) * sps + delay) * (t[1] - t[0])
    ax.plot(sample_t, traces["p_static"][:n_show // sps], "k.", ms=4, label="static value (S-parameters)")
    ax.set_xlabel("time (ps)")
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper right")
    if traces["step_p"] is not None:
        ax2 = axes[1, 0]
        ax2.plot(traces["step_t_ps"], traces["step_p"], lw=1.4)
        ax2.set_xlabel("time after the input step (ps)")
        ax2.set_ylabel(traces["label"])
        ax2.set_title("step response at resonance")
    names = [f"{prefix}waveforms.png", f"{prefix}eye.png"]
    save_figure_atomic(fig, folder / names[0])
    plt.close(fig)
    eye = eye_traces(y, sps, delay)
    fig, ax = plt.subplots(figsize=(6, 4.5), constrained_layout=True)
    if eye.size:
        tt = (np.arange(eye.shape[1]) - eye.shape[1] // 2) * (t[1] - t[0])
        ax.plot(tt, eye.T, color="C0", alpha=0.15, lw=0.8)
        ax.axvline(0.0, color="k", lw=0.6, ls="--")
    ax.set_xlabel("time from the sampling instant (ps)")
    ax.set_ylabel(traces["label"])
    ax.set_title(f"eye diagram: {title}")
    save_figure_atomic(fig, folder / names[1])
    plt.close(fig)
    return names
