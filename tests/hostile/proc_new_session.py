# subprocess with start_new_session=True: `sleep 1000` and a Python child
# carrying the run's marker, detached from the job's session and process
# group. The main process exits 0; neither child may survive the job.
# expect: pass
# stdout: contains STARTED
# host: no-leftover
import subprocess
import sys
import time

subprocess.Popen(["sleep", "1000"], start_new_session=True, stdin=subprocess.DEVNULL,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)  # leftover-@MARKER@"],
                 start_new_session=True, stdin=subprocess.DEVNULL,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(0.3)
print("STARTED")
