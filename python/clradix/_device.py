"""pyopencl arrays: sorted on their queue's device, asynchronously. Every call waits for
the events of the arrays it reads (pyopencl's Array.events) and adds its own event to the
arrays it writes, so later pyopencl operations on them wait for the sort. N-D arrays are
sorted along an axis as rows, each a segment of one segmented sort; an axis other than the
last is moved last (and back) by clradix gathers. pyopencl is imported only here, when a
pyopencl array comes: the package works without it."""

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
    """a as a C-contiguous array that starts its buffer (a copy when it does not)."""
    if not (a.flags.c_contiguous or (a.ndim == 1 and a.flags.forc)):
        raise ValueError("pyopencl arrays must be C-contiguous")
    if a.dtype.byteorder not in "=|":
        raise ValueError(f"pyopencl arrays must have a native byte order, not {a.dtype}")
    if a.ndim == 0:
        raise ValueError("cannot sort a 0-d array")
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


def _uploaded(queue, host):
    """A pyopencl array holding a copy of the numpy array host, made with the buffer (no
    command on the queue, so nothing waits for the work already on it)."""
    import pyopencl as cl
    import pyopencl.array as cla

    flags = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
    data = cl.Buffer(queue.context, flags, hostbuf=host) if host.size else None
    return cla.Array(queue, host.shape, host.dtype, data=data)


def _axis(axis, ndim):
    if not -ndim <= axis < ndim:
        raise getattr(np, "exceptions", np).AxisError(axis, ndim)  # numpy's error for it (1.x or 2.x)
    return axis % ndim


def _sorted_view(a, axis):
    """(a along axis: a C-contiguous array, the axis as a non-negative number); axis None:
    a flattened."""
    return (a.reshape(-1), 0) if axis is None else (a, _axis(axis, a.ndim))


def _permuted(sorter, queue, a, order):
    """A new C-contiguous array of order's shape: a's elements at the flat positions order
    holds (a numpy array made on the host), by one clradix gather."""
    positions = _uploaded(queue, np.ascontiguousarray(order, dtype=np.uint32).reshape(-1))
    return gather(sorter, queue, positions, a.reshape(-1)).reshape(order.shape)


def _rows_of(sorter, queue, a, axis, copy):
    """a (C-contiguous) with the sorted axis last: a itself where it is (a copy when copy),
    else a moved copy."""
    if axis == a.ndim - 1:
        return a.copy(queue=queue) if copy else a
    return _permuted(sorter, queue, a, np.moveaxis(np.arange(a.size).reshape(a.shape), axis, -1))


def _rows_back(sorter, queue, rows, axis, ndim):
    """The inverse of _rows_of: rows with its last axis back at axis."""
    if axis == ndim - 1:
        return rows
    return _permuted(sorter, queue, rows, np.moveaxis(np.arange(rows.size).reshape(rows.shape), -1, axis))


def _offsets(queue, rows):
    """The segment offsets (cl_uint) that make each row of rows.shape[-1] keys a segment."""
    length = rows.shape[-1]
    count = rows.size // length if length else 0
    return count, _uploaded(queue, np.arange(count + 1, dtype=np.uint32) * np.uint32(length))


_in_row_kernels = {}  # (cl_context int_ptr, index dtype) -> pyopencl ElementwiseKernel


def _in_row(queue, indices, length):
    """Positions in the whole array made positions within rows of length keys, in place."""
    from pyopencl.elementwise import ElementwiseKernel
    from pyopencl.tools import dtype_to_ctype

    unsigned = np.dtype(f"u{indices.dtype.itemsize}")
    key = (queue.context.int_ptr, unsigned)
    if key not in _in_row_kernels:
        ctype = dtype_to_ctype(unsigned)
        _in_row_kernels[key] = ElementwiseKernel(queue.context, f"{ctype} *indices, {ctype} length",
                                                 "indices[i] %= length", name="clradix_in_row")
    view = indices.view(unsigned)
    if indices.size:
        indices.add_event(_in_row_kernels[key](view, unsigned.type(length), queue=queue, wait_for=indices.events))
    return indices


def gather(sorter, queue, indices, src, allocator=None):
    """src[indices] as a new 1-D pyopencl array (indices 1-D, of 4 or 8 bytes), enqueued
    after both: clradix_gather, which clamps an index past src."""
    import pyopencl.array as cla

    src = _checked(src, queue)
    out = cla.empty(queue, indices.shape, src.dtype, allocator=allocator)
    if indices.size:
        _enqueue(_library.lib().clradix_gather, queue,
                 (_sorter_for(sorter, queue).handle, queue.int_ptr, indices.base_data.int_ptr, indices.dtype.itemsize,
                  src.base_data.int_ptr, src.size, out.base_data.int_ptr, src.dtype.itemsize, indices.size),
                 [indices, src], [out])
    return out


def argsort_into(sorter, queue, k, code, opts, index_dtype):
    """The stable permutation of k (C-contiguous) along its last axis as new index_dtype
    indices, positions in k's whole buffer (1-D: one argsort; else a segmented one, each
    row's indices within its row's range)."""
    import pyopencl.array as cla

    indices = cla.empty(queue, k.shape, index_dtype)
    if not k.size:
        return indices
    lib = _library.lib()
    if k.ndim == 1:
        _enqueue(lib.clradix_argsort, queue,
                 (sorter.handle, queue.int_ptr, code, k.base_data.int_ptr, indices.base_data.int_ptr,
                  indices.dtype.itemsize, k.size, ctypes.byref(opts)), [k], [indices])
        return indices
    count, offsets = _offsets(queue, k)
    _enqueue(lib.clradix_argsort_segments, queue,
             (sorter.handle, queue.int_ptr, code, k.base_data.int_ptr, indices.base_data.int_ptr,
              indices.dtype.itemsize, k.size, offsets.base_data.int_ptr, count, ctypes.byref(opts)),
             [k, offsets], [indices])
    return indices


def _sort_rows_in_place(sorter, queue, k, code, opts, writes):
    """Sorts k (C-contiguous, its own memory) along its last axis; writes (k and the
    arrays that share its memory) receive the event."""
    lib = _library.lib()
    if k.ndim == 1:
        _enqueue(lib.clradix_sort_keys, queue,
                 (sorter.handle, queue.int_ptr, code, k.base_data.int_ptr, k.size, ctypes.byref(opts)), [], writes)
        return
    count, offsets = _offsets(queue, k)
    _enqueue(lib.clradix_sort_segments_keys, queue,
             (sorter.handle, queue.int_ptr, code, k.base_data.int_ptr, k.size, offsets.base_data.int_ptr, count,
              ctypes.byref(opts)), [offsets], writes)


def sort(sorter, a, axis, descending, begin_bit, end_bit, float_order, out, queue):
    queue = _queue_of([a], queue)
    native = _keys.native_key_dtype(a.dtype)
    opts = _keys.options(native, descending, begin_bit, end_bit)
    a = _checked(a, queue)
    shape = (a.size,) if axis is None else a.shape
    if out is not None and (not is_device_array(out) or out.shape != shape or out.dtype != a.dtype or out.offset):
        raise ValueError(f"out must be a pyopencl array of shape {shape} and dtype {a.dtype} at offset 0")
    view, axis = _sorted_view(a, axis)
    sorter = _sorter_for(sorter, queue)
    # out=a with the axis last sorts in a's memory (a rejected sort leaves it as it was);
    # another out receives the sorted copy only once the sort is enqueued, so a failing
    # sort leaves it untouched.
    in_place = out is a and axis == view.ndim - 1
    rows = view if in_place else _rows_of(sorter, queue, view, axis, copy=True)
    if rows.size:
        k = _keys.library_keys(rows, True, descending)
        try:
            _sort_rows_in_place(sorter, queue, k, _keys.key_type(native, float_order, descending), opts,
                                [k, rows, a] if in_place else [k, rows])
        finally:  # time keys back from the library's form, sorted or not
            _keys.restore_keys(k, native, descending)
    if in_place:
        return a
    result = _rows_back(sorter, queue, rows, axis, view.ndim)
    if out is None:
        return result
    import pyopencl as cl
    out.add_event(cl.enqueue_copy(queue, out.base_data, result.base_data, byte_count=a.nbytes,
                                  wait_for=result.events + out.events))
    return out


def argsort(sorter, a, axis, descending, begin_bit, end_bit, float_order, index_dtype, queue):
    queue = _queue_of([a], queue)
    native = _keys.native_key_dtype(a.dtype)
    opts = _keys.options(native, descending, begin_bit, end_bit)
    index_dtype = _keys.index_dtype(index_dtype)
    view, axis = _sorted_view(_checked(a, queue), axis)
    if view.shape[axis] - 1 > np.iinfo(index_dtype).max:
        raise ValueError(f"{view.shape[axis]} keys along the axis need indices wider than {index_dtype}")
    sorter = _sorter_for(sorter, queue)
    k = _keys.library_keys(_rows_of(sorter, queue, view, axis, copy=False), False, descending)
    indices = argsort_into(sorter, queue, k, _keys.key_type(native, float_order, descending), opts, index_dtype)
    if k.ndim > 1:
        _in_row(queue, indices, k.shape[-1])
    return _rows_back(sorter, queue, indices, axis, view.ndim)


def topk(sorter, a, k, axis, largest, queue):
    """(keys, indices) of the first k of the stable sort along axis (largest: descending),
    as pyopencl arrays of a's dtype and np.intp, enqueued after a's events."""
    import pyopencl.array as cla

    queue = _queue_of([a], queue)
    native = _keys.native_key_dtype(a.dtype)
    view, axis = _sorted_view(_checked(a, queue), axis)
    k = _keys.check_k(k, view.shape[axis])
    sorter = _sorter_for(sorter, queue)
    keys = _keys.library_keys(_rows_of(sorter, queue, view, axis, copy=False), False)
    length = keys.shape[-1]
    out_keys = cla.empty(queue, keys.shape[:-1] + (k,), keys.dtype)
    out_indices = cla.empty(queue, keys.shape[:-1] + (k,), np.intp)
    if k and keys.size:
        opts = _keys.options(native, largest, 0, None)
        code = _keys.key_type(native, "numpy")
        lib = _library.lib()
        outputs = (out_keys.base_data.int_ptr, out_indices.base_data.int_ptr, out_indices.dtype.itemsize,
                   ctypes.byref(opts))
        if keys.ndim == 1:
            _enqueue(lib.clradix_topk, queue, (sorter.handle, queue.int_ptr, code, keys.base_data.int_ptr, keys.size,
                                               k) + outputs, [keys], [out_keys, out_indices])
        else:
            _enqueue(lib.clradix_topk_rows, queue, (sorter.handle, queue.int_ptr, code, keys.base_data.int_ptr,
                                                    keys.size // length, length, k) + outputs,
                     [keys], [out_keys, out_indices])
    values = _keys.restore_keys(out_keys, native)
    return (_rows_back(sorter, queue, values, axis, view.ndim),
            _rows_back(sorter, queue, out_indices, axis, view.ndim))


def lexsort(sorter, keys, axis, queue):
    """np.lexsort(keys, axis) of pyopencl arrays of one shape, as np.intp indices: stable
    argsorts from the least significant key (keys[0]) to the primary one (keys[-1]), each
    of the previous order's keys, gathered (numpy's float order, NaN and NaT last)."""
    queue = _queue_of(keys, queue)
    shape = keys[0].shape
    if any(key.shape != shape for key in keys):
        raise ValueError("all keys need to be the same shape")
    sorter = _sorter_for(sorter, queue)
    axis = _axis(axis, len(shape))
    order = None  # the order so far: positions in the rows' buffer (each row's within its own)
    for key in keys:
        native = _keys.native_key_dtype(key.dtype)
        rows = _keys.library_keys(_rows_of(sorter, queue, _checked(key, queue), axis, copy=False), False)
        current = rows if order is None else gather(sorter, queue, order.reshape(-1), rows.reshape(-1))
        step = argsort_into(sorter, queue, current.reshape(rows.shape), _keys.key_type(native, "numpy"),
                            _keys.options(native, False, 0, None), np.uint32)
        order = step if order is None else gather(sorter, queue, step.reshape(-1), order.reshape(-1))
    indices = order.reshape(rows.shape).astype(np.intp, queue=queue)
    if indices.ndim > 1:
        _in_row(queue, indices, shape[axis])
    return _rows_back(sorter, queue, indices, axis, len(shape))


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
