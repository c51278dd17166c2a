import os
from typing import Any, Dict, Iterable, Iterator, List, Literal, Mapping, Optional, Sequence, Union, overload

_Path = Union[str, "os.PathLike[str]"]
_Paths = Union[_Path, Iterable[_Path]]
_Names = Union[str, Iterable[str]]
_Level = Literal["error", "warning", "info"]

__version__: str

class SmcompatError(Exception):
    reason: str
    file: Optional[str]
    offset: Optional[int]
    def __init__(self, reason: str, file: Optional[str] = ..., offset: Optional[int] = ...) -> None: ...

class CheckFailed(SmcompatError):
    report: Optional["CheckReport"]
    findings: List["Finding"]
    def __init__(self, reason: str, report: Optional["CheckReport"] = ..., findings: Iterable["Finding"] = ...) -> None: ...

class _Record:
    def to_dict(self) -> Dict[str, Any]: ...

# ------------------------------------------------------------------ scan

class ReadError(_Record):
    what: str
    file: Optional[str]
    offset: Optional[int]

class ScanTarget(_Record):
    label: str
    cc: str
    gpu: Optional[str]
    driver_cuda: Optional[str]
    driver: Optional[str]

class ImageEntry(_Record):
    kind: str
    target: str
    section: str
    container_offset: int
    entry_offset: int
    in_container: bool
    compression: str
    stored_size: int
    uncompressed_size: int
    ptx_version: Optional[str]
    relocatable: bool
    debug: bool
    identifier: Optional[str]
    options: Optional[str]
    verdict: Optional[str]
    reason: Optional[str]
    kernels: Optional[List[Dict[str, Any]]]
    ptx_target: Optional[Any]
    ptx_entries: Optional[Any]
    decode_error: Optional[ReadError]

class LoadingUnit(_Record):
    section: str
    offset: int
    verdict: str
    bare: bool
    specialized_elsewhere: bool
    loadable: bool
    reason: str
    images: List[int]
    chosen: Optional[int]

class ScannedFile(_Record):
    path: str
    member: str
    package: str
    format: str
    size: int
    containers: int
    verdict: Optional[str]
    unit_counts: Optional[Dict[str, int]]
    specialized_elsewhere: Optional[int]
    prelink_units: Optional[int]
    jit_link: Optional[Dict[str, Any]]
    summary: str
    resource_warnings: List[Dict[str, Any]]
    entries: List[ImageEntry]
    units: List[LoadingUnit]
    errors: List[ReadError]
    warnings: List[ReadError]
    @property
    def name(self) -> str: ...
    @property
    def targets(self) -> List[str]: ...

class ScannedPackage(_Record):
    name: str
    version: str
    kind: str
    files: int
    images: int
    errors: int
    sass: List[str]
    ptx: List[str]
    lto: List[str]
    verdict: Optional[str]
    resource_warnings: int

class ScanReport(_Record):
    schema: str
    tool_version: str
    argv: List[str]
    prediction: bool
    stats: Dict[str, int]
    target: Optional[ScanTarget]
    files: List[ScannedFile]
    packages: List[ScannedPackage]
    errors: List[ReadError]
    @property
    def verdict(self) -> Optional[str]: ...

# ------------------------------------------------------------------ doctor

class Finding(_Record):
    severity: str
    id: str
    title: str
    evidence: List[str]
    fix: str
    fix_commands: List[str]
    subject: Optional[str]

class DriverInfo(_Record):
    state: str
    detail: str
    observed: bool
    version: Optional[str]
    cuda: Optional[str]
    kernel_module: Optional[str]
    kernel_module_line: str
    gpus: List[Dict[str, Any]]

class PythonEnv(_Record):
    prefix: str
    site_packages: str
    python_version: str
    kind: str
    found_by: str
    package_count: int
    gpu_packages: List[Dict[str, Any]]
    torch: Optional[Dict[str, Any]]
    warnings: List[str]

class PackageVerdict(_Record):
    env: str
    package: str
    version: str
    gpu: str
    cc: str
    fit: str
    predicted: bool
    targets: List[str]
    libraries: List[Dict[str, Any]]
    runtime_variant: Optional[Dict[str, Any]]

class DoctorReport(_Record):
    schema: str
    tool_version: str
    argv: List[str]
    driver: Optional[DriverInfo]
    targets: List[Dict[str, Any]]
    toolkits: List[Dict[str, Any]]
    libraries: List[Dict[str, Any]]
    envs: List[PythonEnv]
    verdicts: List[PackageVerdict]
    env_vars: Dict[str, str]
    host: Dict[str, Any]
    summary: Dict[str, int]
    findings: List[Finding]
    usage_errors: List[Any]
    @property
    def ok(self) -> bool: ...
    def findings_at_least(self, level: _Level = ...) -> List[Finding]: ...

# ------------------------------------------------------------------ explain

class ExplainMatch(_Record):
    id: str
    title: str
    line: int
    line_text: str
    matched: str
    cause: str
    confirm: List[str]
    fix: str
    fix_for: Optional[str]
    refs: List[str]
    reference: str
    on_this_machine: Optional[List[Finding]]

class Explanation(_Record):
    schema: str
    tool_version: str
    argv: List[str]
    doctor_consulted: bool
    matches: List[ExplainMatch]
    def __bool__(self) -> bool: ...

# ------------------------------------------------------------------ gpus

class Gpu(_Record):
    name: str
    aliases: List[str]
    cc: str
    sms: int
    boost_mhz: Optional[int]
    tensor_mhz: Optional[int]
    memory: str
    memory_gib: float
    bus_width_bits: Optional[int]
    bandwidth_gbs: Optional[float]
    l2_mb: Optional[float]
    nvlink_gbs: Optional[float]
    peak_tflops: Dict[str, float]
    tags: str
    source: str
    @property
    def sm(self) -> Optional[str]: ...

class GpuCatalog(_Record, Sequence[Gpu]):
    schema: str
    gpus: List[Gpu]
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Gpu]: ...
    @overload
    def __getitem__(self, index: int) -> Gpu: ...
    @overload
    def __getitem__(self, index: slice) -> List[Gpu]: ...

# ------------------------------------------------------------------ probe

class ProbeDevice(_Record):
    ordinal: int
    name: str
    uuid: str
    pci_bus_id: str
    cc: str
    nvml_cc: Optional[str]
    nvml_index: Optional[int]
    masquerade: bool
    sms: int
    memory_bytes: int
    smem_per_block: int
    smem_per_block_optin: int
    smem_per_sm: int
    reserved_smem_per_block: int
    l2_bytes: int
    clock_khz: int
    memory_clock_khz: int
    bus_width_bits: int
    bandwidth_gbs: Optional[Dict[str, Any]]
    threads_per_sm: int
    regs_per_sm: int
    blocks_per_sm: int
    cluster_launch: bool
    arch: Dict[str, Any]
    catalog_gpu: Optional[str]
    nvlink: Dict[str, Any]
    warnings: List[str]

class ProbeReport(_Record):
    schema: str
    tool_version: str
    argv: List[str]
    observed: bool
    status: str
    explanation: str
    cuda_error: Optional[int]
    libcuda: Dict[str, Any]
    nvml: Dict[str, Any]
    driver_version: Optional[str]
    driver_version_source: Optional[str]
    cuda_driver_version: Optional[int]
    nvml_cuda_driver_version: Optional[int]
    kernel_module: str
    kernel_module_line: Optional[str]
    cuda_visible_devices: Optional[str]
    devices: List[ProbeDevice]
    topology: Dict[str, Any]
    warnings: List[str]

# ------------------------------------------------------------------ check

class LoadedLibrary(_Record):
    path: str
    package: Optional[str]
    version: Optional[str]
    fit: Optional[str]
    best_image: Optional[str]
    targets: List[str]
    deleted: Optional[bool]
    no_kernels: Optional[bool]

class CheckReport(_Record):
    schema: str
    tool_version: str
    argv: List[str]
    pid: int
    maps: Any
    maps_read: Optional[bool]
    mapped_files: Any
    gpu: Optional[Dict[str, Any]]
    what_if: Optional[List[Dict[str, Any]]]
    driver: Dict[str, Any]
    torch: Optional[Dict[str, Any]]
    summary: Optional[Dict[str, int]]
    libraries: List[LoadedLibrary]
    findings: List[Finding]
    errors: List[Any]
    @property
    def ok(self) -> bool: ...
    def findings_at_least(self, level: _Level = ...) -> List[Finding]: ...
    def raise_for_findings(self, level: _Level = ...) -> "CheckReport": ...

# ------------------------------------------------------------------ functions

def scan(paths: _Paths, *, gpu: Optional[str] = ..., target: Optional[str] = ..., driver: Optional[str] = ...,
         deep: bool = ..., verbose: bool = ..., probe: bool = ..., jobs: int = ...,
         strict: bool = ...) -> ScanReport: ...
def doctor(gpus: _Names = ..., python: _Paths = ..., *, active: bool = ..., scan_code: bool = ...) -> DoctorReport: ...
def explain(text: str, *, doctor: bool = ..., gpus: _Names = ..., python: _Paths = ...,
            active: bool = ...) -> Explanation: ...
def gpus(name: Optional[str] = ...) -> GpuCatalog: ...
def probe(*, nvml: bool = ...) -> ProbeReport: ...
def check(*, gpus: _Names = ..., torch: Union[None, Literal["auto", "import"], Mapping[str, Any]] = ...,
          raise_on: Optional[_Level] = ..., pid: int = ...) -> CheckReport: ...
