# `.` and empty components in a `files` path: refused with bad_path.
# expect: error:bad_path
# files: {"ok.txt": "fine", "./a//dot-@MARKER@": "pwned"}
# host: marker-absent
print("must not run")
