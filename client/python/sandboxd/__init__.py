"""sandboxd's Python client (standard library only).

    from sandboxd import Client
    with Client() as c:                       # /run/sandboxd.sock, or $SBX_SOCKET
        r = c.run("print(1)")
        print(r.verdict, r.stdout, r.usage.cpu_ms)

See client.py for the delivery rules (one result per request, fail-over,
busy retry), aio.py for asyncio, adapters.py for harness drop-ins.
"""
from .adapters import check_correctness, evalplus_untrusted_check, untrusted_check
from .aio import AsyncClient, arun, arun_many
from .client import Client, SandboxdError, build_request
from .results import (Compile, CompileError, Error, Feedback, Integrity, Limits, Ping, Result,
                      Summary, TestOutcome, Timing, Usage, Violation)
from .transport import EndpointDown

__version__ = "0.1.0"
__all__ = ["Client", "AsyncClient", "arun", "arun_many", "SandboxdError", "EndpointDown",
           "build_request", "check_correctness", "untrusted_check", "evalplus_untrusted_check", "Result", "Ping", "Limits",
           "Usage", "Violation", "Compile", "CompileError", "TestOutcome", "Summary",
           "Feedback", "Integrity", "Timing", "Error"]
