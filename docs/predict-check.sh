#!/bin/sh
# predict-check.sh — the measurements behind docs/predict.md: native sweeps
# at 1…32 workers on one core (taskset -c 0) and on two, for the normal and
# the PI mutex, three times each (the repeats give the measurement floor),
# the threads backend's sweeps beside them, then `gcbench predict` three
# times against all of them. Run it on a quiet 2-core Linux machine with gcc
# (the native backend needs cgo): nothing else running, as the calibration
# and the sweeps time the kernel's wakes.
#
#   sh docs/predict-check.sh [OUT]        # OUT defaults to ./predict-check
#
# Everything lands in OUT: the points (n2_R, n1_R: native on 2 cores and on
# core 0, repeat R; t2, t1: threads), predict-R.txt (the check's three runs)
# and log.txt (each step's start and the 1-minute load before it). Re-running
# resumes: a sweep skips the points it already saved. At the end it prints
# the four verdict lines (check 1 to check 4) of each predict run, the
# block docs/predict.md's "Verdicts from docs/predict-check.sh" holds.
#
# Sizes can be overridden from the environment (the defaults below keep
# the whole script to about 20 minutes on 2 cores, load waits included):
#   WORKERS=1,2,4,8,16,32 GCS=100 WARMUP=10 MAJOR=256MiB LOS=128MiB REPEATS=3
# and LOAD_TIMEOUT=600: before each step it waits up to that many seconds
# for the 1-minute load to fall under 1, and logs how long it waited.
set -eu

OUT=${1:-predict-check}
WORKERS=${WORKERS:-1,2,4,8,16,32}
GCS=${GCS:-100}
WARMUP=${WARMUP:-10}
MAJOR=${MAJOR:-256MiB}
LOS=${LOS:-128MiB}
REPEATS=${REPEATS:-3}
LOAD_TIMEOUT=${LOAD_TIMEOUT:-600}

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/.."
go build -o "$OUT/gcbench" ./cmd/gcbench
G="$OUT/gcbench"

# step NAME: waits up to LOAD_TIMEOUT seconds for the 1-minute load to fall
# under 1 (each step's own threads leave the next one a load of 2 or more),
# then logs the step with the load it starts at, and how long it waited or
# that it gave up.
step() {
	waited=0
	while [ "$(cut -d' ' -f1 /proc/loadavg | cut -d. -f1)" -ge 1 ] && [ "$waited" -lt "$LOAD_TIMEOUT" ]; do
		sleep 10
		waited=$((waited + 10))
	done
	note=""
	[ "$waited" -gt 0 ] && note=" (after waiting ${waited} s)"
	[ "$(cut -d' ' -f1 /proc/loadavg | cut -d. -f1)" -ge 1 ] && note=" (load still 1 or more after ${waited} s: measured anyway)"
	printf '%s  load %s  %s%s\n' "$(date -u +%H:%M:%S)" "$(cut -d' ' -f1 /proc/loadavg)" "$*" "$note" | tee -a "$OUT/log.txt"
}

sweep() { # sweep CORES DIR BACKEND [FLAGS...]: CORES 1 runs it under taskset -c 0
	cores=$1 dir=$2 backend=$3
	shift 3
	pin=""
	[ "$cores" = 1 ] && pin="taskset -c 0"
	# shellcheck disable=SC2086 # pin is a command prefix or nothing
	$pin "$G" sweep --dir "$OUT/$dir" --backend "$backend" "$@" --wake broadcast --workers "$WORKERS" \
		--modes serial,perjob,batch --major-heap "$MAJOR" --los "$LOS" --gcs "$GCS" --warmup "$WARMUP"
}

r=1
while [ "$r" -le "$REPEATS" ]; do
	step "native sweep, 2 cores, repeat $r"
	sweep 2 "n2_$r" native --mutex normal,pi
	step "native sweep, core 0, repeat $r"
	sweep 1 "n1_$r" native --mutex normal,pi
	r=$((r + 1))
done
step "threads sweep, 2 cores (beside the check)"
sweep 2 t2 threads
step "threads sweep, core 0 (beside the check)"
sweep 1 t1 threads

dirs=""
r=1
while [ "$r" -le "$REPEATS" ]; do
	dirs="$dirs --dir $OUT/n2_$r --dir $OUT/n1_$r"
	r=$((r + 1))
done
for run in 1 2 3; do
	step "predict, run $run"
	# shellcheck disable=SC2086 # dirs is a list of flags
	"$G" predict $dirs --dir "$OUT/t2" --dir "$OUT/t1" | tee "$OUT/predict-$run.txt"
done
printf '%s  load %s  done\n' "$(date -u +%H:%M:%S)" "$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$OUT/log.txt"

echo
echo "Verdicts from docs/predict-check.sh ($(date -u +'%d %b %Y'), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) CPUs):"
for run in 1 2 3; do
	echo "predict-$run.txt:"
	grep '^check [1-4] ' "$OUT/predict-$run.txt" || echo "(no verdict lines)"
done
