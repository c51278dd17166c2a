"""The JSON promise: every report's to_dict() is the document the console script prints with
--json for the same request (argv[0] normalised to "smcompat"), compared as
json.dumps(..., sort_keys=True)."""

from __future__ import annotations

import copy

import pytest

import smcompat
from conftest import canon, cli_json, corpus_venv, corpus_wheel, python_env, run_python


def assert_same_as_cli(cli, doc, spec_args, *, env=None, drop=()):
    """doc must equal (1) the CLI run with the command line doc["argv"] names, and (2) the CLI
    run with the command line the test spells out (spec_args), argv aside."""
    assert isinstance(doc, dict)
    by_spec = cli_json(cli, spec_args, env=env)
    if "argv" in doc:
        assert doc["argv"][0] == "smcompat", doc["argv"]
        assert "--json" in doc["argv"], doc["argv"]
        by_argv = cli_json(cli, doc["argv"][1:], env=env)
        assert canon(_drop(by_argv, drop)) == canon(_drop(doc, drop))
    a = _drop(doc, drop)
    b = _drop(by_spec, drop)
    a.pop("argv", None)
    b.pop("argv", None)
    assert canon(a) == canon(b)


def _drop(doc, paths):
    doc = copy.deepcopy(doc)
    for path in paths:
        node = doc
        for key in path[:-1]:
            node = node.get(key, {}) if isinstance(node, dict) else {}
        if isinstance(node, dict):
            node.pop(path[-1], None)
    return doc


# ------------------------------------------------------------------ scan

SCAN_WHEELS = [
    "cupy_cuda12x-",          # native for sm_120
    "bitsandbytes-0.50.2-",   # ptx-jit variants next to native ones
    "nvidia_cufile-",         # compute_90 PTX only
    "nvidia_nvshmem_cu13-",   # static-library members with pre-link code
    "torch-2.15.0-",          # the big one: 539 MB
]


@pytest.mark.parametrize("prefix", SCAN_WHEELS)
def test_scan_corpus_wheel_equals_cli(cli, corpus, prefix):
    wheel = corpus_wheel(corpus, prefix)
    report = smcompat.scan([wheel], gpu="RTX 5090")
    doc = report.to_dict()
    assert doc["schema"] == "smcompat.scan/2"
    assert doc["target"]["gpu"] == "GeForce RTX 5090"
    assert doc["target"]["cc"] == "12.0"
    assert str(wheel) in doc["argv"]
    assert doc["argv"][doc["argv"].index("--gpu") + 1] == "RTX 5090"
    assert_same_as_cli(cli, doc, ["scan", str(wheel), "--gpu", "RTX 5090", "--json"])


def test_scan_several_wheels_in_one_call(cli, corpus):
    wheels = [corpus_wheel(corpus, "nvidia_cufile-"), corpus_wheel(corpus, "cupy_cuda12x-")]
    doc = smcompat.scan(wheels, gpu="RTX 5090").to_dict()
    assert sorted(p["name"] for p in doc["packages"]) == ["cupy_cuda12x", "nvidia_cufile"]
    assert_same_as_cli(cli, doc, ["scan"] + [str(w) for w in wheels] + ["--gpu", "RTX 5090", "--json"])


def test_scan_toolkit_libraries_equal_cli(cli, toolkit_lib64):
    libs = sorted(str(p) for p in toolkit_lib64.glob("libcufftw.so*"))
    if not libs:
        pytest.skip("libcufftw.so* is missing in %s" % toolkit_lib64)
    report = smcompat.scan(libs, gpu="RTX 5090")
    assert_same_as_cli(cli, report.to_dict(), ["scan"] + libs + ["--gpu", "RTX 5090", "--json"])


def test_scan_toolkit_directory_equals_cli(cli, toolkit_lib64):
    report = smcompat.scan(toolkit_lib64, gpu="RTX 5090")
    assert len(report.files) > 10
    assert_same_as_cli(cli, report.to_dict(), ["scan", str(toolkit_lib64), "--gpu", "RTX 5090", "--json"])


def test_scan_options_deep_target_driver_equal_cli(cli, toolkit_lib64):
    lib = toolkit_lib64 / "libcufftw.so.12"
    if not lib.exists():
        pytest.skip("%s is missing" % lib)
    report = smcompat.scan(lib, target="sm_90", driver="12.8", deep=True, verbose=True)
    doc = report.to_dict()
    assert doc["target"]["cc"] == "9.0"
    assert doc["target"]["driver_cuda"] is not None
    assert any("kernels" in e for f in doc["files"] for e in f["entries"])
    assert_same_as_cli(cli, doc, ["scan", str(lib), "--target", "sm_90", "--driver", "12.8", "--deep",
                                  "--verbose", "--json"])


def test_scan_typed_attributes_mirror_the_dict(corpus):
    wheel = corpus_wheel(corpus, "bitsandbytes-0.50.2-")
    report = smcompat.scan(str(wheel), gpu="RTX 5090")
    doc = report.to_dict()
    assert report.schema == doc["schema"] and report.argv == doc["argv"]
    assert report.target.label == doc["target"]["label"] == "GeForce RTX 5090 (12.0)"
    assert report.stats == doc["stats"]
    assert len(report.files) == len(doc["files"]) and len(report.packages) == len(doc["packages"])
    for f, d in zip(report.files, doc["files"]):
        assert (f.path, f.member, f.package, f.format, f.size, f.verdict, f.summary) == (
            d["path"], d["member"], d["package"], d["format"], d["size"], d["verdict"], d["summary"])
        assert f.to_dict() == d
        assert [e.to_dict() for e in f.entries] == d["entries"]
        assert [e.target for e in f.entries] == [e["target"] for e in d["entries"]]
        assert f.name == (d["path"] + "!" + d["member"] if d["member"] else d["path"])
    verdicts = {f.member: f.verdict for f in report.files}
    assert verdicts["bitsandbytes/libbitsandbytes_cuda126.so"] == "ptx-jit"
    assert [p.to_dict() for p in report.packages] == doc["packages"]
    assert report.packages[0].name == "bitsandbytes" and report.packages[0].version == "0.50.2"
    # The package loads one library per CUDA runtime: the best (the CUDA 13 build's sm_120 SASS)
    # decides, not the older ones that only JIT.
    assert report.verdict == "native"


def test_scan_path_forms_give_the_same_report(toolkit_lib64):
    lib = toolkit_lib64 / "libcufftw.so.12"
    if not lib.exists():
        pytest.skip("%s is missing" % lib)
    a = smcompat.scan(lib, gpu="RTX 5090").to_dict()
    b = smcompat.scan(str(lib), gpu="RTX 5090").to_dict()
    c = smcompat.scan([lib], gpu="RTX 5090").to_dict()
    assert canon(a) == canon(b) == canon(c)


def test_reports_are_read_only_and_to_dict_is_a_copy(toolkit_lib64):
    lib = toolkit_lib64 / "libcufftw.so.12"
    if not lib.exists():
        pytest.skip("%s is missing" % lib)
    report = smcompat.scan(lib, gpu="RTX 5090")
    before = canon(report.to_dict())
    d = report.to_dict()
    d["files"].clear()
    d["target"]["cc"] = "x"
    assert canon(report.to_dict()) == before
    with pytest.raises(AttributeError):
        report.files = []
    with pytest.raises(AttributeError):
        report.files[0].verdict = "native"
    assert report == smcompat.scan(lib, gpu="RTX 5090")
    assert repr(report).startswith("ScanReport(")
    assert len(repr(report)) < 200


# ------------------------------------------------------------------ doctor, explain, gpus, probe

# host.mem_available_gib is measured at each run: it is the one field two runs may not share.
VOLATILE_DOCTOR = [("host", "mem_available_gib")]


def test_doctor_equals_cli(cli, corpus):
    venv = corpus_venv(corpus, "cupy")
    report = smcompat.doctor(["RTX 5090"], [venv], active=False)
    doc = report.to_dict()
    assert doc["schema"] == "smcompat.doctor/1"
    assert [e["prefix"] for e in doc["python_envs"]] == [str(venv)]
    assert [e.prefix for e in report.envs] == [str(venv)]
    assert [f.to_dict() for f in report.findings] == doc["findings"]
    assert report.ok == (doc["summary"]["errors"] == 0)
    assert_same_as_cli(cli, doc, ["doctor", "--gpu", "RTX 5090", "--python", str(venv), "--no-active", "--json"],
                       drop=VOLATILE_DOCTOR)


def test_doctor_no_scan_equals_cli(cli, corpus):
    venv = corpus_venv(corpus, "torch")
    doc = smcompat.doctor(python=[str(venv)], active=False, scan_code=False).to_dict()
    assert_same_as_cli(cli, doc, ["doctor", "--python", str(venv), "--no-active", "--no-scan", "--json"],
                       drop=VOLATILE_DOCTOR)


def test_doctor_finds_torch_verdicts(corpus):
    venv = corpus_venv(corpus, "torch")
    report = smcompat.doctor(["RTX 5090"], [venv], active=False)
    torch_rows = [v for v in report.verdicts if v.package == "torch"]
    assert len(torch_rows) == 1
    assert torch_rows[0].version == "2.15.0"
    assert torch_rows[0].gpu == "GeForce RTX 5090"
    assert torch_rows[0].fit == "native"


NO_KERNEL = "no kernel image is available for execution on the device"


def test_explain_without_doctor_equals_cli(cli):
    e = smcompat.explain(NO_KERNEL)
    doc = e.to_dict()
    assert doc["doctor_consulted"] is False
    assert [m.id for m in e.matches] == ["no-kernel-image"]
    assert e.matches[0].line == 1 and e.matches[0].on_this_machine is None
    assert e.matches[0].matched == NO_KERNEL
    assert bool(e)
    assert_same_as_cli(cli, doc, ["explain", "--no-doctor", "--json", "--", NO_KERNEL])


def test_explain_with_doctor_equals_cli(cli, corpus):
    venv = corpus_venv(corpus, "cupy")
    text = "RuntimeError: CUDA error: " + NO_KERNEL
    e = smcompat.explain(text, doctor=True, gpus=["RTX 5090"], python=[venv], active=False)
    doc = e.to_dict()
    assert doc["doctor_consulted"] is True
    assert isinstance(e.matches[0].on_this_machine, list)
    assert_same_as_cli(cli, doc, ["explain", "--gpu", "RTX 5090", "--python", str(venv), "--no-active", "--json",
                                  "--", text])


def test_explain_nothing_matches():
    e = smcompat.explain("everything is fine")
    assert e.matches == [] and not e


@pytest.mark.parametrize("name", [None, "RTX 5090", "5090", "B200"])
def test_gpus_equals_cli(cli, name):
    cat = smcompat.gpus(name)
    doc = cat.to_dict()
    assert doc["schema"] == "smcompat.gpus/1"
    assert len(cat) == len(doc["gpus"]) and [g.name for g in cat] == [g["name"] for g in doc["gpus"]]
    assert_same_as_cli(cli, doc, ["gpus"] + ([name] if name else []) + ["--json"])


def test_gpus_lookup_values():
    [g] = smcompat.gpus("RTX 5090")
    assert (g.name, g.cc, g.sm, g.sms, g.memory_gib) == ("GeForce RTX 5090", "12.0", "sm_120", 170, 32.0)
    assert g.to_dict()["name"] == "GeForce RTX 5090"


@pytest.mark.parametrize("nvml", [True, False])
def test_probe_equals_cli(cli, nvml):
    doc = smcompat.probe(nvml=nvml).to_dict()
    assert doc["schema"] == "smcompat.probe/1"
    assert_same_as_cli(cli, doc, ["probe", "--json"] + ([] if nvml else ["--no-nvml"]))


def test_probe_fake_rtx5090_equals_cli(cli, fake_driver_dir):
    env = python_env({"LD_LIBRARY_PATH": str(fake_driver_dir), "SMCOMPAT_FAKE_GPUS": "RTX 5090"})
    p = run_python("import json, smcompat; print(json.dumps(smcompat.probe().to_dict()))", env=env)
    assert p.returncode == 0, p.stderr
    import json
    doc = json.loads(p.stdout)
    assert doc["status"] == "ok"
    assert [d["cc"] for d in doc["devices"]] == ["12.0"]
    assert_same_as_cli(cli, doc, ["probe", "--json"], env=env)


def test_version_matches_the_cli(cli):
    from conftest import run_cli
    out = run_cli(cli, ["--version"]).stdout.split()
    assert out[-1] == smcompat.__version__
    assert smcompat.gpus("5090").to_dict().get("tool_version", smcompat.__version__) == smcompat.__version__
