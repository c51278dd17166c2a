#!/usr/bin/env python3
"""The aarch64 CLI (the `aarch64` preset's cross build, run under qemu-aarch64) gives the same
answers as the x86_64 CLI on the same inputs: one CASE per invocation (CTest runs each as a test,
label aarch64). The inputs are the corpus's aarch64 wheels (scripts/corpus/foreign.txt: torch and
bitsandbytes for GB10), an environment of them installed by pip for aarch64 (`--platform`,
`--target`), the shipped index, and fixtures of this checkout.

Usage: same_answers.py CASE X86_CLI AARCH64_CLI SOURCE_DIR WORK_DIR
Exit 0 same answers, 1 different (a diff is printed), 77 skipped (the reason is printed: no
qemu-aarch64, no aarch64 build, or no corpus), 2 usage."""
import difflib
import glob
import json
import os
import re
import shutil
import subprocess
import sys

SKIP = 77
VARIES = re.compile(r'("mem_available_gib": )[0-9.e+-]+')


def skip(reason: str) -> None:
    print("SKIP: " + reason)
    sys.exit(SKIP)


def corpus_dir() -> str:
    return os.environ.get("SMCOMPAT_CORPUS") or os.path.expanduser("~/.cache/smcompat-corpus")


def foreign_wheel(package: str) -> str:
    found = sorted(glob.glob(os.path.join(corpus_dir(), "wheels-foreign", package + "-*aarch64.whl")))
    if not found:
        skip("corpus cache missing: no %s aarch64 wheel in %s/wheels-foreign "
             "(run scripts/fetch-corpus.sh, or set SMCOMPAT_CORPUS)" % (package, corpus_dir()))
    return found[-1]


def aarch64_environment(work: str) -> str:
    """site-packages of aarch64 wheels, installed by pip for aarch64 (nothing is run from it)."""
    target = os.path.join(work, "aarch64-site-packages")
    stamp = os.path.join(target, ".complete")
    if os.path.exists(stamp):
        return target
    wheels = [foreign_wheel("torch"), foreign_wheel("bitsandbytes")]
    shutil.rmtree(target, ignore_errors=True)
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
           "--no-compile", "--target", target, "--platform", "manylinux_2_28_aarch64",
           "--platform", "manylinux_2_24_aarch64", "--platform", "manylinux2014_aarch64",
           "--python-version", "3.12", "--implementation", "cp", "--only-binary=:all:"] + wheels
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        print(run.stdout + run.stderr)
        sys.exit(1)
    open(stamp, "w").close()
    return target


def cases(source: str, work: str) -> dict:
    triton = os.path.join(source, "tests", "ptx", "data", "triton")  # Triton's own PTX
    return {
        "scan-torch": lambda: ["scan", "--json", "--gpu", "GB10", foreign_wheel("torch")],
        "scan-bitsandbytes": lambda: ["scan", "--json", "--deep", "--gpu", "GB10",
                                      foreign_wheel("bitsandbytes")],
        "advise": lambda: ["advise", "--json", "--gpu", "GB10", "torch", "bitsandbytes",
                           "vllm", "flash-attn", "xformers"],
        "doctor": lambda: ["doctor", "--json", "--no-active", "--gpu", "GB10", "--python",
                           aarch64_environment(work)],
        "gpus": lambda: ["gpus", "--json"],
        "explain": lambda: ["explain", "--json", "--no-doctor", "--gpu", "GB10",
                            "RuntimeError: CUDA error: no kernel image is available for execution "
                            "on the device"],
        "ptx-check": lambda: ["ptx", "check", "--json", "--all", "--target", "sm_121",
                              os.path.join(triton, "attn_fwd.sm_90.ptx"),
                              os.path.join(triton, "attn_fwd.sm_100.ptx")],
        "ptx-lower": lambda: ["ptx", "lower", "--to", "sm_121",
                              os.path.join(triton, "attn_fwd.sm_90.ptx")],
        # The reference interpreter runs Hopper's wgmma and Blackwell's tcgen05 kernels as given
        # and lowered; its figures are bits, so floating point must round the same on both.
        "ptx-lower-verify": lambda: ["ptx", "lower", "--to", "sm_121", "--verify", "--json",
                                     "-o", os.devnull, os.path.join(triton, "bmm_f16.sm_100.ptx")],
    }


def run(cli: list, args: list) -> str:
    """The output of `smcompat ARGS` with argv[0] "smcompat" (documents record their argv)."""
    p = subprocess.run(cli + args, capture_output=True, text=True, timeout=1200)
    # The one figure that changes between two runs on the same machine: the doctor's free memory.
    out = VARIES.sub(r'\1"(varies between runs)"', p.stdout)
    # Findings exit 1; usage and I/O errors exit 2 and are an answer too (both must agree).
    return "exit %d\n%s\n--- stderr\n%s" % (p.returncode, out, p.stderr)


def main() -> int:
    if len(sys.argv) != 6:
        print(__doc__)
        return 2
    case, x86_cli, arm_cli, source, work = sys.argv[1:]
    qemu = shutil.which("qemu-aarch64")
    if not qemu:
        skip("qemu-aarch64 not found (Debian package qemu-user; scripts/install-deps.sh installs it)")
    if not os.path.exists(arm_cli):
        skip("no aarch64 build: %s (cmake --preset aarch64 && cmake --build --preset aarch64)" % arm_cli)
    table = cases(source, work)
    if case not in table:
        print("unknown case %s; cases: %s" % (case, " ".join(table)))
        return 2
    os.makedirs(work, exist_ok=True)
    args = table[case]()
    # argv[0] "smcompat" for both: a symbolic link for the x86_64 build, qemu's -0 for the other.
    link = os.path.join(work, "x86_64", "smcompat")
    os.makedirs(os.path.dirname(link), exist_ok=True)
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(os.path.abspath(x86_cli), link)
    env_path = os.path.dirname(link) + os.pathsep + os.environ.get("PATH", "")
    os.environ["PATH"] = env_path
    expected = run(["smcompat"], args)
    # No -L /usr/aarch64-linux-gnu (cmake/aarch64-linux-gnu.cmake says why): the multiarch
    # libc6:arm64 and its loader, at the paths the binary names.
    observed = run([qemu, "-0", "smcompat", arm_cli], args)
    if expected == observed:
        print("same answer from both builds: smcompat %s (%d bytes)" % (" ".join(args), len(expected)))
        return 0
    print("the aarch64 build answers differently: smcompat " + " ".join(args))
    sys.stdout.writelines(difflib.unified_diff(expected.splitlines(True), observed.splitlines(True),
                                               "x86_64", "aarch64", n=2))
    return 1


if __name__ == "__main__":
    sys.exit(main())
