"""Bad input: Python's exceptions where Python users expect them, clradix.Error for the
library's statuses; nothing printed, the input untouched."""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import clradix


@pytest.mark.parametrize("dtype", [np.complex64, np.str_, object, np.longdouble])
def test_wrong_dtype(dtype):
    a = np.ones(10, dtype=dtype)
    for call in (clradix.sort, clradix.argsort):
        with pytest.raises(TypeError) as error:
            call(a)
        for name in ("bool", "uint8", "int8", "uint16", "int16", "float16", "bfloat16", "uint32", "int32", "float32",
                     "uint64", "int64", "float64", "datetime64", "timedelta64", "S", "V"):  # what to convert to
            assert name in str(error.value)
    with pytest.raises(TypeError):
        clradix.sort_pairs(a, np.ones(10, dtype=np.uint32))


def test_pairs_lengths_and_value_sizes(capfd):
    keys = np.arange(10, dtype=np.uint32)
    before = keys.copy()
    with pytest.raises(ValueError, match="differ in length"):
        clradix.sort_pairs(keys, np.ones(9, dtype=np.uint32))
    with pytest.raises(TypeError, match="4, 8 or 16 bytes"):
        clradix.sort_pairs(keys, np.ones(10, dtype=np.uint16))
    with pytest.raises(ValueError, match="1-D"):
        clradix.sort_pairs(keys.reshape(2, 5), np.ones((2, 5), dtype=np.uint32))
    assert np.array_equal(keys, before)
    assert capfd.readouterr() == ("", "")


def test_shapes_and_out(capfd):
    with pytest.raises(ValueError, match="0-d"):
        clradix.sort(np.uint32(3))
    a = np.arange(10, 0, -1, dtype=np.int64)
    before = a.copy()
    read_only = a.copy()
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        clradix.sort(a, out=read_only)
    with pytest.raises(ValueError, match="read-only"):
        clradix.sort(read_only, out=read_only)
    with pytest.raises(ValueError, match="shape"):
        clradix.sort(a, out=np.empty(9, dtype=np.int64))
    with pytest.raises(ValueError, match="dtype"):
        clradix.sort(a, out=np.empty(10, dtype=np.uint64))
    with pytest.raises(np.exceptions.AxisError if hasattr(np, "exceptions") else np.AxisError):
        clradix.sort(a, axis=1)
    assert np.array_equal(a, before) and np.array_equal(read_only, before)
    assert capfd.readouterr() == ("", "")


def test_bad_options(capfd):
    a = np.arange(10, dtype=np.uint32)
    for begin, end in ((0, 33), (5, 4), (-1, 8)):
        with pytest.raises(ValueError, match="bit range"):
            clradix.sort(a, begin_bit=begin, end_bit=end)
    with pytest.raises(ValueError, match="float_order"):
        clradix.sort(a, float_order="ieee")
    with pytest.raises(TypeError, match="index_dtype"):
        clradix.argsort(a, index_dtype=np.int16)
    assert capfd.readouterr() == ("", "")


def test_library_statuses(capfd):
    with pytest.raises(clradix.Error) as error:
        clradix.sort(np.arange(4, dtype=np.uint32), device="no such device anywhere")
    assert error.value.name == "CLRADIX_ERROR_INVALID_ARGUMENT"
    assert error.value.status == 1 and "invalid argument" in str(error.value)
    sorter = clradix.Sorter()
    sorter.close()
    with pytest.raises(ValueError, match="closed"):
        sorter.sort(np.arange(4, dtype=np.uint32))
    assert capfd.readouterr() == ("", "")


def test_library_not_found():
    """A CLRADIX_LIBRARY that does not exist: a clear error that names it, at the first call."""
    env = dict(os.environ, CLRADIX_LIBRARY="/nonexistent/libclradix.so")
    code = ("import clradix, numpy\n"
            "try:\n    clradix.sort(numpy.arange(3, dtype=numpy.uint32))\n"
            "except clradix.LibraryNotFoundError as e:\n    print(e)\n")
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert "/nonexistent/libclradix.so (CLRADIX_LIBRARY): no such file" in result.stdout
    assert "CLRADIX_LIBRARY" in result.stdout and "cmake --install" in result.stdout


def test_no_opencl_loader(tmp_path):
    """A libclradix whose OpenCL ICD loader is missing (a copy that needs libOpenCL.so.9, which
    no system has): the error names the loader and what to install, not a bare dlopen text."""
    path = pathlib.Path(clradix.library_path()[0])
    image = path.read_bytes()
    assert b"libOpenCL.so.1\0" in image
    copy = tmp_path / "libclradix.so.1"
    copy.write_bytes(image.replace(b"libOpenCL.so.1\0", b"libOpenCL.so.9\0"))
    env = dict(os.environ, CLRADIX_LIBRARY=str(copy))
    code = ("import clradix, numpy\n"
            "try:\n    clradix.sort(numpy.arange(3, dtype=numpy.uint32))\n"
            "except clradix.LibraryNotFoundError as e:\n    print(e)\n")
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert "libOpenCL.so.9" in result.stdout and "ICD loader libOpenCL.so.1" in result.stdout, result.stdout
    assert "apt-get install ocl-icd-libopencl1" in result.stdout


def test_device_arrays_rejected_kindly(cl_queue):
    cla = pytest.importorskip("pyopencl.array")
    d = cla.to_device(cl_queue, np.arange(12, dtype=np.uint32).reshape(3, 4))
    with pytest.raises(ValueError, match="C-contiguous"):
        clradix.sort(d[:, 1:3])
    flat = cla.to_device(cl_queue, np.arange(12, dtype=np.uint32))
    with pytest.raises(TypeError, match="both"):
        clradix.sort_pairs(flat, np.arange(12, dtype=np.uint32))
    with pytest.raises(TypeError, match="4, 8 or 16"):
        clradix.sort_pairs(flat, cla.to_device(cl_queue, np.arange(12, dtype=np.uint16)))
    with pytest.raises(ValueError, match="host arrays need"):
        clradix.sort(np.arange(3, dtype=np.uint32), sorter=clradix.Sorter(context=cl_queue.context))


def test_build_failure_shows_the_compiler_log(tmp_path, monkeypatch):
    """A kernel that does not compile: CLRADIX_ERROR_BUILD_FAILED, with the compiler's
    own words in the message."""
    # The checkout's kernel sources (CLRADIX_SOURCE_DIR: where the tests run from a copy).
    checkout = os.environ.get("CLRADIX_SOURCE_DIR") or pathlib.Path(__file__).resolve().parents[2]
    kernels = pathlib.Path(checkout) / "cl"
    assert (kernels / "common.cl").is_file(), f"no kernel sources at {kernels}"
    for source in kernels.glob("*.cl"):
        (tmp_path / source.name).write_text(source.read_text())
    broken = tmp_path / "common.cl"
    broken.write_text(broken.read_text() + "\nthis_is_not_opencl_c clradix_test_marker;\n")
    monkeypatch.setenv("CLRADIX_KERNEL_DIR", str(tmp_path))
    with pytest.raises(clradix.Error) as error:
        clradix.Sorter()
    assert error.value.name == "CLRADIX_ERROR_BUILD_FAILED"
    assert "build log" in str(error.value) and "this_is_not_opencl_c" in str(error.value)
