"""clradix.pyopencl.RadixSort, the drop-in for pyopencl.algorithm.RadixSort, against numpy:
pyopencl's semantics (the key expression's low key_bits bits, rounded up to
bits_at_a_time, read as unsigned; stable; the named arrays in argument order as new
arrays). pyopencl's own test of its RadixSort runs against it too (tests/python-extras-check.sh)."""

import numpy as np
import pytest

cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")

from clradix.pyopencl import RadixSort  # noqa: E402


def low_bits_order(keys, bits):
    """The stable order of keys by their low `bits` bits as an unsigned number."""
    unsigned = keys.view(np.dtype(f"u{keys.dtype.itemsize}"))
    mask = (1 << bits) - 1
    return np.argsort(unsigned & unsigned.dtype.type(mask), kind="stable")


def test_keys_of_an_expression_and_arrays_moved(cl_queue):
    rng = np.random.default_rng(1)
    n = 50001
    ary = rng.integers(-2**20, 2**20, n).astype(np.int32)
    weights = rng.random(n).astype(np.float32)
    sort = RadixSort(cl_queue.context, "int *ary, float *weights, int shift", key_expr="ary[i] >> shift",
                     sort_arg_names=["weights", "ary"])
    (got_ary, got_weights), event = sort(cla.to_device(cl_queue, ary), cla.to_device(cl_queue, weights),
                                         np.int32(3), key_bits=13)
    event.wait()
    perm = low_bits_order(ary >> 3, 14)  # 13 bits rounded up to the passes of 2 bits pyopencl makes
    assert np.array_equal(got_ary.get(), ary[perm]) and np.array_equal(got_weights.get(), weights[perm])


@pytest.mark.parametrize("key_dtype", [np.uint64, np.int64, np.uint16, np.uint8])
def test_key_dtypes_and_every_bit(cl_queue, key_dtype):
    rng = np.random.default_rng(2)
    n = 20000
    hi, lo = rng.integers(0, 2**32, (2, n), dtype=np.uint64).astype(np.uint32)
    ids = np.arange(n, dtype=np.uint32)
    ctype = {np.uint64: "ulong", np.int64: "long", np.uint16: "ushort", np.uint8: "uchar"}[key_dtype]
    sort = RadixSort(cl_queue.context, "uint *hi, uint *lo, uint *ids", key_expr=f"({ctype})(((ulong)hi[i] << 32) | lo[i])",
                     sort_arg_names=["ids"], key_dtype=key_dtype, bits_at_a_time=4)
    (got,), event = sort(*(cla.to_device(cl_queue, x) for x in (hi, lo, ids)))
    keys = ((hi.astype(np.uint64) << np.uint64(32)) | lo).astype(key_dtype)
    assert np.array_equal(got.get(), low_bits_order(keys, np.dtype(key_dtype).itemsize * 8))


def test_empty_and_waiting_for_a_user_event(cl_queue):
    sort = RadixSort(cl_queue.context, "uint *a", key_expr="a[i]", sort_arg_names=["a"])
    (empty,), event = sort(cla.empty(cl_queue, 0, np.uint32))
    event.wait()
    assert empty.size == 0
    a = np.random.default_rng(3).integers(0, 2**32, 30000, dtype=np.uint64).astype(np.uint32)
    d = cla.to_device(cl_queue, a)
    cl_queue.finish()
    gate = cl.UserEvent(cl_queue.context)
    (got,), event = sort(d, wait_for=[gate], key_bits=0)  # no bits: the input order
    gate.set_status(cl.command_execution_status.COMPLETE)
    event.wait()
    assert np.array_equal(got.get(), a)
    (got,), _ = sort(d, queue=cl_queue)
    assert np.array_equal(got.get(), np.sort(a))


def test_refused(cl_queue):
    with pytest.raises(ValueError):
        RadixSort(cl_queue.context, "uint *a, uint b", key_expr="a[i]", sort_arg_names=["b"])
    with pytest.raises(TypeError):
        RadixSort(cl_queue.context, "uint *a", key_expr="a[i]", sort_arg_names=["a"], key_dtype=np.float32)
    sort = RadixSort(cl_queue.context, "uint *a", key_expr="a[i]", sort_arg_names=["a"])
    a = cla.to_device(cl_queue, np.arange(5, dtype=np.uint32))
    with pytest.raises(TypeError):
        sort(a, a)
    with pytest.raises(TypeError):
        sort(a, key_bits=4, stream=None)
