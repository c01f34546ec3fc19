# runtime_error: an uncaught exception
raise ValueError("deliberate")
