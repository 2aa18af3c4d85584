"""The benchmark's distributions (clradix.bench.make_keys): what each promises, per dtype."""
import numpy as np
import pytest

from clradix.bench import make_keys

DTYPES = ["uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float16", "float32", "float64"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_random_is_finite_and_spread(dtype):
    keys = make_keys(dtype, 4096, seed=1)
    assert keys.dtype == np.dtype(dtype)
    if keys.dtype.kind == "f":
        assert np.isfinite(keys).all()
        assert (keys < 0).any() and (keys > 0).any() and (np.abs(keys) > 1e4).any()
    else:  # the top bit of the pattern varies
        bits = keys.view(f"uint{keys.itemsize * 8}") >> (keys.itemsize * 8 - 1)
        assert 0 < bits.sum() < keys.size


@pytest.mark.parametrize("dtype", DTYPES)
def test_unit(dtype):
    keys = make_keys(dtype, 4096, seed=2, dist="unit")
    if keys.dtype.kind == "f":
        assert (keys >= 0).all() and (keys < 1).all() and keys.min() < 0.01 and keys.max() > 0.99
    else:
        top = min(2**20, int(np.iinfo(keys.dtype).max) + 1)
        assert (keys >= 0).all() and (keys.astype(np.float64) < top).all() and keys.max() > top // 2


@pytest.mark.parametrize("dtype", DTYPES)
def test_normal(dtype):
    keys = make_keys(dtype, 4096, seed=3, dist="normal").astype(np.float64)
    if np.dtype(dtype).kind == "f":
        assert abs(keys.mean()) < 0.1 and 0.9 < keys.std() < 1.1
    else:
        bits = np.dtype(dtype).itemsize * 8
        centre = 0.0 if np.dtype(dtype).kind == "i" else 2.0 ** (bits - 1)
        spread = (keys - centre) / 2.0 ** (bits // 2)
        assert abs(spread.mean()) < 0.1 and 0.8 < spread.std() < 1.1  # 8-bit keys clamp a little


@pytest.mark.parametrize("dtype", DTYPES)
def test_zipf(dtype):
    keys = make_keys(dtype, 4096, seed=4, dist="zipf")
    ones = np.count_nonzero(keys == 1) / keys.size
    assert (keys >= 1).all() and 0.05 < ones < 0.3  # 1 / zeta(1.1) is about 0.095; 8-bit ranges cut the tail
    if keys.dtype.kind == "f":
        assert (keys == np.round(keys)).all()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("level, words", [("entropy0.811", 2), ("entropy0.544", 3), ("entropy0.337", 4),
                                          ("entropy0.201", 5)])
def test_entropy_levels(dtype, level, words):
    """CUB's levels: each bit of a key is set with probability 2^-words (the AND of that many
    random words), floats finite."""
    keys = make_keys(dtype, 1 << 14, seed=5, dist=level)
    assert keys.dtype == np.dtype(dtype)
    if keys.dtype.kind == "f":
        assert np.isfinite(keys).all()
        return  # random float patterns are not uniform words (no all-ones exponent)
    bits = np.unpackbits(keys.view(np.uint8)).mean()
    assert abs(bits - 2.0 ** -words) < 0.2 * 2.0 ** -words


@pytest.mark.parametrize("dtype", DTYPES)
def test_ips4o_suite(dtype):
    n = 1 << 14
    root = make_keys(dtype, n, seed=6, dist="rootdup")
    assert np.array_equal(root, (np.arange(n) % 128).astype(dtype))
    m = np.uint64(n)
    two = make_keys(dtype, n, seed=6, dist="twodup")
    with np.errstate(over="ignore"):
        assert np.array_equal(two, ((np.arange(n, dtype=np.uint64) ** 2 + m // np.uint64(2)) % m).astype(dtype))
        almost = make_keys(dtype, n, seed=6, dist="almostsorted")
        order = np.arange(n, dtype=np.uint64).astype(dtype)
    moved = np.count_nonzero(almost != order)
    assert 0 < moved <= 2 * 128 and np.array_equal(np.sort(almost), np.sort(order))
    exponential = make_keys(dtype, n, seed=6, dist="exponential")
    _, counts = np.unique(exponential, return_counts=True)
    # 2^j + a draw below 2^j with j uniform below 15: the draw of j = 0 alone (the value 1) is
    # one key in 15, hashed to one key
    assert counts.max() >= n // 30 and (not np.dtype(dtype).kind == "f" or np.isfinite(exponential).all())
