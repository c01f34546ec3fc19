# A control character (newline) in a `files` path: refused with bad_path.
# expect: error:bad_path
# files: {"a\nb-@MARKER@": "pwned"}
# host: marker-absent
print("must not run")
