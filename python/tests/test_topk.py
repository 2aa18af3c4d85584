"""clradix.topk against numpy's stable sort: the first k of each row, ties by index."""

import numpy as np
import pytest

import clradix
from conftest import KEY_DTYPES, make_keys


def expected(a, k, axis, largest):
    """The first k of the stable sort along axis (largest: descending, ties by index)."""
    moved = np.moveaxis(a, axis, -1)
    if largest:  # descending and stable: ascending stable sort of the dense ranks negated
        ranks = np.unique(moved, return_inverse=True)[1].reshape(moved.shape)
        order = np.argsort(-ranks.astype(np.int64), axis=-1, kind="stable")
    else:
        order = np.argsort(moved, axis=-1, kind="stable")
    order = order[..., :k]
    values = np.take_along_axis(moved, order, axis=-1)
    return np.moveaxis(values, -1, axis), np.moveaxis(order, -1, axis)


@pytest.mark.parametrize("dtype", KEY_DTYPES)
@pytest.mark.parametrize("largest", [True, False])
def test_flat(dtype, largest):
    a = make_keys(dtype, "few", 20011, seed=3)
    if np.dtype(dtype).kind == "f":
        a[::97] = np.nan
        a[5::89] = -0.0
    for k in (0, 1, 37, 20011):
        values, indices = clradix.topk(a, k, largest=largest)
        want_values, want_indices = expected(a, k, -1, largest)
        assert values.dtype == a.dtype and indices.dtype == np.intp
        assert values.tobytes() == want_values.tobytes() and np.array_equal(indices, want_indices)


@pytest.mark.parametrize("axis", [-1, 0, 1, None])
def test_axes(axis):
    a = make_keys(np.float32, "random", 300 * 17, seed=5).reshape(300, 17)
    a[::7, 3] = np.nan
    k = 4
    values, indices = clradix.topk(a, k, axis=axis)
    flat = a.reshape(-1) if axis is None else a
    want_values, want_indices = expected(flat, k, -1 if axis is None else axis, True)
    assert values.tobytes() == want_values.tobytes() and np.array_equal(indices, want_indices)
    values, indices = clradix.topk(a, 0, axis=axis)
    want_values, want_indices = expected(flat, 0, -1 if axis is None else axis, True)
    assert values.shape == want_values.shape and indices.shape == want_indices.shape and values.dtype == a.dtype


def test_errors():
    a = np.arange(10, dtype=np.uint32)
    with pytest.raises(ValueError):
        clradix.topk(a, 11)
    with pytest.raises(ValueError):
        clradix.topk(a, -1)
    with pytest.raises(TypeError):
        clradix.topk(a, 2.5)
    with pytest.raises(TypeError):
        clradix.topk(a.astype(np.complex64), 2)


def test_pyopencl(cl_queue):
    cla = pytest.importorskip("pyopencl.array")
    for dtype in (np.float32, np.int64, np.dtype("datetime64[s]"), np.uint8):
        a = make_keys(dtype, "few", 70001, seed=9)
        d = cla.to_device(cl_queue, a)
        for largest in (True, False):
            values, indices = clradix.topk(d, 100, largest=largest)
            want_values, want_indices = expected(a, 100, -1, largest)
            assert isinstance(values, cla.Array) and values.dtype == a.dtype and indices.dtype == np.intp
            assert values.get().tobytes() == want_values.tobytes()
            assert np.array_equal(indices.get(), want_indices)
        assert d.get().tobytes() == a.tobytes()
