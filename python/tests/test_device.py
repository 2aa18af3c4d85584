"""pyopencl arrays: the same results as the host path, sorted on the device without a host
round trip, after the arrays' events and before what waits on theirs."""

import numpy as np
import pytest

import clradix
from conftest import KEY_DTYPES, make_keys, numpy_descending

cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")


def same_bits(x, y):
    return x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()


@pytest.mark.parametrize("dtype", KEY_DTYPES)
@pytest.mark.parametrize("n", [0, 1, 1000, 65537])
@pytest.mark.parametrize("float_order", ["numpy", "total"])
def test_equal_to_the_host_path(cl_queue, dtype, n, float_order):
    a = make_keys(dtype, "few" if n % 2 else "random", n, seed=n)
    if n and np.dtype(dtype).kind == "f":
        a[: min(n, 4)] = np.array([np.nan, -0.0, 0.0, -np.nan], dtype=dtype)[: min(n, 4)]
    d = cla.to_device(cl_queue, a)
    for descending in (False, True):
        kwargs = dict(descending=descending, float_order=float_order)
        s = clradix.sort(d, **kwargs)
        assert isinstance(s, cla.Array)
        assert same_bits(s.get(), clradix.sort(a, **kwargs))
        assert np.array_equal(clradix.argsort(d, **kwargs).get(), clradix.argsort(a, **kwargs))
    assert same_bits(d.get(), a)  # the input stays as it was


@pytest.mark.parametrize("value_dtype", [np.uint32, np.float64, np.dtype([("a", "<u8"), ("b", "<f8")])])
@pytest.mark.parametrize("key_dtype", [np.float32, np.int64])
def test_pairs(cl_queue, key_dtype, value_dtype):
    n = 30000
    keys = make_keys(key_dtype, "few", n, seed=2)
    values = np.zeros(n, dtype=value_dtype)
    raw = values.view(np.uint8).reshape(n, -1)
    raw[:] = np.random.default_rng(3).integers(0, 256, raw.shape, dtype=np.uint8)
    got_keys, got_values = clradix.sort_pairs(cla.to_device(cl_queue, keys), cla.to_device(cl_queue, values))
    want_keys, want_values = clradix.sort_pairs(keys, values)
    assert same_bits(got_keys.get(), want_keys) and got_values.get().tobytes() == want_values.tobytes()


def test_waits_for_the_arrays_events_and_chains(cl_queue):
    """An array whose events hold a user event: the sorts, on another queue, must return at
    once and not start before it completes (they wait for the array's events, not for a
    queue); a kernel enqueued after them must see sorted keys."""
    import time

    from pyopencl.elementwise import ElementwiseKernel

    context = cl_queue.context
    other = cl.CommandQueue(context)
    a = make_keys(np.uint32, "random", 100000, seed=11)
    d = cla.to_device(cl_queue, a)
    gate = cl.UserEvent(context)
    d.add_event(gate)
    i = clradix.argsort(d, index_dtype=np.uint32, queue=other)  # would deadlock if it waited on the device
    s = clradix.sort(d, out=d, queue=other)
    time.sleep(0.3)  # ample for 10^5 keys, had the sorts not waited
    complete = cl.command_execution_status.COMPLETE
    assert i.events[-1].command_execution_status != complete
    assert s.events[-1].command_execution_status != complete
    gate.set_status(complete)
    in_order = cla.empty(other, (a.size - 1,), np.uint8)
    check = ElementwiseKernel(context, "uchar *ok, const uint *k", "ok[i] = k[i] <= k[i + 1]", "in_order")
    check(in_order, s.with_queue(other), queue=other, wait_for=s.events).wait()
    assert in_order.get().all()
    assert np.array_equal(s.get(), np.sort(a, kind="stable"))
    assert np.array_equal(i.get(), np.argsort(a, kind="stable"))


def test_two_queues_and_a_sorter(cl_queue):
    context = cl_queue.context
    other = cl.CommandQueue(context)
    a = make_keys(np.float64, "random", 50000, seed=12)
    d = cla.to_device(cl_queue, a)
    with clradix.Sorter(context=context) as sorter:
        s = clradix.sort(d, queue=other, sorter=sorter)
        t = sorter.sort(d)
        assert same_bits(s.get(queue=cl_queue), np.sort(a, kind="stable"))
        assert same_bits(t.get(), np.sort(a, kind="stable"))
    out = cla.empty_like(d)
    assert clradix.sort(d, out=out, queue=other) is out
    assert same_bits(out.get(queue=cl_queue), np.sort(a, kind="stable"))
    assert clradix.sort(d, out=d) is d and same_bits(d.get(), np.sort(a, kind="stable"))


def test_views_at_an_offset(cl_queue):
    a = make_keys(np.int32, "random", 10000, seed=13)
    d = cla.to_device(cl_queue, a)[17:]
    assert np.array_equal(clradix.sort(d).get(), np.sort(a[17:], kind="stable"))
    assert np.array_equal(clradix.argsort(d).get(), np.argsort(a[17:], kind="stable"))


def test_one_shared_sorter_per_context_whatever_the_queue(cl_queue):
    import gc
    import weakref

    from clradix import _sorter

    context = cl.Context(cl_queue.context.devices)  # a context of its own, whose queues all go
    a = make_keys(np.uint32, "random", 3000, seed=20)
    first = cl.CommandQueue(context)
    d = cla.to_device(first, a)
    assert np.array_equal(clradix.sort(d).get(), np.sort(a))
    shared = _sorter.queue_sorter(first)
    second = cl.CommandQueue(context)
    assert _sorter.queue_sorter(second) is shared  # each queue has a Context object of its own
    del d, first
    gc.collect()
    assert _sorter.queue_sorter(second) is shared  # not dropped with the first queue's
    assert np.array_equal(clradix.sort(cla.to_device(second, a)).get(), np.sort(a))
    try:
        weakref.ref(second)
    except TypeError:  # pyopencl's nanobind queues: no weak references, so the sorter is kept
        del second
        gc.collect()
        assert shared.handle and _sorter.queue_sorter(cl.CommandQueue(context)) is shared
        return
    del second
    gc.collect()
    with pytest.raises(ValueError, match="closed"):  # every queue that used it gone: released
        shared.handle


def test_out_left_alone_when_the_sort_fails(cl_queue):
    a = make_keys(np.float32, "random", 5000, seed=21)
    d = cla.to_device(cl_queue, a)
    out = cla.to_device(cl_queue, np.zeros_like(a))
    closed = clradix.Sorter(context=cl_queue.context)
    closed.close()
    with pytest.raises(ValueError, match="closed"):
        clradix.sort(d, out=out, sorter=closed)
    with clradix.Sorter(context=cl.Context(cl_queue.context.devices)) as elsewhere:  # another context's
        with pytest.raises(clradix.Error):
            clradix.sort(d, out=out, sorter=elsewhere)
    assert not out.get().any()
    # Keys in the library's form (time keys, moved by one) come back as they were.
    times = make_keys(np.dtype("datetime64[ns]"), "random", 5000, seed=22)
    t = cla.to_device(cl_queue, times)
    with pytest.raises(ValueError, match="closed"):
        clradix.sort(t, out=t, sorter=closed)
    assert same_bits(t.get(), times)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.dtype("datetime64[ms]")])
@pytest.mark.parametrize("axis", [-1, 0, 1, None])
def test_every_axis(cl_queue, dtype, axis):
    """N-D pyopencl arrays along every axis: sort, argsort (both directions), top-k, as
    numpy gives them (descending: NumPy 2.5's, NaN and NaT last)."""
    a = make_keys(dtype, "few", 3 * 4 * 700, seed=30).reshape(3, 4, 700)
    if np.dtype(dtype).kind == "f":
        a[0, 0, :4] = np.array([np.nan, -0.0, 0.0, -np.nan], dtype=dtype)
    d = cla.to_device(cl_queue, a)
    flat, along = (a.reshape(-1), -1) if axis is None else (a, axis)
    assert same_bits(clradix.sort(d, axis=axis).get(), np.sort(a, axis=axis, kind="stable"))
    assert np.array_equal(clradix.argsort(d, axis=axis).get(), np.argsort(a, axis=axis, kind="stable"))
    order = np.apply_along_axis(numpy_descending, along, flat)
    assert np.array_equal(clradix.argsort(d, axis=axis, descending=True, index_dtype=np.uint32).get(), order)
    assert same_bits(clradix.sort(d, axis=axis, descending=True).get(), np.take_along_axis(flat, order, along))
    values, indices = clradix.topk(d, 3, axis=axis)
    want_values, want_indices = clradix.topk(a, 3, axis=axis)
    assert same_bits(values.get(), want_values) and np.array_equal(indices.get(), want_indices)
    assert same_bits(d.get(), a)


def test_every_axis_in_place_and_out(cl_queue):
    a = make_keys(np.uint32, "random", 5 * 3000, seed=31).reshape(5, 3000)
    d = cla.to_device(cl_queue, a)
    assert clradix.sort(d, out=d) is d and np.array_equal(d.get(), np.sort(a))
    o = cla.empty_like(d)
    assert clradix.sort(d, axis=0, out=o) is o and np.array_equal(o.get(), np.sort(np.sort(a), axis=0))
    with pytest.raises(ValueError):
        clradix.sort(d, axis=None, out=o)  # the flattened shape
    with pytest.raises(getattr(np, "exceptions", np).AxisError):
        clradix.argsort(d, axis=2)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float16, np.float32, np.uint64, np.dtype("datetime64[ns]")])
def test_lexsort(cl_queue, dtype):
    """lexsort of pyopencl arrays as np.lexsort: keys of every width and kind (the dtypes
    themselves are the sorts' matter, tested above) as the primary key over a float64 one
    with NaNs, along both axes of a 2-D array and 1-D."""
    primary = make_keys(dtype, "few", 6 * 900, seed=32).reshape(6, 900)
    secondary = make_keys(np.float64, "few", 6 * 900, seed=33).reshape(6, 900)
    keys = [cla.to_device(cl_queue, k) for k in (secondary, primary)]
    for axis in (-1, 0):
        got = clradix.lexsort(keys, axis=axis)
        assert isinstance(got, cla.Array) and got.dtype == np.intp
        assert np.array_equal(got.get(), np.lexsort([secondary, primary], axis=axis))
    flat = [cla.to_device(cl_queue, k.reshape(-1)) for k in (secondary, primary, secondary[::-1].copy())]
    assert np.array_equal(clradix.lexsort(flat).get(),
                          np.lexsort([secondary.reshape(-1), primary.reshape(-1), secondary[::-1].reshape(-1)]))
