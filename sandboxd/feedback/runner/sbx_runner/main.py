"""Start-up: take the key and close its fd before anything else happens, move
the result channel to a private fd, then run the job and always end with a
done record and exit status 0 (unless the channel itself is unusable).
A "main" job (a stdio case, a seeded plain run) reports nothing: its result
channel is closed and the program runs as `python3 main.py` would run it
(script.py); the daemon judges its exit and output."""

import fcntl
import os

from . import records
from .channel import (PRIVATE_FD_MIN, Channel, env_fd, fatal, flush_std,
                      key_ok, set_nondumpable, shadow_fd, take_key)
from .job import HarnessError, load_job

JOB_PATH = "/sandboxd/job.json"
TEST_ENV = ("SBX_RUNNER_JOB", "SBX_RUNNER_KEY_FD", "SBX_RUNNER_RESULT_FD",
            "SBX_RUNNER_PEER_FD")


def take_peer(job):
    """isolation "process": the candidate's socket (fd 5), moved to a private
    CLOEXEC fd like the result channel; None in the default mode."""
    if job.get("isolation") != "process" or job.get("format") == "compile":
        return None
    fd = env_fd("SBX_RUNNER_PEER_FD", 5)
    try:
        own = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, PRIVATE_FD_MIN)
    except OSError:
        return None
    os.close(fd)
    return own


def main():
    # The key first: read it and close its fd before anything else happens.
    key_fd = env_fd("SBX_RUNNER_KEY_FD", 4)
    res_fd = env_fd("SBX_RUNNER_RESULT_FD", 3)
    try:
        key = take_key(key_fd)
    except OSError as e:
        fatal("cannot read the key: %s" % e)
    if not key_ok(key):
        fatal("the key is not %d hex characters" % records.KEY_LEN)
    try:
        job = load_job(os.environ.get("SBX_RUNNER_JOB", JOB_PATH))
    except BaseException as e:      # reported once the channel is set up
        job = e
    if isinstance(job, dict) and job["format"] == "main":
        run_program(job, res_fd)
    try:
        out_fd = fcntl.fcntl(res_fd, fcntl.F_DUPFD_CLOEXEC, PRIVATE_FD_MIN)
    except OSError as e:
        fatal("no result channel: %s" % e)
    shadow_fd(res_fd)
    set_nondumpable()
    chan = Channel(out_fd, key)
    os.register_at_fork(after_in_child=chan.forked)
    runner = None
    try:
        if isinstance(job, BaseException):
            raise job
        from .core import Runner    # not needed by a "main" job: not imported
        peer_fd = take_peer(job)
        for k in TEST_ENV:
            os.environ.pop(k, None)
        runner = Runner(chan, job, peer_fd)
        runner.run()
    except HarnessError as e:
        chan.emit(records.harness_error(str(e)))
    except BaseException as e:       # a runner bug; say so, do not hide it
        import traceback
        if runner is not None:
            runner.disarm()
        chan.emit(records.harness_error(
            "runner internal error: " +
            "".join(traceback.format_exception(e))[-records.INTERNAL_CAP:]))
    chan.emit(records.done())
    flush_std()
    os._exit(0)


def run_program(job, res_fd):
    """A "main" job: nothing to report, so the channel is closed (the
    program finds the descriptors a plain run has); never returns."""
    try:
        os.close(res_fd)
    except OSError:
        pass
    for k in TEST_ENV:
        os.environ.pop(k, None)
    from . import script
    script.run_job(job)
