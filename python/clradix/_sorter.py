"""Sorter: one clradix_sorter, for a device of the host-array calls or for a pyopencl
context and device; and the sorters the functions use when none is given."""

import ctypes
import os
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
    A sorter belongs to the process that made it: after ``fork()`` the child cannot use
    it (ValueError) and makes its own (the shared sorters the functions use are made
    again there by themselves).
    """

    def __init__(self, device=None, *, context=None):
        lib = _library.lib()
        handle = ctypes.c_void_p()
        # Weakly: the shared sorters are dropped with their context (the C sorter holds
        # the OpenCL context itself).
        self._context = weakref.ref(context) if context is not None else None
        self.for_device_arrays = context is not None
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
        self._pid = os.getpid()
        self._release = weakref.finalize(self, _release_in, self._pid, self._handle)

    @property
    def handle(self):
        """The clradix_sorter pointer, as an int."""
        if not self._release.alive:
            raise ValueError("this Sorter is closed")
        if os.getpid() != self._pid:
            raise ValueError(f"this Sorter was made in process {self._pid}, before fork(): OpenCL objects do "
                             "not survive fork(), make a new Sorter in this process")
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


def _release_in(pid, handle):
    """Releases a clradix_sorter, in the process that made it only (a child of fork()
    shares the parent's memory, not its OpenCL driver)."""
    if os.getpid() == pid:
        _library.lib().clradix_sorter_release(handle)


class _ContextEntry:
    """The shared sorters of one OpenCL context, and the pyopencl queues that used them."""

    def __init__(self):
        self.sorters = {}   # device int_ptr -> Sorter
        self.queues = set()  # id() of the live pyopencl queues that used them
        self.kept = False    # a queue that takes no weak reference used them: kept until exit


_lock = threading.Lock()
_host_sorters = {}     # device spec -> Sorter
_context_sorters = {}  # cl_context int_ptr -> _ContextEntry (the sorters hold the context, so no
                       # other context can take the same handle while an entry exists)
_queues_gone = []      # (cl_context int_ptr, id of a queue) whose queue is gone, for _sweep


def host_sorter(device):
    """The shared Sorter of host arrays for a device spec (None: the default device)."""
    key = None if device is None else str(device)
    with _lock:
        sorter = _host_sorters.get(key)
        if sorter is None:
            sorter = _host_sorters[key] = Sorter(key)
        return sorter


def _queue_gone(context, queue_id):
    # A finalizer, which the garbage collector may run anywhere, with _lock held too: the
    # entry is dropped here when the lock is free, else at the next queue_sorter.
    _queues_gone.append((context, queue_id))
    if _lock.acquire(blocking=False):
        try:
            _sweep()
        finally:
            _lock.release()


def _sweep():
    """Drops the shared sorters of the contexts whose every queue that used them is gone
    (with _lock held)."""
    while _queues_gone:
        context, queue_id = _queues_gone.pop()
        entry = _context_sorters.get(context)
        if entry is not None:
            entry.queues.discard(queue_id)
            if not entry.queues and not entry.kept:
                del _context_sorters[context]
                for sorter in entry.sorters.values():
                    sorter.close()


def queue_sorter(queue):
    """The shared Sorter of a pyopencl queue's context and device: one per context and
    device, for every queue of that context (pyopencl gives each queue a Context object of
    its own), dropped when every queue that used it is gone; kept until the process ends
    where a queue takes no weak reference (pyopencl's nanobind queues, 2024.2 and later:
    pass sorter= to choose a sorter's lifetime there)."""
    context, device = queue.context, queue.device
    with _lock:
        _sweep()
        entry = _context_sorters.get(context.int_ptr)
        if entry is None:
            entry = _context_sorters[context.int_ptr] = _ContextEntry()
        if id(queue) not in entry.queues and not entry.kept:
            try:
                weakref.finalize(queue, _queue_gone, context.int_ptr, id(queue))
                entry.queues.add(id(queue))
            except TypeError:
                entry.kept = True
        sorter = entry.sorters.get(device.int_ptr)
        if sorter is None:
            sorter = entry.sorters[device.int_ptr] = Sorter(device, context=context)
        return sorter


def _forget_after_fork():
    """In a child of fork(): the parent's sorters are not this process's to use or release
    (see Sorter); the functions make new ones here when first called."""
    global _lock
    _lock = threading.Lock()  # another thread of the parent may have held it
    _host_sorters.clear()
    _context_sorters.clear()
    _queues_gone.clear()


os.register_at_fork(after_in_child=_forget_after_fork)
