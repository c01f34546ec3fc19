# The request's `files` names an absolute path: refused with bad_path.
# expect: error:bad_path
# files: {"/tmp/abs-@MARKER@": "pwned"}
# host: marker-absent
print("must not run")
