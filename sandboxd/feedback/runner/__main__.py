"""Entry point of the runner bundle (runner.pyz); see sbx_runner/__init__.py.
`runner.pyz candidate` is the candidate process of isolation "process"
(sbx_runner/candidate.py). Started as a fork server (sbx_runner/warm.py),
it returns from serve() in each job's child and goes on as a cold runner
would."""
import sys

if sys.argv[1:] == ["candidate"]:
    from sbx_runner.candidate import candidate_main
    candidate_main()
else:
    from sbx_runner import warm
    if warm.is_server():
        warm.serve()
    from sbx_runner.main import main
    main()
