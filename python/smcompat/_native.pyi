"""smcompat._native: the native library lib/libsmcompat_py.so through its C ABI (ctypes). Every
function returns the JSON text of the document the CLI prints with --json (computed with the GIL
released); errors raise Failure."""

from typing import List, Optional, Tuple

class Failure(Exception):
    """args: (what: str, file: str | None, offset: int | None)"""
    args: tuple  # (str, Optional[str], Optional[int])

def version() -> str: ...
def scan(paths: List[str], gpu: str, target: str, driver: str, deep: bool, verbose: bool,
         probe: bool, jobs: int, strict: bool) -> str: ...
def doctor(gpus: List[str], pythons: List[str], discover_active: bool, scan_code: bool) -> str: ...
def explain(text: str, doctor: bool, gpus: List[str], pythons: List[str],
            discover_active: bool) -> str: ...
def gpus(query: str) -> str: ...
def probe(use_nvml: bool) -> str: ...
def check(pid: int, gpus: List[str], torch: str, text: bool) -> Tuple[str, str]:
    """(the smcompat.check/1 JSON text, the text report or "" unless text)"""
