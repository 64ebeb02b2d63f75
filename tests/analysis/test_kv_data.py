"""KV files: the layout round-trips, bad files are refused by name; attention error of a selection."""

import json
import math

import numpy as np
import pytest

from prismpic.analysis.recall import kv_data as kd
from prismpic.analysis.recall.attention_error import attention_error


def _cache(seed=0, n_kv=2, n_heads=4):
    r = np.random.default_rng(seed)
    return kd.KVCache(r.standard_normal((3, n_kv, 64, 8)), r.standard_normal((3, n_heads, 5, 8)),
                      r.standard_normal((3, n_kv, 64, 8)), np.array([3, 10, 20, 40, 63]),
                      {"model": "toy", "softmax_scale": 0.25})


@pytest.mark.parametrize("suffix, dtype, tol", [(".npz", "float64", 0.0), (".npz", "float32", 1e-6),
                                                (".safetensors", "float16", 2e-3), (".safetensors", "bfloat16", 1e-2)])
def test_dumped_cache_round_trips(tmp_path, suffix, dtype, tol):
    c = _cache()
    path = kd.save_kv(tmp_path / f"c{suffix}", c, dtype)
    back = kd.load_kv(path)
    for name in ("keys", "queries", "values"):
        a, b = getattr(c, name), getattr(back, name)
        assert b.dtype == np.float64 and b.shape == a.shape
        np.testing.assert_allclose(b, a, rtol=tol, atol=tol * 4)  # |x| < 4 for these normals
    np.testing.assert_array_equal(back.query_pos, c.query_pos)
    assert back.metadata == c.metadata and back.softmax_scale == 0.25
    # grouped-query attention: query heads 0, 1 read kv head 0; heads 2, 3 read kv head 1
    assert [back.kv_head(h) for h in range(4)] == [0, 0, 1, 1]
    k, q, v = back.head(2, 3)
    np.testing.assert_array_equal(k, back.keys[2, 1])
    np.testing.assert_array_equal(q, back.queries[2, 3])


def test_block_store_and_default_scale():
    c = kd.KVCache(np.zeros((1, 1, 96, 16)), np.zeros((1, 1, 2, 16)))
    assert c.softmax_scale == pytest.approx(1 / 4) and c.values is None
    blocks = kd.block_store(np.arange(96 * 16.0).reshape(96, 16), 32)
    assert blocks.shape == (3, 32, 16) and blocks[1, 0, 0] == 32 * 16
    with pytest.raises(ValueError, match="block_size = 40 must divide n_tokens = 96"):
        kd.block_store(np.zeros((96, 16)), 40)


def _write_npz(path, **arrays):
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return path


@pytest.mark.parametrize(
    "arrays, match",
    [
        ({"keys": np.zeros((2, 2, 8, 4))}, "no array 'queries'"),
        ({"keys": np.zeros((2, 2, 8, 4)), "queries": np.zeros((2, 2, 3, 5))}, "d_head"),
        ({"keys": np.zeros((2, 2, 8, 4)), "queries": np.zeros((3, 2, 3, 4))}, "n_layers"),
        ({"keys": np.zeros((2, 2, 8, 4)), "queries": np.zeros((2, 3, 3, 4))}, "multiple of the keys' 2 kv heads"),
        ({"keys": np.zeros((2, 8, 4)), "queries": np.zeros((2, 2, 3, 4))}, r"'keys' shape \(2, 8, 4\)"),
        ({"keys": np.zeros((2, 2, 8, 4), np.int32), "queries": np.zeros((2, 2, 3, 4))}, "'keys' dtype int32"),
        ({"keys": np.zeros((2, 2, 8, 4)), "queries": np.full((2, 2, 3, 4), np.nan)}, "'queries' holds NaN"),
        ({"keys": np.zeros((2, 2, 8, 4)), "queries": np.zeros((2, 2, 3, 4)), "values": np.zeros((2, 2, 7, 4))},
         "'values' shape"),
        ({"keys": np.zeros((2, 2, 8, 4)), "queries": np.zeros((2, 2, 3, 4)), "query_pos": np.array([0, 1, 9])},
         "'query_pos' spans"),
    ],
)
def test_bad_kv_files_are_refused_by_name(tmp_path, arrays, match):
    path = _write_npz(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ValueError, match=match):
        kd.load_kv(path)


def test_bad_paths(tmp_path):
    with pytest.raises(ValueError, match=r"must end in \.safetensors or \.npz"):
        kd.load_kv(tmp_path / "c.pt")
    with pytest.raises(ValueError, match="does not exist"):
        kd.load_kv(tmp_path / "missing.npz")
    (tmp_path / "junk.safetensors").write_bytes(b"\x05\x00junk")
    with pytest.raises(ValueError, match="not a readable .safetensors"):
        kd.load_kv(tmp_path / "junk.safetensors")
    _write_npz(tmp_path / "m.npz", keys=np.zeros((1, 1, 4, 2)), queries=np.zeros((1, 1, 1, 2)),
               metadata=np.array("{not json"))
    with pytest.raises(ValueError, match="metadata is not valid JSON"):
        kd.load_kv(tmp_path / "m.npz")
    ok = _write_npz(tmp_path / "ok.npz", keys=np.zeros((1, 1, 4, 2)), queries=np.zeros((1, 1, 1, 2)),
                    metadata=np.array(json.dumps({"model": "m"})))
    assert kd.load_kv(ok).metadata == {"model": "m"}


def test_attention_error_closed_forms():
    """Two blocks of one token each, logits β·q·k = (log 3, 0): p = (3/4, 1/4). Selecting block
    0 captures m = 3/4, KL = −log(3/4); with values v0 = (1, 0), v1 = (0, 1) the full output is
    (3/4, 1/4), the selected one (1, 0): relative error |(1/4, −1/4)| / |(3/4, 1/4)| = √2/√10."""
    q = np.array([[math.log(3.0), 0.0]])
    blocks = np.array([[[1.0, 0.0]], [[0.0, 0.0]]])
    values = np.array([[[1.0, 0.0]], [[0.0, 1.0]]])
    e = attention_error(q, blocks, np.array([[0]]), values, scale=1.0)
    assert e.mass[0] == pytest.approx(0.75) and e.kl[0] == pytest.approx(-math.log(0.75))
    assert e.output_rel_error[0] == pytest.approx(math.sqrt(2 / 10))
    full = attention_error(q, blocks, np.array([[0, 1]]), values, scale=1.0)
    assert full.kl[0] == pytest.approx(0.0, abs=1e-15) and full.output_rel_error[0] == pytest.approx(0.0, abs=1e-15)
    with pytest.raises(ValueError, match="selected"):
        attention_error(q, blocks, np.array([[2]]))


def test_non_contiguous_arrays_round_trip(tmp_path):
    """Arrays that are views (e.g. a model's transposed heads) are written by value, not by buffer."""
    r = np.random.default_rng(3)
    keys = r.standard_normal((1, 8, 2, 4)).transpose(0, 2, 1, 3)  # (1, 2, 8, 4), not C-contiguous
    c = kd.KVCache(keys, r.standard_normal((1, 2, 3, 4))[:, :, ::-1])
    for suffix in (".safetensors", ".npz"):
        back = kd.load_kv(kd.save_kv(tmp_path / f"v{suffix}", c, "float64"))
        np.testing.assert_array_equal(back.keys, keys)
        np.testing.assert_array_equal(back.queries, c.queries)
