# The request's `files` names a path that climbs out of the work dir: the
# request is refused with bad_path and nothing is written anywhere.
# expect: error:bad_path
# files: {"../escape-@MARKER@": "pwned"}
# host: marker-absent
print("must not run")
