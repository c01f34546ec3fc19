"""sandboxd in-jail test runner.

Started by the daemon as `/usr/bin/python3 -B /sandboxd/runner.py`, cwd /work,
unprivileged, no network, under seccomp.  That file is this package bundled
into one zip archive (a zipapp: __main__.py at its root, this package beside
it), built by sandboxd/feedback/runner/build_pyz.py; Python runs a zip file
given as the script path, whatever its name, and never writes bytecode for
it, so the read-only root is fine.  It compiles and runs one job of untrusted
Python and reports what happened as JSON lines on the result channel.

Inputs
  /sandboxd/job.json  {"format": "unittest"|"humaneval"|"asserts"|"compile",
                       "code": str, "tests": str | [str] | null,
                       "entry_point": str|null, "test_timeout_ms": int|null,
                       "seed": int|null, "filename": "solution.py"
                       [, "isolation": "process"]}
  fd 4                32 hex characters (the key), then EOF
  fd 3                write end of the result pipe
  fd 5                isolation "process" only: the stream socket to the
                      candidate process
  (SBX_RUNNER_JOB, SBX_RUNNER_KEY_FD, SBX_RUNNER_RESULT_FD, SBX_RUNNER_PEER_FD
  override these for the runner's own tests; the daemon does not set them.)

`runner.py candidate` is the other process of isolation "process": fd 3 is
its end of the socket (SBX_CANDIDATE_FD overrides it in tests); it has no
key and no result channel, executes the candidate's code and answers the
grader's calls with data (candidate.py, wire.py, isolate.py).

Records, one compact JSON object per line, each with "key", in this order
(names and caps: common/records.h; the protocol: docs/protocol.md):
  compile  {ok, errors: [{type, message, line, column, text}], feedback}
  plan     {tests: [names]}                  (before any candidate code runs)
  start    {name[, extra]}                   per test, then
  result   {name, outcome, message, traceback, duration_ms[, extra][, subtest]}
           outcome: passed | failed | error | timeout | skipped
  note     {message[, traceback]}            e.g. a failing tearDownClass
  module_error  {message, traceback}         executing the module raised
  harness_error {message}                    the job itself is unusable
  done     {}                                nothing follows; exit status 0
A test with a start and no result, or a run without done, did not finish:
the daemon counts it as an error.  Records are written with os.write on a
private CLOEXEC duplicate of fd 3, so stdout and stderr (the candidate's)
never carry them, and a candidate closing fd 3 does not silence the runner.
By default candidate code runs in this process and can interfere on purpose
(it can find the key in memory); that is documented, not defended here.
With isolation "process" no candidate code runs in this process.

Modules, one concern each:
  records_h      the protocol's names and caps (generated from records.h)
  records        the records themselves, built from those names
  channel        the result channel: the key, the private fd, fork safety
  text           messages: exception summaries, caps, syntax errors
  frames         which traceback frames a model sees; the runner's own files
  job            reading and checking /sandboxd/job.json
  seeding        random and numpy seeding
  watchdog       the per-test timeout (SIGALRM) and the harness guard
  compile_step   compiling the candidate, and the module with its tests
  fmt_asserts, fmt_humaneval, fmt_unittest   one module per format
  core           one test's life, and the job from compile to done
  isolate        isolation "process": the grader's side (proxies, the calls)
  candidate      isolation "process": the candidate process
  wire           the data-only serializer and framing between the two
  main           start-up: fds, isolation, then the job
"""
