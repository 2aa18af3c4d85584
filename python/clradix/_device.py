"""pyopencl arrays: sorted on their queue's device, asynchronously. Every call waits for
the events of the arrays it reads (pyopencl's Array.events) and adds its own event to the
arrays it writes, so later pyopencl operations on them wait for the sort. pyopencl is imported only here, when
a pyopencl array comes: the package works without it."""

import ctypes
import weakref

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
    _library.check(function(*arguments, len(waits), wait_list if waits else None, ctypes.byref(event)))
    done = cl.Event.from_int_ptr(event.value, retain=False)
    for array in writes:
        array.add_event(done)
    return done


_kernel_cache = weakref.WeakKeyDictionary()  # pyopencl Context -> its kernels


def _kernels(context):
    """The element-wise kernels this module runs, per context (pyopencl caches builds)."""
    from pyopencl.elementwise import ElementwiseKernel

    cache = _kernel_cache.get(context)
    if cache is None:
        cache = _kernel_cache[context] = {
            2: ElementwiseKernel(context, "ushort *out, const ushort *in", _keys.NUMPY_ORDER_KERNEL[2],
                                 "numpy_order16"),
            4: ElementwiseKernel(context, "uint *out, const uint *in", _keys.NUMPY_ORDER_KERNEL[4], "numpy_order32"),
            8: ElementwiseKernel(context, "ulong *out, const ulong *in", _keys.NUMPY_ORDER_KERNEL[8], "numpy_order64"),
            "gather": ElementwiseKernel(context, "uint *out, const uint *in, const long *perm, long words",
                                        "out[i] = in[perm[i / words] * words + i % words]", "gather_words"),
            "gather16": ElementwiseKernel(context, "ushort *out, const ushort *in, const long *perm",
                                          "out[i] = in[perm[i]]", "gather_halves"),
        }
    return cache


def _order_keys(k, float_order, queue):
    """k, or for numpy's float order its canonical keys (a new array), on the device."""
    if float_order != "numpy" or k.dtype.kind != "f":
        return k
    import pyopencl.array as cla

    unsigned = _keys.UNSIGNED[k.dtype.itemsize]
    out = cla.empty(queue, k.shape, unsigned)
    event = _kernels(queue.context)[k.dtype.itemsize](out, k.with_queue(queue).view(unsigned), queue=queue,
                                                      wait_for=k.events)
    out.add_event(event)
    return out.view(k.dtype)


def _gather(source, perm, queue):
    """source[perm] for elements of 2 bytes or any multiple of 4 bytes."""
    import pyopencl.array as cla

    out = cla.empty(queue, source.shape, source.dtype)
    if source.dtype.itemsize == 2:
        event = _kernels(queue.context)["gather16"](out.view(np.uint16), source.with_queue(queue).view(np.uint16),
                                                    perm.with_queue(queue), queue=queue,
                                                    wait_for=source.events + perm.events)
        out.add_event(event)
        return out
    words = source.dtype.itemsize // 4
    event = _kernels(queue.context)["gather"](out.view(np.uint32), source.with_queue(queue).view(np.uint32),
                                              perm.with_queue(queue), np.int64(words),
                                              range=slice(source.size * words), queue=queue,
                                              wait_for=source.events + perm.events)
    out.add_event(event)
    return out


def _sorter_for(sorter, queue):
    return sorter if sorter is not None else _sorter.queue_sorter(queue)


def _argsort_into(sorter, queue, order, opts, index_dtype):
    import pyopencl.array as cla

    indices = cla.empty(queue, order.shape, index_dtype)
    if order.size:
        lib = _library.lib()
        _enqueue(lib.clradix_argsort, queue,
                 (sorter.handle, queue.int_ptr, _keys.key_type(order.dtype), order.base_data.int_ptr,
                  indices.base_data.int_ptr, indices.dtype.itemsize, order.size, ctypes.byref(opts)),
                 [order], [indices])
    return indices


def sort(sorter, a, descending, begin_bit, end_bit, float_order, out, queue):
    queue = _queue_of([a], queue)
    opts = _keys.options(_keys.native_key_dtype(a.dtype), descending, begin_bit, end_bit)
    a = _checked(a, queue)
    if out is not None and (not is_device_array(out) or out.shape != a.shape or out.dtype != a.dtype or out.offset):
        raise ValueError(f"out must be a pyopencl array of shape {a.shape} and dtype {a.dtype} at offset 0")
    sorter = _sorter_for(sorter, queue)
    result = out if out is not None else a.copy(queue=queue)
    if out is not None and out is not a:
        import pyopencl as cl
        result.add_event(cl.enqueue_copy(queue, result.base_data, a.base_data, byte_count=a.nbytes,
                                         wait_for=a.events + result.events))
    if not a.size:
        return result
    lib = _library.lib()
    order = _order_keys(result, float_order, queue)
    if order is result:
        _enqueue(lib.clradix_sort_keys, queue,
                 (sorter.handle, queue.int_ptr, _keys.key_type(a.dtype), result.base_data.int_ptr, a.size,
                  ctypes.byref(opts)), [], [result])
    elif a.dtype.itemsize == 2:  # numpy's float order of halves (no 2-byte values): the permutation, gathered
        sorted_keys = _gather(result, _argsort_into(sorter, queue, order, opts, np.int64), queue)
        if out is None:
            return sorted_keys
        import pyopencl as cl

        result.add_event(cl.enqueue_copy(queue, result.base_data, sorted_keys.base_data, byte_count=a.nbytes,
                                         wait_for=sorted_keys.events + result.events))
    else:  # numpy's float order: the keys move as the values of their canonical forms
        _enqueue(lib.clradix_sort_pairs, queue,
                 (sorter.handle, queue.int_ptr, _keys.key_type(a.dtype), order.base_data.int_ptr,
                  result.base_data.int_ptr, a.dtype.itemsize, a.size, ctypes.byref(opts)), [], [order, result])
    return result


def argsort(sorter, a, descending, begin_bit, end_bit, float_order, index_dtype, queue):
    queue = _queue_of([a], queue)
    opts = _keys.options(_keys.native_key_dtype(a.dtype), descending, begin_bit, end_bit)
    index_dtype = _keys.index_dtype(index_dtype)
    a = _checked(a, queue)
    return _argsort_into(_sorter_for(sorter, queue), queue, _order_keys(a, float_order, queue), opts, index_dtype)


def sort_pairs(sorter, keys, values, descending, begin_bit, end_bit, float_order, queue):
    if not is_device_array(values):
        raise TypeError("keys and values must both be pyopencl arrays, or both host arrays")
    queue = _queue_of([keys, values], queue)
    opts = _keys.options(_keys.native_key_dtype(keys.dtype), descending, begin_bit, end_bit)
    _keys.check_pairs(keys, values)
    keys, values = _checked(keys, queue), _checked(values, queue)
    sorter = _sorter_for(sorter, queue)
    order = _order_keys(keys, float_order, queue)
    if order is not keys:  # numpy's float order: the permutation, then both gathered
        perm = _argsort_into(sorter, queue, order, opts, np.int64)
        return _gather(keys, perm, queue), _gather(values, perm, queue)
    k, v = keys.copy(queue=queue), values.copy(queue=queue)
    if keys.size:
        _enqueue(_library.lib().clradix_sort_pairs, queue,
                 (sorter.handle, queue.int_ptr, _keys.key_type(keys.dtype), k.base_data.int_ptr, v.base_data.int_ptr,
                  values.dtype.itemsize, keys.size, ctypes.byref(opts)), [], [k, v])
    return k, v
