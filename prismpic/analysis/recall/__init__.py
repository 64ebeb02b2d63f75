"""Recall of PRISM's photonic top-k: the Monte Carlo under impairments, its kernel and random numbers,
synthetic and real KV blocks (planted banks, MiniLM, dumped caches), block signatures, attention error."""
