# timeout, limit_hit wall (under --wall 1); also the long-running job whose
# cgroup files the plan reads, and the job a SIGKILLed daemon leaves behind
import time
time.sleep(1000)
