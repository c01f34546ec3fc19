# A fetch_files path that climbs out of /work is refused with the request,
# before anything runs.
# expect: error:bad_path
# fetch: ["../../root/sbx-secret-@MARKER@"]
# host: daemon-alive
print("never runs")
