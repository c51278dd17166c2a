#!/usr/bin/env python3
"""Generate real Triton PTX fixtures for `smcompat ptx lower`.

Compiles a fixed set of small Triton kernels ahead of time (no GPU, no CUDA
driver needed) for three targets and writes the PTX to
tests/ptx/data/triton/<kernel>.sm_<arch>.ptx:

  arch  90 -> sm_90a   (Hopper: wgmma.mma_async)
  arch 100 -> sm_100a  (Blackwell datacenter: tcgen05.mma)
  arch 120 -> sm_120a  (Blackwell consumer: mma.sync)

Run it with the Triton virtual environment's python (outside the checkout):

  python3 -m venv /root/.cache/smcompat-corpus/venvs/triton
  /root/.cache/smcompat-corpus/venvs/triton/bin/pip install triton
  /root/.cache/smcompat-corpus/venvs/triton/bin/python scripts/triton-ptx.py

How the compile avoids the GPU driver: triton.compile() only asks the
driver (driver.active.get_current_target()) when `target` is None.  Passing
an explicit GPUTarget("cuda", <arch>, 32) skips that entirely; the NVIDIA
backend then only runs the ptxas bundled in the wheel
(triton/backends/nvidia/bin/ptxas-blackwell) to build the cubin, which
works on a machine without a GPU.  No TRITON_* environment variable is
needed for that.  The script sets three environment variables itself:

  TRITON_CACHE_DIR=<fresh temp dir>  bypass ~/.triton/cache, always compile
  TRITON_DISABLE_LINE_INFO=1         no .file/.loc debug lines (smaller PTX,
                                     no absolute paths of this machine)
  TRITON_DEFAULT_FP_FUSION=1         Triton 3.9's current default (fma
                                     fusion on), pinned so the output does
                                     not change when Triton flips it

PTX ISA version: by default Triton writes `.version` = the newest PTX ISA
the ptxas bundled in the wheel reads (triton 3.9.0 bundles CUDA 13.4's
ptxas -> `.version 9.4`), which CUDA 13.0's ptxas (ISA <= 9.0) rejects.
We pass the ordinary compile option `ptx_version=90`.  With triton 3.9.0
that changes nothing but the `.version` line (checked for all 30 files:
LLVM's NVPTX feature is clamped to +ptx90 either way, and Triton then
rewrites the `.version` line to the requested version).

After writing the PTX the script counts the interesting instructions in
each file and runs each ptxas it can find (CUDA toolkit's, and the two the
wheel bundles) on it, and writes tests/ptx/data/triton/README.md from that.

The script is deterministic: fixed kernels, fixed shapes, fixed options
(num_warps=4, num_stages=1, num_ctas=1).  Generated PTX is never edited.
Every kernel is a single program (grid of 1 for all but the batched one)
using plain pointer loads (`tl.load(ptr + offsets)`), no tensor
descriptors / TMA.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

# Fresh cache directory so nothing stale is reused (must be set before
# triton reads its knobs).
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="triton-ptx-cache-")
os.environ["TRITON_DISABLE_LINE_INFO"] = "1"
os.environ["TRITON_DEFAULT_FP_FUSION"] = "1"

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

ARCHS = (90, 100, 120)
OPTIONS = {"num_warps": 4, "num_stages": 1, "num_ctas": 1, "ptx_version": 90}
OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "ptx", "data", "triton")

# ---------------------------------------------------------------------------
# Kernels.  All matrices are dense with constexpr shapes/strides so the PTX
# stays small: no masks, no runtime strides.
# ---------------------------------------------------------------------------


@triton.jit
def mm_f16_bt(a_ptr, b_ptr, c_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C[M,N] = A[M,K] @ B^T with B stored K-major as [N,K] (f16 -> f32)."""
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a = tl.load(a_ptr + rm[:, None] * BLOCK_K + rk[None, :])
    b = tl.load(b_ptr + rn[:, None] * BLOCK_K + rk[None, :])  # [N, K]
    c = tl.dot(a, tl.trans(b))
    tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], c)


@triton.jit
def mm_f16_bn(a_ptr, b_ptr, c_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C[M,N] = A[M,K] @ B[K,N] with B stored row-major [K,N] (f16 -> f32)."""
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a = tl.load(a_ptr + rm[:, None] * BLOCK_K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BLOCK_N + rn[None, :])  # [K, N]
    c = tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], c)


@triton.jit
def mm_acc16(a_ptr, b_ptr, c_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C[M,N] (f16) = A[M,K] @ B[K,N], f16 inputs, f16 accumulator (out_dtype=tl.float16)."""
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a = tl.load(a_ptr + rm[:, None] * BLOCK_K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BLOCK_N + rn[None, :])
    c = tl.dot(a, b, out_dtype=tl.float16)
    tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], c)


@triton.jit
def mm_tf32(a_ptr, b_ptr, c_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C[M,N] = A[M,K] @ B[K,N], f32 inputs with input_precision="tf32" -> f32."""
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a = tl.load(a_ptr + rm[:, None] * BLOCK_K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BLOCK_N + rn[None, :])
    c = tl.dot(a, b, input_precision="tf32")
    tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], c)


@triton.jit
def mm_fp8(a_ptr, b_ptr, c_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C[M,N] = A[M,K] @ B^T, fp8 e4m3 (tl.float8e4nv) inputs, B stored K-major [N,K] -> f32."""
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a = tl.load(a_ptr + rm[:, None] * BLOCK_K + rk[None, :])
    b = tl.load(b_ptr + rn[:, None] * BLOCK_K + rk[None, :])  # [N, K]
    c = tl.dot(a, tl.trans(b))
    tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], c)


@triton.jit
def mm_kloop_bias_relu(a_ptr, b_ptr, bias_ptr, c_ptr, K: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       BLOCK_K: tl.constexpr):
    """C = relu(A[M,K] @ B[K,N] + bias[N]), f16 -> f32, K loop of K // BLOCK_K steps."""
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BLOCK_N + rn[None, :])
        acc = tl.dot(a, b, acc)
    bias = tl.load(bias_ptr + rn)
    acc = tl.maximum(acc + bias[None, :], 0.0)
    tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], acc)


@triton.jit
def mm_f16_n16(a_ptr, b_ptr, c_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """Same as mm_f16_bn with a narrow N (BLOCK_N=16) for a different wgmma/tcgen05 shape."""
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a = tl.load(a_ptr + rm[:, None] * BLOCK_K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BLOCK_N + rn[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * BLOCK_N + rn[None, :], c)


@triton.jit
def bmm_f16(a_ptr, b_ptr, c_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """Batched C[b] = A[b] @ B[b] (f16 -> f32); one program per batch (program_id(0)), N=32."""
    bid = tl.program_id(0)
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a = tl.load(a_ptr + bid * (BLOCK_M * BLOCK_K) + rm[:, None] * BLOCK_K + rk[None, :])
    b = tl.load(b_ptr + bid * (BLOCK_K * BLOCK_N) + rk[:, None] * BLOCK_N + rn[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + bid * (BLOCK_M * BLOCK_N) + rm[:, None] * BLOCK_N + rn[None, :], c)


@triton.jit
def attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, N_CTX: tl.constexpr, BLOCK_M: tl.constexpr,
             BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    """One-head attention forward, online softmax (flash-attention style).

    Q[BLOCK_M, D], K[N_CTX, D], V[N_CTX, D], O[BLOCK_M, D], all f16 row-major.
    Per iteration: S = Q @ K^T (dot 1), P = softmax-update(S), acc += P @ V (dot 2).
    """
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rd = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + rm[:, None] * HEAD_DIM + rd[None, :])
    m_i = tl.full((BLOCK_M, ), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M, ), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # log2(e): use exp2
    for start_n in range(0, N_CTX, BLOCK_N):
        k = tl.load(k_ptr + (start_n + rn)[:, None] * HEAD_DIM + rd[None, :])  # [BLOCK_N, D]
        v = tl.load(v_ptr + (start_n + rn)[:, None] * HEAD_DIM + rd[None, :])  # [BLOCK_N, D]
        s = tl.dot(q, tl.trans(k)) * qk_scale  # [BLOCK_M, BLOCK_N]
        m_new = tl.maximum(m_i, tl.max(s, 1))
        alpha = tl.math.exp2(m_i - m_new)
        p = tl.math.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + rm[:, None] * HEAD_DIM + rd[None, :], acc.to(tl.float16))


# name -> (jit function, signature (runtime args), constexprs)
MM = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}


def mm_sig(ab, c):
    return {"a_ptr": f"*{ab}", "b_ptr": f"*{ab}", "c_ptr": f"*{c}"}


KERNELS = [
    ("mm_f16_bt", mm_f16_bt, mm_sig("fp16", "fp32"), dict(MM)),
    ("mm_f16_bn", mm_f16_bn, mm_sig("fp16", "fp32"), dict(MM)),
    ("mm_bf16", mm_f16_bn, mm_sig("bf16", "fp32"), dict(MM)),
    ("mm_acc16", mm_acc16, mm_sig("fp16", "fp16"), dict(MM)),
    ("mm_tf32", mm_tf32, mm_sig("fp32", "fp32"), dict(MM)),
    ("mm_fp8", mm_fp8, mm_sig("fp8e4nv", "fp32"), {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64}),
    ("mm_kloop_bias_relu", mm_kloop_bias_relu,
     {"a_ptr": "*fp16", "b_ptr": "*fp16", "bias_ptr": "*fp32", "c_ptr": "*fp32"},
     {"K": 128, "BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}),
    ("mm_f16_n16", mm_f16_n16, mm_sig("fp16", "fp32"), {"BLOCK_M": 64, "BLOCK_N": 16, "BLOCK_K": 32}),
    ("bmm_f16", bmm_f16, mm_sig("fp16", "fp32"), {"BLOCK_M": 64, "BLOCK_N": 32, "BLOCK_K": 32}),
    ("attn_fwd", attn_fwd,
     {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16", "sm_scale": "fp32"},
     {"N_CTX": 128, "BLOCK_M": 64, "BLOCK_N": 32, "HEAD_DIM": 64}),
]


# Descriptions for entries that reuse another entry's function with other dtypes.
DESCRIPTIONS = {"mm_bf16": "mm_f16_bn with bf16 inputs: C[M,N] = A[M,K] @ B[K,N], B row-major [K,N] (bf16 -> f32)."}


def compile_ptx(fn, signature, constexprs, arch):
    # constexpr parameters appear in the signature with type "constexpr" and
    # their values are passed by name in `constexprs` (Triton >= 3.2 API).
    sig = dict(signature)
    for name in constexprs:
        sig[name] = "constexpr"
    src = triton.compiler.ASTSource(fn=fn, signature=sig, constexprs=constexprs)
    compiled = triton.compile(src, target=GPUTarget("cuda", arch, 32), options=dict(OPTIONS))
    return compiled.asm["ptx"]


# ---------------------------------------------------------------------------
# Report: instruction counts and ptxas checks -> README.md
# ---------------------------------------------------------------------------

# (column, regex on the opcode; a line is one instruction, after stripping an
# optional `@%p` / `@!%p` guard).  Comments and inline-asm markers never match.
COUNTS = [
    ("wgmma.mma_async", r"wgmma\.mma_async\b"),
    ("wgmma (all)", r"wgmma\."),
    ("tcgen05.mma", r"tcgen05\.mma\b"),
    ("tcgen05 (all)", r"tcgen05\."),
    ("mma.sync", r"mma\.sync\b"),
    ("cp.async (non-bulk)", r"cp\.async\.(?!bulk)"),
    ("cp.async.bulk.tensor", r"cp\.async\.bulk\.tensor\b"),
    ("mbarrier", r"mbarrier\."),
    ("setmaxnreg", r"setmaxnreg\."),
    ("ldmatrix", r"ldmatrix\."),
    ("stmatrix", r"stmatrix\."),
]
GUARD = re.compile(r"^\s*(?:@!?%\w+\s+)?")


def count(ptx):
    ops = [GUARD.sub("", l) for l in ptx.splitlines()]
    return {col: sum(1 for o in ops if re.match(rx, o)) for col, rx in COUNTS}


def shapes(ptx):
    """Distinct wgmma / tcgen05.mma / mma.sync opcodes (with their modifiers)."""
    ops = [GUARD.sub("", l).split(" ")[0].split("\t")[0] for l in ptx.splitlines()]
    return sorted({o for o in ops if re.match(r"(wgmma\.mma_async|tcgen05\.mma|mma\.sync)\b", o)})


def operand_patterns(ptx):
    """Distinct tensor-core instruction lines with register lists collapsed to {..}
    and register numbers to N (shows the operand kinds and immediates)."""
    pats = set()
    for l in ptx.splitlines():
        o = GUARD.sub("", l).strip()
        if re.match(r"(wgmma\.mma_async|tcgen05\.mma)\b", o):
            o = re.sub(r"\{[^}]*\}", lambda m: "{%rN x" + str(m.group(0).count("%")) + "}", o)
            pats.add(re.sub(r"%(r|rd|p|f|rs)\d+", r"%\1N", o))
    return sorted(pats)


NOTES = """
## Notes (triton 3.9.0, observed in these files)

- sm_90a: every dot becomes `wgmma.fence` / `wgmma.mma_async` (one per
  k-step of 16 for f16/bf16, 8 for tf32, 32 for e4m3) / `wgmma.commit_group`
  / `wgmma.wait_group 0`.  The operand list is `{d regs}, a-desc, b-desc, scale-d, imm-scale-a,
  imm-scale-b, imm-trans-a, imm-trans-b` (f16/bf16), without the two
  transpose immediates for tf32/e4m3, and `{d regs}, {a regs}, b-desc,
  scale-d, imm-scale-a, imm-scale-b, imm-trans-b` when A is in registers.
  The first wgmma of a dot has scale-d `0` (no accumulator input), later ones
  a predicate `%p1` set to true; in `mm_kloop_bias_relu` both use a predicate
  (the loop carries the accumulator).  `mm_f16_bt` (B loaded as [N,K],
  `tl.trans`) has imm-trans-b `0`; `mm_f16_bn`/`mm_bf16`/`mm_acc16`/
  `mm_f16_n16`/`bmm_f16` (B row-major [K,N]) have imm-trans-b `1`.  tf32 and
  e4m3 wgmma have no transpose immediates (K-major only; Triton transposes
  through shared memory — `stmatrix` in `mm_tf32`).
- Descriptors are built from the shared-memory address:
  `bfe.u32 %r, %rSMEM, 4, 15` (address >> 4, 14 bits), `+2` per k-step
  (32 bytes), then `or.b64` with a constant holding swizzle mode (bits
  62-63) and stride byte offset (bits 32-45, in 16 B units); leading byte
  offset 0.  Swizzle field per the PTX ISA wgmma descriptor: 1 = 128 B,
  2 = 64 B, 3 = 32 B; SBO = 8 rows x swizzle width.  Constants seen:
  `-9223371899415822336` = 0x8000002000000000 (64 B swizzle, SBO 512 B: the
  [64,32] f16 A tiles, 64-byte rows), `4611686293305294848` =
  0x4000004000000000 (128 B swizzle, SBO 1024 B: 128-byte rows, e.g. the
  [32,64] f16 B tile of `mm_f16_bn`, tf32 tiles, all of `attn_fwd`),
  `-4611685949707911168` = 0xc000001000000000 (32 B swizzle, SBO 256 B: the
  [32,16] B tile of `mm_f16_n16`).  Grep `or.b64` in each file for its own.
- `attn_fwd.sm_90`: the first dot (Q @ K^T) reads both operands from shared
  memory (m64n32k16, 4 k-steps); the second (P @ V) takes A from registers
  (`{%r,%r,%r,%r}` instead of an A descriptor, m64n64k16, 2 k-steps).
- sm_100a: Triton emits `tcgen05.mma` for every kernel here WITHOUT TMA
  (plain loads -> `st.shared` -> `fence.proxy.async` -> tcgen05.mma with
  shared-memory descriptors); no file uses `cp.async.bulk.tensor`.  Around
  it: `tcgen05.alloc/relinquish_alloc_permit/dealloc` (TMEM), `tcgen05.st`
  (zero the accumulator), `elect.sync`, `tcgen05.commit ... mbarrier::arrive`,
  `mbarrier.init/try_wait.parity/inval`, `tcgen05.ld` + `tcgen05.wait::ld`.
  Operands: `[d-tmem], a-desc|[a-tmem], b-desc, idesc, enable-input-d`; the
  descriptor is `mov.b64 %rd, {lo, hi}` with lo = address >> 4 and hi a
  `mov.b32` constant (version bit 46 set, SBO in bits 32-45, swizzle in
  61-63 with 2 = 128 B, 4 = 64 B, 6 = 32 B: `-2147467232` = 0x80004020
  64 B / SBO 512 B, `1073758272` = 0x40004040 128 B / SBO 1024 B,
  `-1073725424` = 0xc0004010 32 B / SBO 256 B); the instruction
  descriptor (`idesc`) is a `mov.b32` immediate (e.g. 68157456 = 0x4100010
  in `mm_f16_bt`).  In `attn_fwd.sm_100` the second
  dot's A (P) is in tensor memory (`[ %rN + 0 ]`).
- sm_120a: `mma.sync.aligned.m16n8k{8,16,32}` with `ldmatrix` (and
  `stmatrix` for tf32/fp8 shuffles).
- No file contains `setmaxnreg`, non-bulk `cp.async` (num_stages=1), or
  `cp.async.bulk.tensor`.
- `.version`: Triton's default for these would be 9.4 (accepted by the
  wheel's CUDA 13.4 ptxas-blackwell, rejected by CUDA 13.0's ptxas with
  `Unsupported .version 9.4; current version is '9.0'`); hence
  `ptx_version=90` (see above).  The wheel's older `ptxas` (CUDA 12.9, ISA
  <= 8.8) is listed for completeness; Triton only uses it for arch < 90.
"""


def ptxas_tools():
    """(label, path) for every ptxas we check with, if present."""
    bindir = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")
    tools = []
    system = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    for label, path in (("system", system), ("wheel ptxas-blackwell", os.path.join(bindir, "ptxas-blackwell")),
                        ("wheel ptxas", os.path.join(bindir, "ptxas"))):
        if os.path.exists(path):
            out = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
            m = re.search(r"release (\d+\.\d+), (V[\d.]+)", out)
            tools.append((label, path, f"CUDA {m.group(1)} ({m.group(2)})" if m else "?"))
    return tools


def ptxas_ok(path, ptx_file, arch):
    r = subprocess.run([path, f"-arch=sm_{arch}a", ptx_file, "-o", os.devnull], capture_output=True, text=True)
    if r.returncode == 0:
        return "ok"
    first = (r.stderr or r.stdout).strip().splitlines()
    msg = first[0].split("fatal   :")[-1].strip() if first else f"rc {r.returncode}"
    return "REJECTED: " + msg.replace("|", "/")


README_HEAD = """# Triton-generated PTX fixtures

Real PTX emitted by Triton for small tensor-core kernels, for
`smcompat ptx lower` (rewrite of sm_90a `wgmma.mma_async` and sm_100a
`tcgen05.mma` into `mma.sync` for sm_120).  **Generated — never edit by
hand**; regenerate with the command below.  This file is generated too.

- Triton: {triton_version} (PyPI wheel, no torch), Python {py}
- Command (from the repository root):

      python3 -m venv /root/.cache/smcompat-corpus/venvs/triton
      /root/.cache/smcompat-corpus/venvs/triton/bin/pip install triton=={triton_version}
      /root/.cache/smcompat-corpus/venvs/triton/bin/python scripts/triton-ptx.py

- API: `triton.compile(triton.compiler.ASTSource(fn=kernel, signature=sig,
  constexprs=cx), target=triton.backends.compiler.GPUTarget("cuda", arch, 32),
  options={options})`; constexpr parameters appear in `sig` with type
  `"constexpr"` and their values in `cx` by name.  No GPU or driver is
  touched: an explicit `target` skips `driver.active.get_current_target()`.
  Env set by the script: `TRITON_CACHE_DIR=<fresh tmp>`,
  `TRITON_DISABLE_LINE_INFO=1` (no `.loc`/`.file`), `TRITON_DEFAULT_FP_FUSION=1`.
- `ptx_version=90`: Triton's default would write `.version 9.4` (the ISA of
  the CUDA 13.4 ptxas in the wheel), which CUDA 13.0's ptxas rejects
  (`Unsupported .version 9.4; current version is '9.0'`).  With
  triton {triton_version}, `ptx_version=90` changes only the `.version` line
  (verified by diffing all 30 files).
- Targets: arch 90 -> `.target sm_90a`, 100 -> `sm_100a`, 120 -> `sm_120a`.
- Every kernel: num_warps=4 (128 threads, `.reqntid 128`), num_stages=1,
  one CTA, plain `tl.load(ptr + offsets)` / `tl.store` (no masks, no tensor
  descriptors, no TMA); all shapes and strides are constexpr.  Besides the
  user arguments, Triton 3.9 appends two `.u64` pointer params (global
  scratch and profile scratch) to every entry; they are unused here.

## Kernels

| kernel | function | signature (runtime args) | constexprs | what |
|---|---|---|---|---|
"""


def kernel_rows():
    rows = []
    for name, fn, sig, cx in KERNELS:
        doc = DESCRIPTIONS.get(name) or " ".join((fn.fn.__doc__ or "").split("\n\n")[0].split())
        sigs = ", ".join(f"{k}: {v}" for k, v in sig.items())
        cxs = ", ".join(f"{k}={v}" for k, v in cx.items())
        rows.append(f"| `{name}` | `{fn.__name__}` | {sigs} | {cxs} | {doc} |")
    return "\n".join(rows) + "\n"


def write_readme(results):
    tools = ptxas_tools()
    text = README_HEAD.format(triton_version=triton.__version__, py=".".join(map(str, sys.version_info[:3])),
                              options=OPTIONS)
    text += kernel_rows()
    text += "\n## Instruction counts\n\n"
    text += ("Counted per instruction line (after an optional `@%p` guard) in the file: "
             + ", ".join(f"`{c}`" for c, _ in COUNTS) + ".\n\n")
    cols = ["file", "bytes", ".version"] + [c for c, _ in COUNTS]
    text += "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n"
    for fname, ptx, arch in results:
        c = count(ptx)
        ver = re.search(r"^\.version (\S+)", ptx, re.M).group(1)
        text += f"| `{fname}` | {len(ptx.encode())} | {ver} | " + " | ".join(str(c[k]) for k, _ in COUNTS) + " |\n"
    text += "\n## Tensor-core opcodes per file\n\n"
    for fname, ptx, arch in results:
        text += f"- `{fname}`: " + (", ".join(f"`{s}`" for s in shapes(ptx)) or "(none)") + "\n"
    text += "\n## wgmma / tcgen05.mma operand patterns\n\nRegister numbers shown as N, register lists as {%rN xCOUNT}.\n\n"
    for fname, ptx, arch in results:
        for pat in operand_patterns(ptx):
            text += f"- `{fname}`: `{pat}`\n"
    text += "\n## ptxas\n\n`<ptxas> -arch=sm_<arch>a FILE -o /dev/null`, with:\n\n"
    for label, path, ver in tools:
        text += f"- {label}: `{path}` — {ver}\n"
    text += "\n| file | " + " | ".join(l for l, _, _ in tools) + " |\n|---|" + "---|" * len(tools) + "\n"
    for fname, ptx, arch in results:
        path = os.path.join(OUT_DIR, fname)
        text += f"| `{fname}` | " + " | ".join(ptxas_ok(p, path, arch) for _, p, _ in tools) + " |\n"
    text += NOTES
    with open(os.path.join(OUT_DIR, "README.md"), "w") as f:
        f.write(text)
    return os.path.join(OUT_DIR, "README.md")


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    print(f"triton {triton.__version__}; options {OPTIONS}")
    failed = 0
    results = []
    for name, fn, signature, constexprs in KERNELS:
        for arch in ARCHS:
            fname = f"{name}.sm_{arch}.ptx"
            path = os.path.join(OUT_DIR, fname)
            try:
                ptx = compile_ptx(fn, signature, constexprs, arch)
            except Exception as e:  # record and continue; report at the end
                failed += 1
                print(f"FAILED {name} sm_{arch}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
                continue
            with open(path, "w") as f:
                f.write(ptx)
            results.append((fname, ptx, arch))
            c = count(ptx)
            print(f"wrote {os.path.relpath(path)} ({len(ptx)} bytes; " +
                  ", ".join(f"{k}={v}" for k, v in c.items() if v) + ")")
    print(f"wrote {os.path.relpath(write_readme(results))}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
