#!/usr/bin/env python3
"""Validates every line of a traces.jsonl against docs/traces.schema.json.

Usage: check_traces.py SCHEMA TRACES.jsonl

Exit 0: every line is valid (prints how many); 1: a line is not (prints
which and why); 77: python3-jsonschema is not installed (the caller skips,
naming the reason). Needs Debian's python3-jsonschema (make deps)."""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed (make deps installs it)")
    sys.exit(77)


def main():
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    n = 0
    with open(sys.argv[2]) as f:
        for i, line in enumerate(f, 1):
            errors = sorted(validator.iter_errors(json.loads(line)), key=str)
            if errors:
                e = errors[0]
                print("line %d: %s at %s" % (i, e.message, "/".join(map(str, e.path))))
                return 1
            n += 1
    print("%d traces valid" % n)
    return 0 if n else 1


if __name__ == "__main__":
    sys.exit(main())
