"""numpy arrays against numpy's stable sort, bit for bit."""

import numpy as np
import pytest

import clradix
from clradix import _keys
from conftest import (KEY_DTYPES, NUMPY_SORTS_DESCENDING, UNSIGNED, make_keys, numpy_descending, numpy_order_image,
                      order_image, stable_descending)

# Around the CPU device's one-launch limit (2^16 keys) and small tiles.
SIZES = [0, 1, 2, 33, 2048, 65536, 65537, 100003]
DISTS = ["random", "equal", "few", "sorted", "reversed"]


def same_bits(x, y):
    return x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()


@pytest.mark.parametrize("dtype", KEY_DTYPES)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dist", DISTS)
def test_sort_and_argsort_equal_numpy(dtype, n, dist):
    a = make_keys(dtype, dist, n, seed=n * 7 + len(dist))
    before = a.copy()
    assert same_bits(clradix.sort(a), np.sort(a, kind="stable"))
    indices = clradix.argsort(a)
    assert indices.dtype == np.intp
    assert np.array_equal(indices, np.argsort(a, kind="stable"))
    assert same_bits(a, before)


FLOAT_EDGES = {
    np.float16: [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0xFFFF, 0x0001, 0x8001, 0x3C00, 0xBC00],
    np.float32: [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF,
                 0x00000001, 0x80000001, 0x3F800000, 0xBF800000],
    np.float64: [0, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
                 0xFFF8000000000000, 0x7FF0000000000001, 0xFFFFFFFFFFFFFFFF, 1, 0x8000000000000001,
                 0x3FF0000000000000, 0xBFF0000000000000],
}


def float_edges(dtype, n, seed):
    """Signed zeros, infinities, NaNs of both signs and several payloads, denormals, ones."""
    unsigned = UNSIGNED[np.dtype(dtype).itemsize]
    rng = np.random.default_rng(seed)
    return np.array(FLOAT_EDGES[dtype], dtype=unsigned)[rng.integers(0, len(FLOAT_EDGES[dtype]), n)].view(dtype)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("n", [12, 3001, 70001])
def test_float_orders(dtype, n):
    a = float_edges(dtype, n, seed=n)
    # numpy's order, the default: np.sort bit for bit (signed zeros and payloads kept).
    assert same_bits(clradix.sort(a), np.sort(a, kind="stable"))
    assert np.array_equal(clradix.argsort(a), np.argsort(a, kind="stable"))
    # totalOrder: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN.
    total = np.argsort(order_image(a), kind="stable")
    assert np.array_equal(clradix.argsort(a, float_order="total"), total)
    assert same_bits(clradix.sort(a, float_order="total"), a[total])
    # Descending, stable, ties in input order: NumPy 2.5's (NaNs last), and totalOrder reversed.
    assert np.array_equal(clradix.argsort(a, descending=True), numpy_descending(a))
    image_rank = np.unique(order_image(a), return_inverse=True)[1].reshape(-1)
    assert np.array_equal(clradix.argsort(a, descending=True, float_order="total"), stable_descending(image_rank))
    assert same_bits(clradix.sort(a, descending=True), a[numpy_descending(a)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_numpy_nans_through_total_order(dtype):
    """Keys whose NaNs are all np.nan's bits (no -0.0) sort ascending over the whole key by
    the faster totalOrder types, with numpy's result; other NaNs, -0.0, descending sorts and
    bit ranges keep numpy's order types. Every case against numpy."""
    rng = np.random.default_rng(7)
    a = rng.random(50001).astype(dtype)
    a[::97] = np.nan
    a[5::1000] = np.inf
    width = np.dtype(dtype).itemsize * 8
    full = _keys.options(a.dtype, False, 0, None)
    assert _keys.host_float_order(a, "numpy", full) == "total"
    assert same_bits(clradix.sort(a), np.sort(a, kind="stable"))
    assert np.array_equal(clradix.argsort(a), np.argsort(a, kind="stable"))
    keys, values = clradix.sort_pairs(a, np.arange(a.size, dtype=np.uint32))
    assert same_bits(keys, np.sort(a, kind="stable")) and np.array_equal(values, np.argsort(a, kind="stable"))
    assert _keys.host_float_order(a, "numpy", _keys.options(a.dtype, True, 0, None)) == "numpy"
    assert np.array_equal(clradix.argsort(a, descending=True), numpy_descending(a))
    assert _keys.host_float_order(a, "numpy", _keys.options(a.dtype, False, 4, width)) == "numpy"
    image = numpy_order_image(a) >> UNSIGNED[a.itemsize](4)
    assert np.array_equal(clradix.argsort(a, begin_bit=4), np.argsort(image, kind="stable"))
    negative = a.copy()
    negative[::97] = -np.nan  # NaNs with the sign bit set: numpy's order types
    assert _keys.host_float_order(negative, "numpy", full) == "numpy"
    assert same_bits(clradix.sort(negative), np.sort(negative, kind="stable"))
    mixed = a.copy()
    mixed.view(UNSIGNED[a.itemsize])[97] |= UNSIGNED[a.itemsize](1)  # one NaN of another payload
    assert _keys.host_float_order(mixed, "numpy", full) == "numpy"
    assert np.array_equal(clradix.argsort(mixed), np.argsort(mixed, kind="stable"))
    zeros = a.copy()
    zeros[3::500] = -0.0
    zeros[4::500] = 0.0
    assert _keys.host_float_order(zeros, "numpy", full) == "numpy"
    assert np.array_equal(clradix.argsort(zeros), np.argsort(zeros, kind="stable"))


@pytest.mark.parametrize("dtype", KEY_DTYPES)
def test_descending(dtype):
    a = make_keys(dtype, "few", 20000, seed=5)
    expected = numpy_descending(a)
    assert np.array_equal(clradix.argsort(a, descending=True), expected)
    assert same_bits(clradix.sort(a, descending=True), a[expected])


def edge_keys(dtype, n, seed):
    """Keys of every kind of edge, shuffled with random ones: NaNs of both signs, signed zeros
    and infinities for floats, NaT for datetimes, the extremes of integers."""
    dtype = np.dtype(dtype)
    a = make_keys(dtype, "random", n, seed)
    if dtype.kind == "f":
        edges = float_edges(dtype.type, n // 2, seed)
    elif dtype.kind in "iumM":
        info = np.iinfo(UNSIGNED[dtype.itemsize] if dtype.kind == "u" else np.int64 if dtype.kind in "mM" else dtype)
        edges = np.array([info.min, info.min + 1, 0, 1, info.max], dtype=np.int64 if dtype.kind in "mM" else dtype)
        edges = np.resize(edges.view(dtype) if dtype.kind in "mM" else edges, n // 2)
    else:
        edges = a[: n // 2]
    a[: n // 2] = edges
    return np.random.default_rng(seed).permutation(a)


@pytest.mark.parametrize("dtype", KEY_DTYPES)
def test_descending_against_numpy(dtype):
    """descending=True is NumPy 2.5's own np.sort / np.argsort(descending=True, stable=True), bit
    for bit, for every sortable dtype, NaN, NaT and -0.0 included."""
    if not NUMPY_SORTS_DESCENDING:
        pytest.skip(f"numpy {np.__version__} has no descending= (NumPy 2.5 does); the rank oracle checks it instead")
    for n in (17, 5000):
        a = edge_keys(dtype, n, seed=n)
        assert same_bits(clradix.sort(a, descending=True), np.sort(a, descending=True, stable=True))
        assert np.array_equal(clradix.argsort(a, descending=True), np.argsort(a, descending=True, stable=True))


@pytest.mark.parametrize("dtype", KEY_DTYPES)
@pytest.mark.parametrize("bits", [(0, 8), (4, 12), (16, 32), (7, 7), (28, 32)])
def test_bit_ranges(dtype, bits):
    a = make_keys(dtype, "random", 30000, seed=bits[0] * 100 + bits[1])
    begin, end = bits
    if end > a.dtype.itemsize * 8:  # past the key's width
        with pytest.raises(ValueError):
            clradix.argsort(a, begin_bit=begin, end_bit=end)
        return
    masked = (order_image(a) >> begin) & ((1 << (end - begin)) - 1)
    expected = np.argsort(masked, kind="stable")
    got = clradix.argsort(a, begin_bit=begin, end_bit=end, float_order="total")
    assert np.array_equal(got, expected)
    assert same_bits(clradix.sort(a, begin_bit=begin, end_bit=end, float_order="total"), a[expected])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("bits", [(0, 16), (5, 13), (10, 16)])
def test_bit_ranges_in_numpy_order(dtype, bits):
    """Bit ranges of floats in numpy's order select from its documented image."""
    a = float_edges(dtype, 20000, seed=bits[0])
    a[1::2] = make_keys(dtype, "random", 10000, seed=bits[1])
    begin, end = bits
    for descending in (False, True):
        masked = (numpy_order_image(a, descending) >> begin) & ((1 << (end - begin)) - 1)
        expected = np.argsort(masked, kind="stable") if not descending else stable_descending(masked)
        assert np.array_equal(clradix.argsort(a, begin_bit=begin, end_bit=end, descending=descending), expected)
        got = clradix.sort(a, begin_bit=begin, end_bit=end, descending=descending)
        assert same_bits(got, a[expected])


def test_nat_last():
    """NaT sorts last in both directions, as numpy puts it, for every unit."""
    for unit in ("s", "ms", "ns", "D"):
        for kind in ("datetime64", "timedelta64"):
            a = np.array([5, "NaT", -3, 0, "NaT", 2**40], dtype=f"{kind}[{unit}]") if kind == "datetime64" else \
                np.array([5, "NaT", -3, 0, "NaT", 2**40], dtype=f"{kind}[{unit}]")
            assert same_bits(clradix.sort(a), np.sort(a, kind="stable"))
            assert np.array_equal(clradix.argsort(a), np.argsort(a, kind="stable"))
            assert np.array_equal(clradix.argsort(a, descending=True), [5, 0, 3, 2, 1, 4])
            assert same_bits(clradix.sort(a, descending=True), a[[5, 0, 3, 2, 1, 4]])
            keys, values = clradix.sort_pairs(a, np.arange(6, dtype=np.uint32))
            assert same_bits(keys, np.sort(a, kind="stable")) and list(values) == [2, 3, 0, 5, 1, 4]


@pytest.mark.parametrize("value_dtype", [np.uint32, np.float32, np.int64, np.float64, np.complex128,
                                         np.dtype([("id", "<u4"), ("weight", "<f4"), ("tag", "<u8")]),
                                         np.dtype(">u8")])
@pytest.mark.parametrize("key_dtype", [np.uint32, np.float64, np.int64])
def test_sort_pairs(key_dtype, value_dtype):
    n = 40000
    keys = make_keys(key_dtype, "few", n, seed=9)
    values = np.zeros(n, dtype=value_dtype)
    raw = values.view(np.uint8).reshape(n, -1)
    raw[:] = np.random.default_rng(1).integers(0, 256, raw.shape, dtype=np.uint8)
    before = (keys.copy(), values.copy())
    got_keys, got_values = clradix.sort_pairs(keys, values)
    perm = np.argsort(keys, kind="stable")
    assert same_bits(got_keys, keys[perm])
    assert got_values.dtype == values.dtype and got_values.tobytes() == values[perm].tobytes()
    assert same_bits(keys, before[0]) and values.tobytes() == before[1].tobytes()


def test_sort_pairs_float_edges():
    keys = float_edges(np.float32, 5000, seed=3)
    values = np.arange(5000, dtype=np.uint64)
    got_keys, got_values = clradix.sort_pairs(keys, values)
    perm = np.argsort(keys, kind="stable")
    assert same_bits(got_keys, keys[perm]) and np.array_equal(got_values, perm)
    got_keys, got_values = clradix.sort_pairs(keys, values, float_order="total", descending=True)
    image_rank = np.unique(order_image(keys), return_inverse=True)[1].reshape(-1)
    assert np.array_equal(got_values, stable_descending(image_rank))


def test_views_slices_and_byte_order():
    base = make_keys(np.int64, "few", 30000, seed=4)
    for view in (base[::3], base[5:20000], base[::-1], base.reshape(100, 300)[:, 7]):
        assert np.array_equal(clradix.argsort(view), np.argsort(view, kind="stable"))
        assert same_bits(clradix.sort(view), np.sort(view, kind="stable"))
    for dtype in (">f4", ">i8", ">u4", ">f8"):
        big = make_keys(np.dtype(dtype).newbyteorder("="), "random", 5000, seed=2).astype(dtype)
        assert np.array_equal(clradix.argsort(big), np.argsort(big, kind="stable"))
        assert same_bits(clradix.sort(big), np.sort(big, kind="stable"))


@pytest.mark.parametrize("axis", [-1, 0, 1, None])
def test_more_dimensions(axis):
    a = make_keys(np.float32, "few", 6 * 7 * 500, seed=8).reshape(6, 7, 500)
    a[0, 0, :3] = [np.nan, -0.0, 0.0]
    assert same_bits(clradix.sort(a, axis=axis), np.sort(a, axis=axis, kind="stable"))
    assert np.array_equal(clradix.argsort(a, axis=axis), np.argsort(a, axis=axis, kind="stable"))


@pytest.mark.parametrize("dtype", [np.uint32, np.int64, np.float64])
@pytest.mark.parametrize("shape", [(40, 5), (3, 2000), (2, 1), (4, 0), (300, 17), (5, 3, 70001)])
def test_rows_every_length(dtype, shape):
    """Rows of every class of the segmented sort (one key, a few, hundreds, past the
    device's one-launch limit), ascending and descending, with argsort's index dtypes."""
    a = make_keys(dtype, "few", int(np.prod(shape)), seed=len(shape) * 100 + shape[-1]).reshape(shape)
    for axis in (-1, 0):
        assert same_bits(clradix.sort(a, axis=axis), np.sort(a, axis=axis, kind="stable"))
        assert np.array_equal(clradix.argsort(a, axis=axis, index_dtype=np.uint32),
                              np.argsort(a, axis=axis, kind="stable"))
    rows = a.reshape(int(np.prod(shape[:-1])), shape[-1])
    expected = np.array([row[numpy_descending(row)] for row in rows]).reshape(shape)
    assert same_bits(clradix.sort(a, descending=True), expected)


def test_out_and_in_place():
    a = make_keys(np.uint64, "random", 10000, seed=1)
    expected = np.sort(a, kind="stable")
    out = np.empty_like(a)
    assert clradix.sort(a, out=out) is out and same_bits(out, expected)
    assert clradix.sort(a, out=a) is a and same_bits(a, expected)


@pytest.mark.parametrize("dtype, shape", [(np.uint32, (1 << 20,)), (np.float32, (256, 4096)),
                                          ("datetime64[ns]", (1 << 18,))])
def test_in_place_sorts_without_a_copy(dtype, shape):
    """sort(out=a) of an array whose sorted axis is contiguous sorts it in its own memory:
    Python allocates no copy of the keys (datetime64 keys are turned into counts and back
    in place)."""
    import tracemalloc

    a = make_keys(np.dtype(dtype), "random", int(np.prod(shape)), seed=4).reshape(shape)
    expected = np.sort(a, axis=-1, kind="stable")
    clradix.sort(a[:8], out=a[:8].copy())  # the sorter and its programs, before measuring
    tracemalloc.start()
    try:
        assert clradix.sort(a, out=a) is a
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert same_bits(a, expected)
    assert peak < a.nbytes // 2, f"{peak} bytes allocated to sort {a.nbytes} in place"


def test_index_dtypes():
    a = make_keys(np.int32, "few", 5000, seed=6)
    expected = np.argsort(a, kind="stable")
    for dtype in (np.uint32, np.int32, np.uint64, np.int64):
        got = clradix.argsort(a, index_dtype=dtype)
        assert got.dtype == dtype and np.array_equal(got, expected)


def test_lists_and_devices():
    assert np.array_equal(clradix.sort(np.array([3, 1, 2], dtype=np.uint32)), [1, 2, 3])
    assert clradix.devices() and clradix.devices()[0][0] == 0
    # device= takes what CLRADIX_DEVICE takes: an index, or a part of the name.
    name = clradix.devices()[0][1].split()[-1]
    for device in (0, "0", name):
        assert np.array_equal(clradix.argsort(np.array([2.0, 1.0]), device=device), [1, 0])
    with clradix.Sorter(0) as sorter:
        assert np.array_equal(sorter.sort(np.array([5, -1], dtype=np.int64)), [-1, 5])
        assert np.array_equal(clradix.argsort(np.array([5, -1], dtype=np.int32), sorter=sorter), [1, 0])


def test_version_matches_the_library():
    from clradix import _library

    number = _library.lib().clradix_version()
    assert clradix.__version__ == f"{number // 10000}.{number // 100 % 100}.{number % 100}"


FORK_CHILD = """
import os, sys
import numpy as np
import clradix
from clradix import _sorter

a = np.arange(1000, 0, -1, dtype=np.uint32)
expected = np.arange(1, 1001, dtype=np.uint32)
assert np.array_equal(clradix.sort(a), expected)
parents_shared, mine = _sorter.host_sorter(None), clradix.Sorter()
pid = os.fork()
if pid == 0:
    code = 3
    try:
        try:
            mine.sort(a)
        except ValueError as e:
            assert "fork" in str(e), e
            assert _sorter.host_sorter(None) is not parents_shared  # made again here
            assert np.array_equal(clradix.sort(a), expected)
            mine.close()  # released by the parent only
            code = 0
    finally:
        sys.stdout.flush()
        os._exit(code)
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0, status
assert np.array_equal(mine.sort(a), expected)  # the parent's still work
print("fork: ok")
"""


def test_fork():
    """Sorters made before fork(): the child makes its own, and refuses the parent's."""
    import os
    import subprocess
    import sys

    # POCL's basic device: its pthread device cannot run OpenCL at all in a child of a
    # process that used it (nor can some GPU drivers), with or without clradix.
    env = dict(os.environ, POCL_DEVICES="basic", CLRADIX_DEVICE="basic")
    probe = subprocess.run([sys.executable, "-c", "import clradix, sys; "
                            "sys.exit(not any('basic' in name for _, name in clradix.devices()))"], env=env,
                           capture_output=True, text=True)
    if probe.returncode:
        pytest.skip("no POCL basic device")
    result = subprocess.run([sys.executable, "-c", FORK_CHILD], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and "fork: ok" in result.stdout, result.stdout + result.stderr
