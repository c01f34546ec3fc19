"""Typed views of sandboxd's responses (docs/protocol.md, "Responses").

Every class is a dataclass built from the response's JSON by `from_dict`,
which takes the keys it knows and ignores the rest, so a newer daemon that
adds keys does not break an older client; the whole response stays in
`Result.raw`.
"""
import base64
from dataclasses import dataclass, field, fields
from typing import Any, Dict, List, Optional

VERDICTS = ("pass", "fail", "compile_error", "runtime_error", "timeout", "memory_limit",
            "output_limit", "violation", "error")
OUTCOMES = ("passed", "failed", "error", "timeout", "skipped")


def _pick(cls, d):
    """The keys of d that are fields of cls (a dataclass)."""
    if not isinstance(d, dict):
        return {}
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in d.items() if k in names}


@dataclass
class Limits:
    """Request limits (docs/protocol.md, the limits table); None = the profile's default.
    The response's `limits` (the values applied) uses the same class."""
    cpu_ms: Optional[int] = None
    wall_ms: Optional[int] = None
    memory_mb: Optional[int] = None
    pids: Optional[int] = None
    output_kb: Optional[int] = None
    tmpfs_mb: Optional[int] = None
    cpus: Optional[int] = None
    case_cpu_ms: Optional[int] = None
    case_wall_ms: Optional[int] = None

    def to_dict(self) -> Dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) is not None}

    @classmethod
    def from_dict(cls, d) -> "Limits":
        return cls(**_pick(cls, d))


@dataclass
class Usage:
    cpu_ms: int = 0
    wall_ms: int = 0
    memory_kb: int = 0

    @classmethod
    def from_dict(cls, d) -> "Usage":
        return cls(**_pick(cls, d))


@dataclass
class Violation:
    syscall: str = ""
    nr: int = -1

    @classmethod
    def from_dict(cls, d) -> Optional["Violation"]:
        return cls(**_pick(cls, d)) if isinstance(d, dict) else None


@dataclass
class CompileError:
    type: str = ""
    message: str = ""
    line: Optional[int] = None
    column: Optional[int] = None
    text: Optional[str] = None


@dataclass
class Compile:
    ok: bool = True
    errors: List[CompileError] = field(default_factory=list)

    @classmethod
    def from_dict(cls, d) -> Optional["Compile"]:
        if not isinstance(d, dict):
            return None
        errs = [CompileError(**_pick(CompileError, e)) for e in d.get("errors") or []
                if isinstance(e, dict)]
        return cls(ok=bool(d.get("ok")), errors=errs)


@dataclass
class TestOutcome:
    """One test of a test request: `outcome` is one of OUTCOMES."""
    name: str = ""
    outcome: str = ""
    message: str = ""
    traceback: str = ""
    duration_ms: int = 0

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"


@dataclass
class Summary:
    total: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    timeouts: int = 0
    skipped: int = 0

    @classmethod
    def from_dict(cls, d) -> Optional["Summary"]:
        return cls(**_pick(cls, d)) if isinstance(d, dict) else None


@dataclass
class Feedback:
    """The text a model sees: `compilation` and `execution`."""
    compilation: str = ""
    execution: str = ""

    @classmethod
    def from_dict(cls, d) -> Optional["Feedback"]:
        return cls(**_pick(cls, d)) if isinstance(d, dict) else None


@dataclass
class Integrity:
    bad_records: int = 0
    extra_tests: int = 0

    @classmethod
    def from_dict(cls, d) -> Optional["Integrity"]:
        return cls(**_pick(cls, d)) if isinstance(d, dict) else None


@dataclass
class Timing:
    """Phase durations in microseconds (docs/protocol.md, "Timing"). A phase
    the daemon did not see is None, never 0."""
    accept_us: Optional[int] = None
    queue_us: Optional[int] = None
    setup_host_us: Optional[int] = None
    setup_jail_us: Optional[int] = None
    start_us: Optional[int] = None
    user_code_us: Optional[int] = None
    tests_us: Optional[int] = None
    exit_us: Optional[int] = None
    run_us: Optional[int] = None
    teardown_us: Optional[int] = None
    response_us: Optional[int] = None
    total_us: Optional[int] = None
    runs: Optional[int] = None

    @classmethod
    def from_dict(cls, d) -> Optional["Timing"]:
        return cls(**_pick(cls, d)) if isinstance(d, dict) else None


@dataclass
class Error:
    """An error response's `error` (`code` from docs/protocol.md's table, or
    one of the client's own: `unavailable`, no endpoint answered in time;
    `busy` after the busy retries ran out)."""
    code: str = ""
    message: str = ""


@dataclass
class Result:
    """One request's answer. `error` is set (and `verdict` None) when the
    request was refused; `ok` tells which. `request_id` is the id the caller
    gave ("" without one); `endpoint` the daemon that answered, `attempts`
    how many times the request was sent (busy retries and fail-overs
    included), and `index` the request's position in run_many's input.
    `files` holds the bytes of the files `fetch_files` asked for, and
    `file_errors` why one could not be fetched (daemons that have them)."""
    request_id: str = ""
    verdict: Optional[str] = None
    exit_code: Optional[int] = None
    signal: Optional[int] = None
    stdout: str = ""
    stderr: str = ""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    usage: Usage = field(default_factory=Usage)
    limits: Limits = field(default_factory=Limits)
    limit_hit: Optional[str] = None
    violation: Optional[Violation] = None
    message: str = ""
    enforcement: Dict[str, str] = field(default_factory=dict)
    path: Optional[str] = None
    compile: Optional[Compile] = None
    tests: List[TestOutcome] = field(default_factory=list)
    summary: Optional[Summary] = None
    feedback: Optional[Feedback] = None
    integrity: Optional[Integrity] = None
    timing: Optional[Timing] = None
    files: Dict[str, bytes] = field(default_factory=dict)
    file_errors: Dict[str, str] = field(default_factory=dict)
    error: Optional[Error] = None
    endpoint: str = ""
    attempts: int = 0
    index: int = -1
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        """True when the daemon ran the job (whatever the verdict)."""
        return self.error is None

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    @classmethod
    def from_dict(cls, d: Dict[str, Any], request_id: str = "", endpoint: str = "",
                  attempts: int = 0) -> "Result":
        err = d.get("error")
        if isinstance(err, dict):
            return cls(request_id=request_id, error=Error(str(err.get("code", "")),
                                                          str(err.get("message", ""))),
                       endpoint=endpoint, attempts=attempts, raw=d)
        simple = _pick(cls, d)
        for k in ("usage", "limits", "violation", "compile", "tests", "summary", "feedback",
                  "integrity", "timing", "error", "files", "file_errors"):
            simple.pop(k, None)
        got, why = {}, {}
        for path, v in (d.get("files") or {}).items() if isinstance(d.get("files"), dict) else ():
            if isinstance(v, dict) and isinstance(v.get("base64"), str):
                try:
                    got[path] = base64.b64decode(v["base64"], validate=True)
                except ValueError:
                    why[path] = "the response's base64 does not decode"
            elif isinstance(v, dict):
                why[path] = str(v.get("error", ""))
        simple["files"], simple["file_errors"] = got, why
        simple["stdout"] = simple.get("stdout") or ""
        simple["stderr"] = simple.get("stderr") or ""
        simple["message"] = simple.get("message") or ""
        simple["enforcement"] = simple.get("enforcement") or {}
        return cls(request_id=request_id, endpoint=endpoint, attempts=attempts, raw=d,
                   usage=Usage.from_dict(d.get("usage")),
                   limits=Limits.from_dict(d.get("limits")),
                   violation=Violation.from_dict(d.get("violation")),
                   compile=Compile.from_dict(d.get("compile")),
                   tests=[TestOutcome(**_pick(TestOutcome, t)) for t in d.get("tests") or []
                          if isinstance(t, dict)],
                   summary=Summary.from_dict(d.get("summary")),
                   feedback=Feedback.from_dict(d.get("feedback")),
                   integrity=Integrity.from_dict(d.get("integrity")),
                   timing=Timing.from_dict(d.get("timing")), **simple)


@dataclass
class Ping:
    version: str = ""
    workers: int = 0
    queued: int = 0
    running: int = 0
    memory_budget_mb: int = 0
    memory_admitted_mb: int = 0
    endpoint: str = ""

    @classmethod
    def from_dict(cls, d, endpoint: str = "") -> "Ping":
        return cls(endpoint=endpoint, **_pick(cls, {k: v for k, v in d.items()
                                                    if k != "endpoint"}))
