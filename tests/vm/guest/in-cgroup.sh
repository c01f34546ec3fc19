#!/bin/sh
# in-cgroup.sh CGROUP_DIR PROGRAM [ARGS...]: moves itself into the cgroup,
# then becomes the program (the way systemd starts a unit's main process).
dir=$1
shift
echo $$ >"$dir/cgroup.procs" || exit 1
exec "$@"
