"""Sorter: one clradix_sorter, for a device of the host-array calls or for a pyopencl
context and device; and the sorters the functions use when none is given."""

import ctypes
import threading
import weakref

from . import _library
from ._library import Error

_CL_DEVICE_NAME = 0x102B


class Sorter:
    """One clradix_sorter, reused between calls (its kernels are compiled once).

    ``Sorter(device)``: for host arrays, on a device given as ``CLRADIX_DEVICE`` takes it
    (an index in clradix's device numbering, or a substring of "<platform> <device>"; None:
    the default device), in a context of its own. ``Sorter(device, context=ctx)``: for
    pyopencl arrays of the pyopencl context ``ctx`` on the pyopencl device ``device``
    (None: the context's first). Use it as a context manager, or call ``close()``; the
    methods sort, argsort and sort_pairs are the module's functions with this sorter.
    """

    def __init__(self, device=None, *, context=None):
        lib = _library.lib()
        handle = ctypes.c_void_p()
        # Weakly: the shared sorters are dropped with their context (the C sorter holds
        # the OpenCL context itself).
        self._context = weakref.ref(context) if context is not None else None
        if context is not None:
            if device is None:
                device = context.devices[0]
            if not hasattr(device, "int_ptr"):
                raise TypeError("with a pyopencl context, device is a pyopencl.Device of it (or None)")
            self._device = device
            _library.check(lib.clradix_sorter_create(context.int_ptr, device.int_ptr, ctypes.byref(handle)))
        elif device is None:
            self._device = None
            _library.check(lib.clradix_sorter_create(None, None, ctypes.byref(handle)))
        else:
            self._device = str(device)
            found = ctypes.c_void_p()
            _library.check(lib.clradix_device_find(self._device.encode(), ctypes.byref(found)),
                           f" (no device matches {self._device!r})")
            opencl = _library.opencl()
            err = ctypes.c_int32()
            cl_context = opencl.clCreateContext(None, 1, ctypes.byref(found), None, None, ctypes.byref(err))
            if not cl_context:
                raise Error(6, detail=f" (clCreateContext: {err.value})")
            try:
                _library.check(lib.clradix_sorter_create(cl_context, found, ctypes.byref(handle)))
            finally:
                opencl.clReleaseContext(cl_context)  # the sorter holds its own reference
        self._handle = handle.value
        self._release = weakref.finalize(self, lib.clradix_sorter_release, self._handle)

    @property
    def handle(self):
        """The clradix_sorter pointer, as an int."""
        if not self._release.alive:
            raise ValueError("this Sorter is closed")
        return self._handle

    @property
    def context(self):
        """The pyopencl context it sorts for, or None for a sorter of host arrays."""
        return self._context() if self._context is not None else None

    @property
    def device_id(self):
        """The cl_device_id it sorts on, as an int (pyopencl's Device.int_ptr)."""
        return _library.lib().clradix_sorter_device(self.handle)

    @property
    def device_name(self):
        name = ctypes.create_string_buffer(256)
        _library.opencl().clGetDeviceInfo(self.device_id, _CL_DEVICE_NAME, 256, name, None)
        return name.value.decode(errors="replace")

    def close(self):
        """Releases the clradix_sorter (sorts already enqueued complete)."""
        self._release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        state = "closed" if not self._release.alive else self.device_name
        return f"<clradix.Sorter {state}>"

    def sort(self, a, **kwargs):
        from . import sort
        return sort(a, sorter=self, **kwargs)

    def argsort(self, a, **kwargs):
        from . import argsort
        return argsort(a, sorter=self, **kwargs)

    def sort_pairs(self, keys, values, **kwargs):
        from . import sort_pairs
        return sort_pairs(keys, values, sorter=self, **kwargs)


_lock = threading.Lock()
_host_sorters = {}               # device spec -> Sorter
_context_sorters = weakref.WeakKeyDictionary()  # pyopencl Context -> {device int_ptr: Sorter}


def host_sorter(device):
    """The shared Sorter of host arrays for a device spec (None: the default device)."""
    key = None if device is None else str(device)
    with _lock:
        sorter = _host_sorters.get(key)
        if sorter is None:
            sorter = _host_sorters[key] = Sorter(key)
        return sorter


def queue_sorter(queue):
    """The shared Sorter of a pyopencl queue's context and device; dropped with the context."""
    context, device = queue.context, queue.device
    with _lock:
        per_device = _context_sorters.setdefault(context, {})
        sorter = per_device.get(device.int_ptr)
        if sorter is None:
            sorter = per_device[device.int_ptr] = Sorter(device, context=context)
        return sorter
