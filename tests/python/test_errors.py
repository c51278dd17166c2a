"""SmcompatError: the one exception type of the API, usage errors included."""

from __future__ import annotations

import pickle
import zipfile

import pytest

import smcompat
from conftest import corpus_wheel


def test_error_str_forms():
    assert str(smcompat.SmcompatError("bad magic", "/x/y.so", 0x1A2B)) == "/x/y.so: offset 0x1a2b: bad magic"
    assert str(smcompat.SmcompatError("bad magic", "/x/y.so")) == "/x/y.so: bad magic"
    assert str(smcompat.SmcompatError("bad magic", None, 16)) == "offset 0x10: bad magic"
    assert str(smcompat.SmcompatError("no such GPU")) == "no such GPU"
    e = smcompat.SmcompatError("r", "f", 0)
    assert (e.reason, e.file, e.offset) == ("r", "f", 0)
    assert str(e) == "f: offset 0x0: r"
    e2 = pickle.loads(pickle.dumps(e))
    assert (type(e2), e2.reason, e2.file, e2.offset) == (smcompat.SmcompatError, "r", "f", 0)
    assert issubclass(smcompat.CheckFailed, smcompat.SmcompatError)


def test_missing_path(tmp_path):
    missing = tmp_path / "no-such-file.so"
    with pytest.raises(smcompat.SmcompatError) as info:
        smcompat.scan(missing, gpu="RTX 5090")
    assert str(missing) in str(info.value)
    assert info.value.reason


def test_gpu_and_target_together(tmp_path):
    with pytest.raises(smcompat.SmcompatError) as info:
        smcompat.scan(tmp_path, gpu="RTX 5090", target="sm_120")
    assert info.value.file is None and info.value.offset is None


def test_driver_without_target(tmp_path):
    with pytest.raises(smcompat.SmcompatError):
        smcompat.scan(tmp_path, driver="12.8")


def test_unknown_gpu(tmp_path):
    with pytest.raises(smcompat.SmcompatError) as info:
        smcompat.scan(tmp_path, gpu="RTX 9999")
    assert "RTX 9999" in str(info.value)
    with pytest.raises(smcompat.SmcompatError):
        smcompat.gpus("RTX 9999")
    with pytest.raises(smcompat.SmcompatError):
        smcompat.doctor(["RTX 9999"], active=False, scan_code=False)


def test_unreadable_python_for_doctor(tmp_path):
    with pytest.raises(smcompat.SmcompatError):
        smcompat.doctor(python=[tmp_path / "no-such-venv"], active=False)


@pytest.mark.parametrize("call", [
    lambda: smcompat.scan([]),
    lambda: smcompat.scan(42),
    lambda: smcompat.scan("/tmp", jobs=-1),
    lambda: smcompat.scan("/tmp", gpu=""),
    lambda: smcompat.explain(b"bytes"),
    lambda: smcompat.check(raise_on="fatal"),
    lambda: smcompat.check(torch="maybe"),
], ids=["no-paths", "int-path", "negative-jobs", "empty-gpu", "bytes-text", "bad-raise-on", "bad-torch"])
def test_usage_errors_are_smcompat_errors(call):
    with pytest.raises(smcompat.SmcompatError):
        call()


@pytest.fixture(scope="module")
def library_copies(corpus, tmp_path_factory):
    """A real host library (CuPy's cub module), whole and cut inside its first fatbin container
    (the ELF section header table, e_shoff at byte 40 of the ELF header, then lies past the end):
    the paths (whole, truncated)."""
    wheel = corpus_wheel(corpus, "cupy_cuda12x-")
    data = zipfile.ZipFile(wheel).read("cupy/cuda/cub.cpython-311-x86_64-linux-gnu.so")
    whole = tmp_path_factory.mktemp("whole") / "cub.so"
    whole.write_bytes(data)
    first = smcompat.scan(whole, gpu="RTX 5090").files[0]
    assert first.errors == []
    cut = first.entries[0].entry_offset + 200
    path = tmp_path_factory.mktemp("truncated") / "cub-truncated.so"
    path.write_bytes(data[:cut])
    return whole, path


@pytest.fixture(scope="module")
def truncated_library(library_copies):
    return library_copies[1]


def test_truncated_file_is_listed_without_strict(truncated_library):
    report = smcompat.scan(truncated_library, gpu="RTX 5090")
    [f] = report.files
    assert f.path == str(truncated_library)
    assert f.errors[0].file == str(truncated_library)
    assert f.errors[0].offset == 40
    assert "e_shoff" in f.errors[0].what


def test_truncated_file_raises_with_strict(truncated_library):
    first = smcompat.scan(truncated_library, gpu="RTX 5090").files[0].errors[0]
    with pytest.raises(smcompat.SmcompatError) as info:
        smcompat.scan(truncated_library, gpu="RTX 5090", strict=True)
    e = info.value
    assert (e.reason, e.file, e.offset) == (first.what, first.file, first.offset)
    assert e.file == str(truncated_library) and e.offset == 40
    assert str(e) == "%s: offset 0x28: %s" % (truncated_library, first.what)


def test_strict_passes_a_clean_file(library_copies):
    whole = library_copies[0]
    report = smcompat.scan(whole, gpu="RTX 5090", strict=True)
    assert report.files[0].verdict == "native"


@pytest.mark.parametrize("request_bytes, what", [
    (b"not json", "request: not a JSON object"),
    (b"[1, 2]", "request: not a JSON object"),
    (b'{"function": "nope"}', "request: unknown function 'nope'"),
    (b'{"function": "scan", "paths": "a.so"}', "request: 'paths' must be a list of strings"),
    (b'{"function": "scan", "paths": ["a.so"], "jobs": -1}', "request: 'jobs' must be an unsigned 32-bit integer"),
    (b'{"function": "check", "pid": -3}', "request: 'pid' must be a process id >= 0"),
])
def test_the_c_abi_answers_a_bad_request_with_an_error_object(request_bytes, what):
    # smcompat_call, the library's one entry point, below the Python layer's own argument checks
    import ctypes
    import json
    from smcompat import _native
    response = ctypes.POINTER(ctypes.c_char)()
    size = ctypes.c_size_t()
    status = _native._lib.smcompat_call(request_bytes, len(request_bytes), ctypes.byref(response),
                                        ctypes.byref(size))
    try:
        error = json.loads(ctypes.string_at(response, size.value))
    finally:
        _native._lib.smcompat_free(response)
    assert status == 1
    assert error == {"what": what, "file": None, "offset": None}
