# fetch_files of files too large to return: a sparse file claiming 60 MB (a
# few pages on the tmpfs) and enough real ones to pass the fetch limit in
# all. The sparse one is refused from its size without being read; of the
# real ones, those past the total are refused; the response stays bounded.
# expect: pass
# limits: {"tmpfs_mb": 64, "memory_mb": 256}
# fetch: ["sparse", "a", "b", "c", "small"]
# fetched: sparse error
# fetched: small = tiny
# fetched: c error
# host: fetch-clean
# host: daemon-alive
import os

os.chdir("/work")
with open("sparse", "wb") as f:
    f.truncate(60 << 20)
for name in ("a", "b", "c"):
    with open(name, "wb") as f:
        f.write(b"z" * (7 << 20))
open("small", "w").write("tiny")
