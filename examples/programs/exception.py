# runtime_error: an uncaught exception, with its traceback in stderr
def average(xs):
    return sum(xs) / len(xs)

print(average([]))
