"""Dump a Hugging Face model's KV cache (keys, values, queries per layer and head) for ``prismpic recall --kv``.

Run where the model runs (a GPU box for a 7B model; needs torch and transformers ≥ 4.48):

    python docs/examples/dump_kv_cache.py --model Qwen/Qwen2.5-7B-Instruct --text-file long.txt \\
        --max-tokens 16384 --queries 64 --out qwen_kv.safetensors
    prismpic recall --kv qwen_kv.safetensors --block-size 64 --out recall-qwen

How: a custom attention function is registered with ``transformers.AttentionInterface`` and
the model is loaded with it; every attention layer then hands it the query, key and value
exactly as its attention uses them (after rotary embedding and any q/k norm; keys and
values before grouped-query repetition, so n_kv_heads of them) with its softmax scale.
The function records them and calls the model's ordinary SDPA attention, so the forward
pass is unchanged. The file follows ``prismpic.analysis.recall.kv_data``: keys/values
(n_layers, n_kv_heads, n_tokens, d), queries (n_layers, n_heads, n_queries, d) of the
last ``--queries`` tokens (``query_pos`` their positions: a causal query sees keys up to
its own), metadata with the model name and softmax scale. The whole prompt runs in one
forward pass; memory grows with n_tokens² only inside the model's own attention.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np


def capture_kv(model, input_ids, n_queries: int, name: str = "model"):
    """Run ``model`` on ``input_ids`` (1, T) and return the ``kv_data.KVCache`` of its attention."""
    import torch
    from transformers import AttentionInterface
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    from prismpic.analysis.recall.kv_data import KVCache

    seen: dict = {}

    def capture(module, query, key, value, attention_mask, **kwargs):
        seen[module.layer_idx] = (query[0].float().cpu().numpy(), key[0].float().cpu().numpy(),
                                  value[0].float().cpu().numpy(), kwargs.get("scaling"))
        return sdpa_attention_forward(module, query, key, value, attention_mask, **kwargs)

    AttentionInterface.register("prismpic_capture", capture)
    previous = model.config._attn_implementation
    model.set_attn_implementation("prismpic_capture")
    try:
        with torch.no_grad():
            model(input_ids=input_ids, use_cache=False)
    finally:
        model.set_attn_implementation(previous)
    layers = [seen[i] for i in sorted(seen)]
    n_tokens = input_ids.shape[1]
    scale = layers[0][3] if layers[0][3] is not None else layers[0][0].shape[-1] ** -0.5
    return KVCache(keys=np.stack([lay[1] for lay in layers]), queries=np.stack([lay[0][:, -n_queries:] for lay in layers]),
                   values=np.stack([lay[2] for lay in layers]), query_pos=np.arange(n_tokens - n_queries, n_tokens),
                   metadata={"model": name, "softmax_scale": float(scale), "n_tokens": int(n_tokens)})


def main(argv=None) -> Path:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="Hugging Face model id or local folder")
    ap.add_argument("--text-file", type=Path, required=True, help="the context (UTF-8)")
    ap.add_argument("--max-tokens", type=int, default=4096, help="tokens of the context kept")
    ap.add_argument("--queries", type=int, default=64, help="last tokens whose queries are dumped")
    ap.add_argument("--dtype", default="float16", help="array type in the file (float16, bfloat16, float32)")
    ap.add_argument("--out", type=Path, required=True, help="output .safetensors or .npz")
    args = ap.parse_args(argv)
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from prismpic.analysis.recall.kv_data import save_kv

    tok = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch.bfloat16, device_map="auto")
    model.eval()
    ids = tok(args.text_file.read_text(encoding="utf-8"), return_tensors="pt")["input_ids"][:, : args.max_tokens]
    cache = capture_kv(model, ids.to(model.device), args.queries, args.model)
    return save_kv(args.out, cache, args.dtype)


if __name__ == "__main__":
    print(main())
