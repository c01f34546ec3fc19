# The daemon's workers run at nice -10 so that a busy host cannot delay
# the watch that kills a job at its limits (sandboxd/server/worker.c).
# Whatever they start gets the normal priority back (SCHED_RESET_ON_FORK):
# a job that ran at nice -10 would take the CPU from every process on the
# host. It must find nice 0 for itself and its children, the normal
# policy, and no way to raise its priority.
# expect: pass
# stdout: contains PRIORITY-NORMAL
# stdout: not-contains RAISED
import os

seen = [os.getpriority(os.PRIO_PROCESS, 0), os.sched_getscheduler(0)]
pid = os.fork()
if pid == 0:
    os._exit(20 + os.getpriority(os.PRIO_PROCESS, 0))
seen.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) - 20)
try:
    os.setpriority(os.PRIO_PROCESS, 0, -1)
    print("RAISED to", os.getpriority(os.PRIO_PROCESS, 0))
except PermissionError:
    pass
try:
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    print("RAISED to SCHED_FIFO")
except PermissionError:
    pass
nice, policy, child = seen
ok = nice == 0 and child == 0 and policy == os.SCHED_OTHER
print("PRIORITY-NORMAL" if ok else "PRIORITY-WRONG", "nice", nice, "child", child, "policy", policy)
