"""bfloat16 keys through ml_dtypes (skipped where it is not installed; the README's test
command runs this file in a virtual environment that installs it)."""

import numpy as np
import pytest

import clradix
from conftest import numpy_descending

ml_dtypes = pytest.importorskip("ml_dtypes")

EDGES = [0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81, 0xFFFF, 0x0001, 0x8001, 0x3F80, 0xBF80]


def keys(n, seed):
    """Random bit patterns (NaNs of both signs among them), every other one an edge value."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 1 << 16, n, dtype=np.uint16)
    bits[::2] = np.array(EDGES, dtype=np.uint16)[rng.integers(0, len(EDGES), (n + 1) // 2)]
    return bits.view(ml_dtypes.bfloat16)


@pytest.mark.parametrize("n", [1, 1000, 70001])
def test_numpy_order(n):
    a = keys(n, seed=n)
    perm = np.argsort(a.astype(np.float32), kind="stable")  # exact widening: numpy's float order
    assert np.array_equal(clradix.argsort(a), perm)
    assert clradix.sort(a).tobytes() == a[perm].tobytes() and clradix.sort(a).dtype == a.dtype
    assert np.array_equal(clradix.argsort(a, descending=True), numpy_descending(a.astype(np.float32)))
    got_keys, got_values = clradix.sort_pairs(a, np.arange(n, dtype=np.uint32))
    assert got_keys.tobytes() == a[perm].tobytes() and np.array_equal(got_values, perm)


def test_total_order():
    a = keys(5000, seed=3)
    bits = a.view(np.uint16)
    image = np.where(bits & 0x8000, ~bits, bits | 0x8000)  # -NaN < -inf < ... < -0.0 < +0.0 < ... < +NaN
    perm = np.argsort(image, kind="stable")
    assert np.array_equal(clradix.argsort(a, float_order="total"), perm)
    assert clradix.sort(a, float_order="total").tobytes() == a[perm].tobytes()
