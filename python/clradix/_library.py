"""Finding and loading the clradix C library, and its functions through ctypes."""

import ctypes
import ctypes.util
import os
import pathlib
import threading

STATUS_NAMES = (
    "CLRADIX_SUCCESS",
    "CLRADIX_ERROR_INVALID_ARGUMENT",
    "CLRADIX_ERROR_INVALID_BUFFER",
    "CLRADIX_ERROR_OUT_OF_RESOURCES",
    "CLRADIX_ERROR_BUILD_FAILED",
    "CLRADIX_ERROR_UNSUPPORTED",
    "CLRADIX_ERROR_OPENCL",
    "CLRADIX_ERROR_MPI",
)


class Error(RuntimeError):
    """A clradix call failed: ``status`` is its clradix_status value, ``name`` the
    status's name (``CLRADIX_ERROR_...``), and the message the library's sentence."""

    def __init__(self, status, detail=""):
        self.status = int(status)
        self.name = STATUS_NAMES[status] if 0 <= status < len(STATUS_NAMES) else f"status {status}"
        super().__init__(f"{self.name}: {_status_string(status)}{detail}")


class LibraryNotFoundError(Error, OSError):
    """No libclradix could be loaded (see clradix.library_path)."""

    def __init__(self, message):
        RuntimeError.__init__(self, message)
        self.status = -1
        self.name = "library not found"


MAX_N = 0xFFFFFFFF  # CLRADIX_MAX_N: the most keys of a device-buffer call, and 4-byte host argsort indices


class Options(ctypes.Structure):
    _fields_ = [("begin_bit", ctypes.c_uint), ("end_bit", ctypes.c_uint), ("descending", ctypes.c_int)]


class KeyField(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("offset", ctypes.c_size_t), ("descending", ctypes.c_int)]


_P = ctypes.c_void_p
_SIZE = ctypes.c_size_t
_UINT = ctypes.c_uint
_INT = ctypes.c_int
_OPTIONS = ctypes.POINTER(Options)

# name: (result, argument types)
_PROTOTYPES = {
    "clradix_version": (_UINT, []),
    "clradix_status_string": (ctypes.c_char_p, [_INT]),
    "clradix_device_list": (_INT, [_UINT, _P, ctypes.POINTER(_UINT)]),
    "clradix_device_find": (_INT, [ctypes.c_char_p, ctypes.POINTER(_P)]),
    "clradix_sorter_create": (_INT, [_P, _P, ctypes.POINTER(_P)]),
    "clradix_sorter_release": (None, [_P]),
    "clradix_sorter_device": (_P, [_P]),
    "clradix_build_log": (ctypes.c_char_p, [_P]),
    "clradix_sort_keys": (_INT, [_P, _P, _INT, _P, _SIZE, _OPTIONS, _UINT, _P, ctypes.POINTER(_P)]),
    "clradix_sort_pairs": (_INT, [_P, _P, _INT, _P, _P, _SIZE, _SIZE, _OPTIONS, _UINT, _P, ctypes.POINTER(_P)]),
    "clradix_argsort": (_INT, [_P, _P, _INT, _P, _P, _SIZE, _SIZE, _OPTIONS, _UINT, _P, ctypes.POINTER(_P)]),
    "clradix_sort_keys_host": (_INT, [_P, _P, _INT, _P, _SIZE, _OPTIONS]),
    "clradix_sort_pairs_host": (_INT, [_P, _P, _INT, _P, _P, _SIZE, _SIZE, _OPTIONS]),
    "clradix_argsort_host": (_INT, [_P, _P, _INT, _P, _P, _SIZE, _SIZE, _OPTIONS]),
    "clradix_sort_segments_keys_host": (_INT, [_P, _P, _INT, _P, _SIZE, _P, _SIZE, _OPTIONS]),
    "clradix_sort_segments_pairs_host": (_INT, [_P, _P, _INT, _P, _P, _SIZE, _SIZE, _P, _SIZE, _OPTIONS]),
    "clradix_argsort_segments_host": (_INT, [_P, _P, _INT, _P, _P, _SIZE, _SIZE, _P, _SIZE, _OPTIONS]),
    "clradix_topk": (_INT, [_P, _P, _INT, _P, _SIZE, _SIZE, _P, _P, _SIZE, _OPTIONS, _UINT, _P, ctypes.POINTER(_P)]),
    "clradix_topk_rows": (_INT, [_P, _P, _INT, _P, _SIZE, _SIZE, _SIZE, _P, _P, _SIZE, _OPTIONS, _UINT, _P,
                                 ctypes.POINTER(_P)]),
    "clradix_topk_rows_host": (_INT, [_P, _P, _INT, _P, _SIZE, _SIZE, _SIZE, _P, _P, _SIZE, _OPTIONS]),
    "clradix_sort_segments_keys": (_INT, [_P, _P, _INT, _P, _SIZE, _P, _SIZE, _OPTIONS, _UINT, _P, ctypes.POINTER(_P)]),
    "clradix_argsort_segments": (_INT, [_P, _P, _INT, _P, _P, _SIZE, _SIZE, _P, _SIZE, _OPTIONS, _UINT, _P,
                                        ctypes.POINTER(_P)]),
    "clradix_gather": (_INT, [_P, _P, _P, _SIZE, _P, _SIZE, _P, _SIZE, _SIZE, _UINT, _P, ctypes.POINTER(_P)]),
    "clradix_argsort_records": (_INT, [_P, _P, _P, _SIZE, _SIZE, ctypes.POINTER(KeyField), _UINT, _P, _SIZE, _UINT,
                                       _P, ctypes.POINTER(_P)]),
    "clradix_sort_records_host": (_INT, [_P, _P, _P, _SIZE, _SIZE, ctypes.POINTER(KeyField), _UINT]),
    "clradix_argsort_records_host": (_INT, [_P, _P, _P, _SIZE, _SIZE, ctypes.POINTER(KeyField), _UINT, _P, _SIZE]),
}

_OPENCL_PROTOTYPES = {
    "clCreateContext": (_P, [_P, _UINT, ctypes.POINTER(_P), _P, _P, ctypes.POINTER(ctypes.c_int32)]),
    "clReleaseContext": (ctypes.c_int32, [_P]),
    "clGetDeviceInfo": (ctypes.c_int32, [_P, _UINT, _SIZE, _P, ctypes.POINTER(_SIZE)]),
    "clGetPlatformInfo": (ctypes.c_int32, [_P, _UINT, _SIZE, _P, ctypes.POINTER(_SIZE)]),
}

# libclradix needs an OpenCL ICD loader at run time, which finds the drivers; it is the
# system's, never the package's.
_NO_LOADER = (
    "clradix: {path} ({how}) was found but could not be loaded: {error}.\n"
    "It needs the OpenCL ICD loader libOpenCL.so.1 and an OpenCL driver: on Debian or Ubuntu,\n"
    "apt-get install ocl-icd-libopencl1 pocl-opencl-icd (POCL, any CPU), or a GPU vendor's driver."
)

_lock = threading.Lock()
_loaded = None  # (lib, opencl, path, how)


def _candidates():
    """(path or soname, how it was found) in the order they are tried."""
    env = os.environ.get("CLRADIX_LIBRARY")
    if env:
        return [(env, "CLRADIX_LIBRARY")]
    here = pathlib.Path(__file__).resolve().parent
    # A wheel's own copy (pyproject.toml), in the package's folder under its SONAME.
    found = [(str(path), "the wheel") for path in sorted(here.glob("libclradix.so.*"))]
    try:  # written by cmake --install next to the package: the library of that prefix
        from . import _install_paths

        found.append((str((here / _install_paths.LIBRARY).resolve()), "the installation's prefix"))
    except ImportError:
        pass
    # A source checkout: python/clradix -> build/src, where scripts/build.sh builds.
    found.append((str(here.parent.parent / "build" / "src" / "libclradix.so"), "the build tree"))
    system = ctypes.util.find_library("clradix")
    if system:
        found.append((system, "the system's library path"))
    return found


def load():
    """The loaded (library, OpenCL library, path, how); loads them on first use."""
    global _loaded
    with _lock:
        if _loaded is not None:
            return _loaded
        tried = []
        for path, how in _candidates():
            if os.sep in path and not os.path.exists(path):
                tried.append(f"{path} ({how}): no such file")
                continue
            try:
                lib = ctypes.CDLL(path)
            except OSError as e:
                if "libOpenCL" in str(e):
                    raise LibraryNotFoundError(_NO_LOADER.format(path=path, how=how, error=e)) from e
                tried.append(f"{path} ({how}): {e}")
                continue
            for name, (result, arguments) in _PROTOTYPES.items():
                function = getattr(lib, name)
                function.restype = result
                function.argtypes = arguments
            opencl = ctypes.CDLL(ctypes.util.find_library("OpenCL") or "libOpenCL.so.1")
            for name, (result, arguments) in _OPENCL_PROTOTYPES.items():
                function = getattr(opencl, name)
                function.restype = result
                function.argtypes = arguments
            _loaded = (lib, opencl, path, how)
            return _loaded
        raise LibraryNotFoundError(
            "clradix: libclradix not found. Tried:\n  "
            + ("\n  ".join(tried) if tried else "(nothing: no candidate)")
            + "\nInstall the wheel (pip install <a clradix checkout>, which builds the library into it), or"
            " build and install the C library (cmake --install build), or set CLRADIX_LIBRARY to the path of"
            " libclradix.so."
        )


def lib():
    return load()[0]


def opencl():
    return load()[1]


def _status_string(status):
    try:
        return lib().clradix_status_string(status).decode()
    except LibraryNotFoundError:
        return "unknown clradix status"


BUILD_FAILED = STATUS_NAMES.index("CLRADIX_ERROR_BUILD_FAILED")


def check(status, detail="", sorter=None):
    """Raises Error for any status but CLRADIX_SUCCESS; a build failure's message ends with
    the compiler's log (clradix_build_log of the sorter, the handle of the call that
    failed; None: of this thread's last sorter creation that failed)."""
    if status == BUILD_FAILED:
        log = (lib().clradix_build_log(sorter) or b"").decode(errors="replace").strip()
        detail += f"\nbuild log:\n{log}" if log else " (the compiler left no log)"
    if status != 0:
        raise Error(status, detail=detail)
