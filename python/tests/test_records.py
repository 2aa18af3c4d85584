"""Structured arrays sorted by their fields (order=) and clradix.lexsort, bit for bit
against numpy's stable sorts: every key dtype as a field, non-native byte order, NaNs,
signed zeros and NaT, every axis, byte strings (S and V) as keys and fields, and the calls
that are refused."""

import numpy as np
import pytest

import clradix
from conftest import KEY_DTYPES, make_keys


def structured(n, seed):
    """n records of every key dtype (with few distinct values, so that ties reach the later
    fields), one of them big-endian, floats with NaNs and signed zeros, times with NaT."""
    fields = [(f"f{i}", np.dtype(d)) for i, d in enumerate(KEY_DTYPES)] + [("big", np.dtype(">f4"))]
    a = np.zeros(n, dtype=fields)
    for i, (name, dtype) in enumerate(fields):
        column = make_keys(dtype.newbyteorder("="), "few", n, seed=seed + i)
        if dtype.kind == "f":
            column[::13] = np.nan
            column[3::17] = -0.0
        if dtype.kind in "mM":
            column[::11] = np.array("NaT", dtype=dtype)
        a[name] = column
    return a


@pytest.mark.parametrize("order", [None, "f2", ["f11", "f5"], ["big", "f12", "f10"], ["f13", "f9", "f4"]])
def test_order(order):
    a = structured(5000, 1)
    assert clradix.sort(a, order=order).tobytes() == np.sort(a, order=order, kind="stable").tobytes()
    assert (clradix.argsort(a, order=order) == np.argsort(a, order=order, kind="stable")).all()


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_order_axes(axis):
    a = structured(3000, 2).reshape(30, 100)
    for order in ("f6", ["big", "f0"]):
        assert clradix.sort(a, order=order, axis=axis).tobytes() == np.sort(a, order=order, axis=axis,
                                                                             kind="stable").tobytes()
        assert (clradix.argsort(a, order=order, axis=axis) == np.argsort(a, order=order, axis=axis,
                                                                         kind="stable")).all()
    out = np.empty_like(a)
    assert clradix.sort(a, order="f2", out=out) is out


@pytest.mark.parametrize("layout", [
    [("a", "<u4"), ("b", "<i4")],                                  # 8 bytes: read as one key
    [("a", "<i2"), ("b", "<u2")],                                  # 4 bytes
    {"names": ["a", "b"], "formats": ["<u2", "<i4"], "offsets": [4, 0], "itemsize": 8},  # b first, 2 spare bytes
    [("a", "<f4"), ("b", "<u4")],                                  # a float field: numpy's order
    {"names": ["a", "b"], "formats": ["u1", "<i8"], "offsets": [0, 8], "itemsize": 16},  # padding
])
def test_order_layouts(layout):
    """Records sorted in a copy of their own layout (a 1-D array), spare bytes moving along
    (numpy's sort may not copy them: fields compared)."""
    dtype = np.dtype(layout)
    rng = np.random.default_rng(7)
    raw = rng.integers(0, 4, (70000, dtype.itemsize), dtype=np.uint8)  # few values: ties reach b
    a = raw.view(dtype).reshape(-1)
    if dtype["a"].kind == "f":
        a["a"][::9] = np.nan
        a["a"][1::11] = -0.0
    for order in (None, "b", ["b", "a"]):
        for records in (a, a[::-1]):
            got, want = clradix.sort(records, order=order), np.sort(records, order=order, kind="stable")
            assert all(got[name].tobytes() == want[name].tobytes() for name in dtype.names)
    keys = (a["b"].copy(), a["a"].copy())
    assert (clradix.lexsort(keys) == np.lexsort(keys)).all()


@pytest.mark.parametrize("dtype", ["S1", "S5", "S8", "S16", "S24", "V3", "V13"])
def test_byte_strings(dtype):
    """Byte strings as numpy compares them (byte by byte, unsigned): sort, argsort, both
    directions, along an axis, as lexsort keys and structured fields."""
    width = np.dtype(dtype).itemsize
    rng = np.random.default_rng(width)
    raw = rng.integers(0, 3, (30000, width), dtype=np.uint8)
    raw[::7] = rng.integers(0, 256, (len(raw[::7]), width), dtype=np.uint8)
    a = raw.view(dtype).reshape(-1)
    assert clradix.sort(a).tobytes() == np.sort(a, kind="stable").tobytes()
    assert (clradix.argsort(a) == np.argsort(a, kind="stable")).all()
    inverted = (255 - raw).view(dtype).reshape(-1)  # descending: the bytes' complement ascending, ties in order
    assert (clradix.argsort(a, descending=True) == np.argsort(inverted, kind="stable")).all()
    assert clradix.sort(a[::-3]).tobytes() == np.sort(a[::-3], kind="stable").tobytes()
    m = a[:29000].reshape(290, 100)
    for axis in (0, 1, None):
        assert clradix.sort(m, axis=axis).tobytes() == np.sort(m, axis=axis, kind="stable").tobytes()
    other = rng.integers(0, 2, len(a)).astype(np.int16)
    assert (clradix.lexsort((a, other)) == np.lexsort((a, other))).all()
    assert (clradix.lexsort((other, a)) == np.lexsort((other, a))).all()
    s = np.zeros(len(a), dtype=[("k", dtype), ("v", np.int16)])
    s["k"], s["v"] = a, other
    for order in ("k", "v"):
        assert clradix.sort(s, order=order).tobytes() == np.sort(s, order=order, kind="stable").tobytes()
    with pytest.raises(ValueError):
        clradix.sort(a, end_bit=8)
    assert clradix.sort(a[:0]).size == 0 and clradix.argsort(a[:0]).size == 0


@pytest.mark.parametrize("dtype", KEY_DTYPES)
def test_lexsort(dtype):
    primary = make_keys(dtype, "few", 4000, seed=5)
    secondary = make_keys(np.float64, "few", 4000, seed=6)
    secondary[::7] = np.nan
    keys = (secondary, primary)  # the last key is the primary one
    assert (clradix.lexsort(keys) == np.lexsort(keys)).all()
    assert clradix.lexsort(keys).dtype == np.intp


def test_lexsort_shapes():
    rng = np.random.default_rng(3)
    m = rng.integers(0, 4, (3, 40, 50)).astype(np.int64)
    for axis in (0, 1, 2, -1):
        assert (clradix.lexsort((m, m % 3), axis=axis) == np.lexsort((m, m % 3), axis=axis)).all()
    rows = rng.integers(0, 3, (3, 1000)).astype(np.int32)  # a 2-D array: its rows are the keys
    assert (clradix.lexsort(rows) == np.lexsort(rows)).all()
    assert (clradix.lexsort(rows[0]) == np.lexsort(rows[0])).all()
    assert clradix.lexsort((np.array([], dtype=np.int32),)).size == 0


def test_refused():
    a = structured(10, 4)
    with pytest.raises(ValueError):
        clradix.sort(np.arange(5), order="x")  # no fields
    with pytest.raises(ValueError):
        clradix.sort(a, order="nope")
    with pytest.raises(ValueError):
        clradix.sort(a, descending=True)
    with pytest.raises(TypeError):
        clradix.sort(np.zeros(3, dtype=[("s", "U3"), ("i", np.int32)]))  # a string field
    with pytest.raises(TypeError):
        clradix.lexsort([])
    with pytest.raises(ValueError):
        clradix.lexsort((np.zeros(3), np.zeros(4)))
