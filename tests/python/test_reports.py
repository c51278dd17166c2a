"""Report objects: exact reprs and summaries, sub-object dicts, threads, jobs."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

import smcompat
from conftest import canon, corpus_wheel


def test_gpu_repr_and_catalog_sequence():
    cat = smcompat.gpus("RTX 5090")
    assert repr(cat[0]) == "Gpu(name='GeForce RTX 5090', cc='12.0')"
    assert repr(cat) == "GpuCatalog(gpus=[1])"
    assert len(cat) == 1 and list(cat) == cat.gpus and cat[0] == cat.gpus[0]
    assert str(cat) == "%-28s %s" % ("GeForce RTX 5090", "12.0")
    assert cat[0].to_dict() == cat.to_dict()["gpus"][0]
    everything = smcompat.gpus()
    assert len(everything) > 10
    assert "GeForce RTX 5090" in [g.name for g in everything]


def test_scan_summary_text(corpus):
    wheel = corpus_wheel(corpus, "nvidia_cufile-")
    r = smcompat.scan(wheel, gpu="RTX 5090")
    [f] = [f for f in r.files if f.verdict is not None]
    assert f.member == "nvidia/cu13/lib/libcufile.so.0"
    assert f.verdict == "ptx-jit"
    assert "compute_90" in f.targets and "sm_90" in f.targets and "sm_120" not in f.targets
    assert str(r).splitlines() == [
        "scan for GeForce RTX 5090 (12.0): %d files with device code or errors, 1 packages, 0 errors" % len(r.files),
        "  %-16s %s: %s" % ("ptx-jit", f.name, f.summary),
    ]
    assert repr(r.packages[0]) == "ScannedPackage(name='nvidia_cufile', version='1.17.1.22', verdict='ptx-jit')"


def test_findings_and_levels(corpus):
    from conftest import corpus_venv
    venv = corpus_venv(corpus, "cupy")
    d = smcompat.doctor(python=[venv], active=False)
    for f in d.findings:
        assert f.to_dict() in d.to_dict()["findings"]
        assert str(f).splitlines()[0] == "%s [%s] %s" % (f.severity, f.id, f.title)
    levels = {lvl: {f.id for f in d.findings_at_least(lvl)} for lvl in ("error", "warning", "info")}
    assert levels["error"] <= levels["warning"] <= levels["info"] == {f.id for f in d.findings}
    assert levels["warning"] == {f.id for f in d.findings if f.severity in ("error", "warning")}
    with pytest.raises(smcompat.SmcompatError):
        d.findings_at_least("fatal")


def test_threads_give_the_same_reports(corpus):
    wheels = [corpus_wheel(corpus, p) for p in ("nvidia_cufile-", "cupy_cuda12x-", "bitsandbytes-0.50.2-")]
    alone = [canon(smcompat.scan(w, gpu="RTX 5090").to_dict()) for w in wheels]
    with ThreadPoolExecutor(max_workers=3) as pool:
        together = list(pool.map(lambda w: canon(smcompat.scan(w, gpu="RTX 5090").to_dict()), wheels * 2))
    assert together == alone * 2


def test_jobs_do_not_change_the_report(corpus):
    wheel = corpus_wheel(corpus, "bitsandbytes-0.50.2-")
    a = smcompat.scan(wheel, gpu="RTX 5090", jobs=1).to_dict()
    b = smcompat.scan(wheel, gpu="RTX 5090").to_dict()
    a.pop("argv")
    b.pop("argv")
    assert canon(a) == canon(b)


def test_a_scan_releases_the_gil(toolkit_lib64):
    """While a scan runs in one thread, Python code runs in another. Were the GIL held through the
    native call (a second or more for the toolkit's lib64), the counting loop could not advance
    until it returned: a few thousand iterations at most, against millions."""
    import threading
    done = threading.Event()
    result = {}

    def work():
        result["report"] = smcompat.scan(toolkit_lib64, gpu="RTX 5090")
        done.set()

    worker = threading.Thread(target=work)
    worker.start()
    counted = 0
    while not done.is_set():
        counted += 1
    worker.join()
    assert len(result["report"].files) > 10
    assert counted > 100_000, counted
