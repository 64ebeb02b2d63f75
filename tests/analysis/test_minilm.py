"""all-MiniLM-L6-v2 keys under the ``kv`` extra: the extracted Q, K reproduce the model's own
attention weights; the document block store, needles and the real-data recall rows."""

import importlib.util

import numpy as np
import pytest

from prismpic.analysis.recall import minilm

pytestmark = pytest.mark.skipif(not minilm.extra_installed(), reason="needs the kv extra (.ci/run installs it)")

NEEDLE = "The secret password for the photonic vault is violet kingfisher."
QUESTION = "What is the secret password for the photonic vault?"


@pytest.fixture(scope="module")
def cache():
    return minilm.document_cache(n_windows=4, window_tokens=64, block_size=16, questions=[QUESTION],
                                 needles=[NEEDLE], n_doc_queries=16)


def test_extracted_queries_and_keys_reproduce_the_models_attention_weights():
    """softmax(Q·Kᵀ/√32) of the hooked projections against the attention probabilities the
    model returns itself (``output_attentions``, eager attention), all 6 layers × 12 heads:
    equal to float32 rounding."""
    assert minilm.attention_check("The quick brown fox jumps over the lazy dog near the riverbank.") < 1e-5


def test_document_block_store_and_needle(cache):
    assert cache.keys.shape == (6, 12, 4 * 64, 32) and cache.values.shape == cache.keys.shape
    owner = np.asarray(cache.metadata["query_question"])
    assert cache.queries.shape[2] == owner.size and (owner == -1).sum() == 16
    assert cache.softmax_scale == pytest.approx(32**-0.5)
    # the needle sits at the start of a window, a block start; its keys are those of the
    # window run on its own (no key sees another window)
    (start, stop), = cache.metadata["needle_tokens"]
    assert start % 64 == 0 and stop - start == minilm.tokens(NEEDLE).size
    win = start // 64
    ids = minilm.tokens(minilm.python_docs_text())[: 4 * 64].reshape(4, 64).copy()
    ids[win, : stop - start] = minilm.tokens(NEEDLE)
    alone = minilm.run_windows([ids[win]])["k"][0, :, :, 1:-1]
    np.testing.assert_allclose(cache.keys[:, :, start : start + 64], alone, atol=1e-5)


def test_real_data_recall_rows(cache):
    from prismpic.analysis.recall import kv_recall
    from prismpic.analysis.recall import seed_cases as recall_seed
    from prismpic.analysis.recall.monte_carlo import RecallConfig

    nep_rel, _ = recall_seed.seed_nep_noise_rel()
    cases = recall_seed.seed_cases(nep_rel)
    hd = kv_recall.head_data(cache, 5, 3, 16)
    rows = kv_recall.scheme_row(hd, "pca", [cases[0], cases[4]], base=RecallConfig(queries_per_state=1), k=4)
    ideal, impaired = rows
    assert ideal["recall_hardware"] == 1.0  # no impairment: the chip reproduces the float top-k
    assert ideal["recall"] == pytest.approx(ideal["recall_scheme"])
    assert impaired["recall_hardware"] < 1.0 and impaired["kl_mean"] >= 0.0
    needle = kv_recall.needle_rows(cache, 16, [cases[0]], base=RecallConfig(), k=4, heads=[(5, 3)], repeats=2)
    assert needle[0]["signature"] == needle[0]["float (no impairment)"]


def test_missing_extra_is_a_one_line_error(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "transformers" else real(name, *a))
    with pytest.raises(ValueError, match=r"prismpic\[kv\].*'transformers' is missing"):
        minilm.require_extra()


def test_dump_recipe_captures_the_same_arrays_and_round_trips(tmp_path):
    """docs/examples/dump_kv_cache.py's attention-interface capture, run on MiniLM, gives the
    hooks' Q, K, V (two code paths of the model: SDPA there, eager here; float32 rounding),
    and the file it writes reads back."""
    import importlib.util
    from pathlib import Path

    import torch

    from prismpic.analysis.recall import kv_data

    path = Path(__file__).resolve().parents[2] / "docs" / "examples" / "dump_kv_cache.py"
    spec = importlib.util.spec_from_file_location("dump_kv_cache", path)
    dump = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dump)
    tok, model = minilm.load_model()
    ids = minilm.tokens("The quick brown fox jumps over the lazy dog by the river.")
    cache = dump.capture_kv(model, torch.tensor([[tok.cls_token_id, *ids, tok.sep_token_id]]), 3, "minilm")
    ref = minilm.run_windows([ids])
    np.testing.assert_allclose(cache.keys, ref["k"][0], atol=1e-4)
    np.testing.assert_allclose(cache.values, ref["v"][0], atol=1e-4)
    np.testing.assert_allclose(cache.queries, ref["q"][0][:, :, -3:], atol=1e-4)
    assert cache.softmax_scale == pytest.approx(32**-0.5)
    back = kv_data.load_kv(kv_data.save_kv(tmp_path / "mini.safetensors", cache, "float32"))
    np.testing.assert_array_equal(back.keys, cache.keys.astype(np.float32))
    np.testing.assert_array_equal(back.query_pos, cache.query_pos)
    assert back.metadata["model"] == "minilm"


def test_a_document_cache_is_read_back_bit_for_bit_without_the_model(cache, monkeypatch):
    """The second call with the same arguments reads the arrays the first stored (user cache, ``cached_arrays``)
    without running the model; other arguments run it again."""
    from prismpic import user_cache

    def no_model(*args, **kwargs):
        raise AssertionError("the model ran although the arrays were cached")

    assert user_cache.cache_root() is not None  # the test run's own cache folder (conftest)
    monkeypatch.setattr(minilm, "document_arrays_apart", no_model)  # the model runs in a child process (there)
    again = minilm.document_cache(n_windows=4, window_tokens=64, block_size=16, questions=[QUESTION],
                                  needles=[NEEDLE], n_doc_queries=16)
    for name in ("keys", "queries", "values"):
        assert np.array_equal(getattr(again, name), getattr(cache, name))
    assert again.metadata == cache.metadata
    with pytest.raises(AssertionError, match="model ran"):
        minilm.document_cache(n_windows=3, window_tokens=64, block_size=16, questions=[QUESTION], n_doc_queries=16)


def test_the_model_runs_apart_and_its_arrays_equal_the_in_process_run(tmp_path):
    """``document_cache`` runs the model in a child process (``document_arrays_apart``): the calling process never
    imports torch, and the arrays equal ``document_arrays`` run in this process, to the bit; an error in the child is
    raised in the caller with its message."""
    import json
    import os
    import subprocess
    import sys

    args = dict(n_windows=2, window_tokens=64, block_size=16, questions=[QUESTION], needles=[NEEDLE],
                query_tokens="content", n_doc_queries=4)
    code = ("import sys, json, numpy as np; from prismpic.analysis.recall import minilm; "
            f"c = minilm.document_cache(**json.loads({json.dumps(args)!r})); "
            f"np.savez({str(tmp_path / 'apart.npz')!r}, keys=c.keys, queries=c.queries, values=c.values); "
            "print('torch' in sys.modules, 'transformers' in sys.modules)")
    env = dict(os.environ, PRISMPIC_CACHE_DIR=str(tmp_path / "cache"))  # a cold cache: the model must run
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["False", "False"]
    apart = np.load(tmp_path / "apart.npz")
    here = minilm.document_arrays(minilm.python_docs_text(), True, **args)
    for name in ("keys", "queries", "values"):
        assert np.array_equal(apart[name], here[name]), name
    with pytest.raises(ValueError, match="n_windows = 100000 is outside the valid range"):
        minilm.document_arrays_apart(minilm.python_docs_text(), True, **dict(args, n_windows=100000))


def test_a_window_count_the_text_cannot_hold_is_refused_before_the_model_loads(monkeypatch):
    """The valid range of ``n_windows`` depends on the text's token count, so the tokenizer runs; the model (≈ 6 CPU-s
    more of imports) does not."""
    def no_model():
        raise AssertionError("the model loaded to refuse an argument")

    monkeypatch.setattr(minilm, "load_model", no_model)
    args = dict(window_tokens=64, block_size=16, questions=[QUESTION], needles=[NEEDLE], query_tokens="content",
                n_doc_queries=4)
    with pytest.raises(ValueError, match=r"n_windows = 100000 is outside the valid range \[1, \d+\]"):
        minilm.document_arrays(minilm.python_docs_text(), True, n_windows=100000, **args)
