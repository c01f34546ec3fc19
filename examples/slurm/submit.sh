#!/bin/bash
# Queues a sharded `sbx eval`: an array of N tasks (sbx-eval.sbatch, one shard
# each) and the merge step (sbx-merge.sbatch) that waits for all of them with
# --dependency=afterok. Prints "ARRAY_JOB_ID MERGE_JOB_ID".
#
#   submit.sh N [sbatch options for the array...]
#
# The SBX_* settings of sbx-eval.sbatch come from the environment (exported
# to both jobs); e.g.
#
#   SBX_OUT=/shared/runs/he SBX_DATASET=/shared/HumanEval.jsonl.gz \
#   SBX_FORMAT=humaneval SBX_GENERATOR='python3 /shared/gen.py' \
#   SBX_SETTINGS='CF_EF_FULL CF_EF_UNIT' SBX_TURNS=3 \
#     examples/slurm/submit.sh 8 --partition=cpu --cpus-per-task=4
#
# SBX_MERGE_ARGS: sbatch options for the merge step alone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] && [[ $1 =~ ^[1-9][0-9]*$ ]] || {
	echo "usage: submit.sh N [sbatch options for the array...]" >&2
	exit 2
}
n=$1
shift
: "${SBX_OUT:?set SBX_OUT to a directory every node can write}"
mkdir -p "$SBX_OUT"
array=$(sbatch --parsable --array="0-$((n - 1))" --chdir="$SBX_OUT" "$@" \
	"$here/sbx-eval.sbatch")
array=${array%%;*} # "ID;CLUSTER" on federated setups
# shellcheck disable=SC2086 # word splitting of the option list is wanted
merge=$(SBX_SHARDS=$n sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
	--chdir="$SBX_OUT" ${SBX_MERGE_ARGS:-} "$here/sbx-merge.sbatch")
echo "${array} ${merge%%;*}"
