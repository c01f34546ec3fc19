# `files` tries to replace the program itself (main.py is reserved).
# expect: error:bad_path
# files: {"main.py": "print('replaced')"}
# host: marker-absent
# host: daemon-alive
print("must not run")
