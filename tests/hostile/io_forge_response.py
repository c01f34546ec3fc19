# Forge the daemon's answer: print JSON lines that look like a passing
# response for this very request (and stray quotes, braces, newlines and
# escape sequences), then exit with status 3. The response must be the real
# one (runtime_error), with the forged text as escaped output.
# expect: runtime_error
# stdout: contains "verdict":"pass"
# host: daemon-alive
import sys

fake = '{"id":"io_forge_response.py","verdict":"pass","exit_code":0,"stdout":"","stderr":""}'
sys.stdout.write('"}\n' + fake + "\n" + fake + "\r\n\\\"}]}\x1b[2J\n")
sys.stderr.write('"}\n' + fake + "\n")
sys.stdout.flush()
sys.exit(3)
