# parity probe: KeyboardInterrupt raised at top level: Python 3.8+ ends the
# process by SIGINT (the response's signal) after printing the traceback.
print("before KeyboardInterrupt")


def probe():
    pass


raise KeyboardInterrupt
