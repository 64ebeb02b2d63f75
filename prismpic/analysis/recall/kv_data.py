"""KV caches dumped from a transformer: the file layout, its reader and writer, and block stores.

File layout (``.safetensors`` or ``.npz``; ``docs/examples/dump_kv_cache.py`` writes it
from a Hugging Face model):

============== ====================================== ==========================================
name           shape                                  meaning
============== ====================================== ==========================================
``keys``       (n_layers, n_kv_heads, n_tokens, d)    each layer's key vectors as the attention
                                                      compares them (after rotary embedding),
                                                      tokens in context order
``queries``    (n_layers, n_heads, n_queries, d)      query vectors (after rotary embedding);
                                                      n_heads a multiple of n_kv_heads: query
                                                      head h reads kv head h // (n_heads /
                                                      n_kv_heads) (grouped-query attention)
``values``     (n_layers, n_kv_heads, n_tokens, d)    optional: value vectors (attention output)
``query_pos``  (n_queries,) integer                   optional: the token index each query sits
                                                      at (a causal query sees keys 0 … pos)
metadata       JSON text                              optional: safetensors metadata, or the
                                                      npz entry ``metadata`` (a 0-d string):
                                                      e.g. {"model": …, "softmax_scale": …}
============== ====================================== ==========================================

Arrays are float16, bfloat16, float32 or float64 (read as float64). The softmax scale of
the attention logits q·k is ``metadata["softmax_scale"]``, default 1/√d.

A block store is one head's keys cut into consecutive blocks of ``block_size`` tokens
(n_tokens must be a multiple): what PRISM's bank holds one signature per block of.
"""

from __future__ import annotations

import json
import math
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from prismpic.fileio import write_atomic

FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
SUFFIXES = (".safetensors", ".npz")


@dataclass(frozen=True)
class KVCache:
    """Per-layer, per-head keys, queries (and values) of one context (module docstring).

    Attributes:
        keys: (n_layers, n_kv_heads, n_tokens, d).
        queries: (n_layers, n_heads, n_queries, d).
        values: (n_layers, n_kv_heads, n_tokens, d) or None.
        query_pos: (n_queries,) token index of each query, or None (every query sees every key).
        metadata: free-form facts (model, text, softmax_scale, …).
    """

    keys: np.ndarray
    queries: np.ndarray
    values: np.ndarray | None = None
    query_pos: np.ndarray | None = None
    metadata: dict = field(default_factory=dict)

    def __post_init__(self):
        checked = validate(self.keys, self.queries, self.values, self.query_pos, "cache")
        for name, a in zip(("keys", "queries", "values", "query_pos"), checked, strict=True):
            object.__setattr__(self, name, a)  # float64 / int64 copies, C-contiguous

    @property
    def n_layers(self) -> int:
        return self.keys.shape[0]

    @property
    def n_heads(self) -> int:
        return self.queries.shape[1]

    @property
    def n_tokens(self) -> int:
        return self.keys.shape[2]

    @property
    def d_head(self) -> int:
        return self.keys.shape[3]

    @property
    def softmax_scale(self) -> float:
        """Scale of the attention logits q·k: ``metadata['softmax_scale']`` or 1/√d."""
        return float(self.metadata.get("softmax_scale", 1.0 / math.sqrt(self.d_head)))

    def kv_head(self, head: int) -> int:
        """The kv head query head ``head`` reads (grouped-query attention)."""
        return head // (self.n_heads // self.keys.shape[1])

    def head(self, layer: int, head: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """(keys (n_tokens, d), queries (n_queries, d), values or None) of one query head."""
        if not 0 <= layer < self.n_layers:
            raise ValueError(f"layer = {layer} is outside the valid range [0, {self.n_layers - 1}]")
        if not 0 <= head < self.n_heads:
            raise ValueError(f"head = {head} is outside the valid range [0, {self.n_heads - 1}]")
        kv = self.kv_head(head)
        v = None if self.values is None else self.values[layer, kv]
        return self.keys[layer, kv], self.queries[layer, head], v


def _check_array(name: str, a, source: str) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype.name not in FLOAT_DTYPES:
        raise ValueError(f"{source}: array {name!r} dtype {a.dtype} must be one of {', '.join(FLOAT_DTYPES)}")
    a = np.ascontiguousarray(a, dtype=np.float64)
    if a.ndim != 4 or min(a.shape) < 1:
        raise ValueError(f"{source}: array {name!r} shape {a.shape} must be (n_layers, n_heads, n_tokens, d_head), all >= 1")
    bad = ~np.isfinite(a)
    if bad.any():
        layer, head, tok, _ = np.argwhere(bad)[0]
        raise ValueError(f"{source}: array {name!r} holds NaN or inf (first at layer {layer}, head {head}, "
                         f"token {tok}); values must be finite")
    return a


def validate(keys, queries, values=None, query_pos=None, source: str = "cache"):
    """Check the layout (module docstring); returns (keys, queries, values, query_pos) as float64/int64."""
    keys = _check_array("keys", keys, source)
    queries = _check_array("queries", queries, source)
    n_l, n_kv, n_t, d = keys.shape
    if queries.shape[0] != n_l or queries.shape[3] != d:
        raise ValueError(f"{source}: array 'queries' shape {queries.shape} must match keys {keys.shape} in "
                         f"n_layers ({n_l}) and d_head ({d})")
    if queries.shape[1] % n_kv:
        raise ValueError(f"{source}: array 'queries' has {queries.shape[1]} heads; must be a multiple of the keys' "
                         f"{n_kv} kv heads")
    if values is not None:
        values = _check_array("values", values, source)
        if values.shape != keys.shape:
            raise ValueError(f"{source}: array 'values' shape {values.shape} must equal keys shape {keys.shape}")
    if query_pos is not None:
        query_pos = np.asarray(query_pos)
        if query_pos.dtype.kind not in "iu" or query_pos.shape != (queries.shape[2],):
            raise ValueError(f"{source}: array 'query_pos' ({query_pos.dtype}, shape {query_pos.shape}) must be "
                             f"integers of shape (n_queries,) = ({queries.shape[2]},)")
        if query_pos.min() < 0 or query_pos.max() >= n_t:
            raise ValueError(f"{source}: array 'query_pos' spans [{query_pos.min()}, {query_pos.max()}]; must lie in "
                             f"[0, n_tokens - 1 = {n_t - 1}]")
        query_pos = query_pos.astype(np.int64)
    return keys, queries, values, query_pos


def _suffix(path: Path) -> str:
    s = path.suffix.lower()
    if s not in SUFFIXES:
        raise ValueError(f"KV file {str(path)!r} must end in {' or '.join(SUFFIXES)}")
    return s


def save_kv(path, cache: KVCache, dtype: str = "float32") -> Path:
    """Write ``cache`` in the layout above (atomically), arrays as ``dtype``."""
    path = Path(path)
    suffix = _suffix(path)
    if dtype not in FLOAT_DTYPES:
        raise ValueError(f"dtype = {dtype!r} must be one of {', '.join(FLOAT_DTYPES)}")
    np_dtype = _np_dtype(dtype)
    arrays = {"keys": cache.keys, "queries": cache.queries}
    if cache.values is not None:
        arrays["values"] = cache.values
    arrays = {name: np.ascontiguousarray(a, dtype=np_dtype) for name, a in arrays.items()}  # safetensors writes raw buffers
    if cache.query_pos is not None:
        arrays["query_pos"] = cache.query_pos.astype(np.int64)
    meta = json.dumps(cache.metadata)
    if suffix == ".npz":
        def write(f):
            np.savez(f, metadata=np.array(meta), **arrays)
    else:
        safetensors_numpy = _safetensors("writing a .safetensors KV file")

        def write(f):
            f.write(safetensors_numpy.save(arrays, metadata={"metadata": meta}))
    return write_atomic(path, write, binary=True, what="KV file")


def _np_dtype(name: str):
    if name == "bfloat16":
        import ml_dtypes  # ships with JAX

        return ml_dtypes.bfloat16
    return np.dtype(name)


def _safetensors(why: str):
    try:
        import safetensors.numpy
    except ImportError:
        raise ValueError(f"{why} needs the optional extra prismpic[kv] (pip install 'prismpic[kv]'): "
                         "module 'safetensors' is missing") from None
    return safetensors.numpy


# what np.load raises on a damaged .npz: a broken zip (BadZipFile), a truncated or corrupt member (EOFError, zlib's
# error, struct's error), an unsupported or encrypted entry (NotImplementedError, RuntimeError), a bad array header
# (ValueError), a member it cannot find (KeyError)
_NPZ_ERRORS = (OSError, ValueError, EOFError, KeyError, RuntimeError, NotImplementedError, zipfile.BadZipFile,
               zlib.error, struct.error)


def load_kv(path, *, option: str = "") -> KVCache:
    """Read and validate a KV file (module docstring for the layout); ``option`` (e.g. ``"--kv"``) prefixes every
    message."""
    path = Path(path)
    suffix = _suffix(path)
    pre = f"{option}: " if option else ""
    if not path.is_file():
        raise ValueError(f"{pre}KV file {str(path)!r} does not exist")
    src = f"{pre}KV file {path.name!r}"
    if suffix == ".npz":
        try:
            with np.load(path, allow_pickle=False) as z:
                arrays = {name: z[name] for name in z.files}
        except _NPZ_ERRORS as e:
            raise ValueError(f"{src} is not a readable .npz ({type(e).__name__}: {e})") from None
        meta_text = str(arrays.pop("metadata")) if "metadata" in arrays else "{}"
    else:
        safetensors_numpy = _safetensors("reading a .safetensors KV file")
        from safetensors import safe_open

        try:
            arrays = safetensors_numpy.load_file(path)
            with safe_open(path, framework="numpy") as f:
                meta_text = (f.metadata() or {}).get("metadata", "{}")
        except Exception as e:  # safetensors raises its own error types for a malformed header
            raise ValueError(f"{src} is not a readable .safetensors file: {e}") from None
    for name in ("keys", "queries"):
        if name not in arrays:
            raise ValueError(f"{src} has no array {name!r} (found {sorted(arrays)}); see prismpic.analysis.recall.kv_data")
    try:
        meta = json.loads(meta_text)
    except json.JSONDecodeError:
        raise ValueError(f"{src}: metadata is not valid JSON") from None
    keys, queries, values, pos = validate(arrays["keys"], arrays["queries"], arrays.get("values"),
                                          arrays.get("query_pos"), src)
    return KVCache(keys, queries, values, pos, meta if isinstance(meta, dict) else {"metadata": meta})


def block_store(keys, block_size: int, name: str = "block_size") -> np.ndarray:
    """Cut one head's keys (n_tokens, d) into blocks (n_blocks, block_size, d)."""
    keys = np.asarray(keys, dtype=float)
    if keys.ndim != 2:
        raise ValueError(f"keys shape {keys.shape} must be (n_tokens, d_head)")
    if not isinstance(block_size, (int, np.integer)) or block_size < 1:
        raise ValueError(f"{name} = {block_size!r} must be an integer >= 1")
    if keys.shape[0] % block_size:
        raise ValueError(f"{name} = {block_size} must divide n_tokens = {keys.shape[0]}")
    return keys.reshape(keys.shape[0] // block_size, block_size, keys.shape[1])
