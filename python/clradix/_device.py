"""pyopencl arrays: sorted on their queue's device, asynchronously. Every call waits for
the events of the arrays it reads (pyopencl's Array.events) and adds its own event to the
arrays it writes, so later pyopencl operations on them wait for the sort. pyopencl is imported only here, when
a pyopencl array comes: the package works without it."""

import ctypes

import numpy as np

from . import _keys, _library, _sorter


def is_device_array(a):
    module = type(a).__module__
    return module.startswith("pyopencl") and hasattr(a, "base_data") and hasattr(a, "queue")


def _queue_of(arrays, queue):
    queue = queue if queue is not None else arrays[0].queue
    if queue is None:
        raise ValueError("the pyopencl array has no queue: pass queue=")
    return queue


def _checked(a, queue):
    """a as a 1-D array that starts its buffer (a copy when it does not)."""
    if a.ndim != 1:
        raise ValueError("pyopencl arrays are sorted as 1-D arrays")
    if not a.flags.forc:
        raise ValueError("pyopencl arrays must be contiguous")
    if a.dtype.byteorder not in "=|":
        raise ValueError(f"pyopencl arrays must have a native byte order, not {a.dtype}")
    return a if a.offset == 0 else a.copy(queue=queue)


def _enqueue(function, queue, arguments, reads, writes):
    """Calls a clradix device-buffer function after the events of reads and writes, and
    hands its event to writes."""
    import pyopencl as cl

    waits = [event for array in reads + writes for event in array.events]
    wait_list = (ctypes.c_void_p * max(len(waits), 1))(*[event.int_ptr for event in waits])
    event = ctypes.c_void_p()
    _library.check(function(*arguments, len(waits), wait_list if waits else None, ctypes.byref(event)),
                   sorter=arguments[0])
    done = cl.Event.from_int_ptr(event.value, retain=False)
    for array in writes:
        array.add_event(done)
    return done


def _sorter_for(sorter, queue):
    return sorter if sorter is not None else _sorter.queue_sorter(queue)


def _argsort_into(sorter, queue, k, code, opts, index_dtype):
    import pyopencl.array as cla

    indices = cla.empty(queue, k.shape, index_dtype)
    if k.size:
        _enqueue(_library.lib().clradix_argsort, queue,
                 (sorter.handle, queue.int_ptr, code, k.base_data.int_ptr, indices.base_data.int_ptr,
                  indices.dtype.itemsize, k.size, ctypes.byref(opts)), [k], [indices])
    return indices


def sort(sorter, a, descending, begin_bit, end_bit, float_order, out, queue):
    queue = _queue_of([a], queue)
    native = _keys.native_key_dtype(a.dtype)
    opts = _keys.options(native, descending, begin_bit, end_bit)
    a = _checked(a, queue)
    if out is not None and (not is_device_array(out) or out.shape != a.shape or out.dtype != a.dtype or out.offset):
        raise ValueError(f"out must be a pyopencl array of shape {a.shape} and dtype {a.dtype} at offset 0")
    sorter = _sorter_for(sorter, queue)
    # out=a sorts in a's memory (a rejected sort leaves it as it was); another out receives
    # the sorted copy only once the sort is enqueued, so a failing sort leaves it untouched.
    result = a if out is a else a.copy(queue=queue)
    if a.size:
        k = _keys.library_keys(result, True, descending)
        try:
            _enqueue(_library.lib().clradix_sort_keys, queue,
                     (sorter.handle, queue.int_ptr, _keys.key_type(native, float_order, descending),
                      k.base_data.int_ptr, a.size, ctypes.byref(opts)), [], [k])
        finally:  # time keys back from the library's form, sorted or not
            _keys.restore_keys(k, native, descending)
    if out is None or out is a:
        return result
    import pyopencl as cl
    out.add_event(cl.enqueue_copy(queue, out.base_data, result.base_data, byte_count=a.nbytes,
                                  wait_for=result.events + out.events))
    return out


def argsort(sorter, a, descending, begin_bit, end_bit, float_order, index_dtype, queue):
    queue = _queue_of([a], queue)
    native = _keys.native_key_dtype(a.dtype)
    opts = _keys.options(native, descending, begin_bit, end_bit)
    index_dtype = _keys.index_dtype(index_dtype)
    k = _keys.library_keys(_checked(a, queue), False, descending)
    return _argsort_into(_sorter_for(sorter, queue), queue, k, _keys.key_type(native, float_order, descending), opts,
                         index_dtype)


def topk(sorter, a, k, largest, queue):
    """(keys, indices) of the first k of a's stable sort (largest: descending), as pyopencl
    arrays of a's dtype and np.intp, enqueued after a's events."""
    import pyopencl.array as cla

    queue = _queue_of([a], queue)
    native = _keys.native_key_dtype(a.dtype)
    a = _checked(a, queue)
    k = _keys.check_k(k, a.size)
    keys = _keys.library_keys(a, in_place=False)
    out_keys = cla.empty(queue, (k,), keys.dtype)
    out_indices = cla.empty(queue, (k,), np.intp)
    if k:
        opts = _keys.options(native, largest, 0, None)
        _enqueue(_library.lib().clradix_topk, queue,
                 (_sorter_for(sorter, queue).handle, queue.int_ptr, _keys.key_type(native, "numpy"),
                  keys.base_data.int_ptr, a.size, k, out_keys.base_data.int_ptr, out_indices.base_data.int_ptr,
                  out_indices.dtype.itemsize, ctypes.byref(opts)), [keys], [out_keys, out_indices])
    return _keys.restore_keys(out_keys, native), out_indices


def sort_pairs(sorter, keys, values, descending, begin_bit, end_bit, float_order, queue):
    if not is_device_array(values):
        raise TypeError("keys and values must both be pyopencl arrays, or both host arrays")
    queue = _queue_of([keys, values], queue)
    native = _keys.native_key_dtype(keys.dtype)
    opts = _keys.options(native, descending, begin_bit, end_bit)
    _keys.check_pairs(keys, values)
    keys, values = _checked(keys, queue), _checked(values, queue)
    sorter = _sorter_for(sorter, queue)
    result, v = keys.copy(queue=queue), values.copy(queue=queue)
    if keys.size:
        k = _keys.library_keys(result, True, descending)
        _enqueue(_library.lib().clradix_sort_pairs, queue,
                 (sorter.handle, queue.int_ptr, _keys.key_type(native, float_order, descending),
                  k.base_data.int_ptr, v.base_data.int_ptr, values.dtype.itemsize, keys.size, ctypes.byref(opts)),
                 [], [k, v])
        _keys.restore_keys(k, native, descending)
    return result, v
