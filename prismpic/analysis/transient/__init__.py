"""Time-domain simulation (issue 29): rings, modulators, detectors and receivers as state-space blocks derived from
the same physics as their S-parameter models, stepped exactly (FOH matrix exponential, ``jax.lax.scan``), jitted,
differentiable and vmapped over WDM carriers. Modules: ``statespace``, ``ring_modes``, ``devices``, ``simulate``,
``ring_runs``, ``waveform_metrics``, ``analyses``, ``circuits`` (the ``prismpic transient`` command's circuits)."""
