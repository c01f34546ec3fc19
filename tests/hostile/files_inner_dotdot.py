# The request's `files` hides `..` inside the path: refused with bad_path.
# expect: error:bad_path
# files: {"a/../../inner-@MARKER@": "pwned"}
# host: marker-absent
print("must not run")
