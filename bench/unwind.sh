#!/usr/bin/env bash
# DWARF unwinding: pcl report against perf report on --call-graph dwarf
# recordings of a program without frame pointers (Debian's python3 running
# bench/report.sh's pure-Python benchmark), about SAMPLES (default 100000)
# samples, one file from perf record and one from pcl record, kept in
# $BENCH_DIR (default /tmp/pcl-bench; about 1 GB each with the default 8 KiB
# stack copies) and reused unless RERECORD=1. Printed, not asserted; not
# part of `make check`. The aim: at least 10 times faster than perf report,
# with no more memory.
#
#   bench/unwind.sh [BUILD]        BUILD defaults to build/
#   N=1 SAMPLES=20000 bench/unwind.sh
#
# Cases (the table is bench/report.sh's, which this runs):
#   children     the default report: children, with call graphs
#   no-children  --no-children, with call graphs
# perf runs with --no-inline, so that both print the same report (pcl has
# no inline frames yet; perf's default adds them, and takes longer).
# (The srcline helper adds its `--sort srcline` case to MODES here, and to
# the mode's options in bench/report.sh's run().)
# FREQ (default 4000 Hz), COPIES, DUR, PYTHON change the recording as in
# bench/report.sh; the stack copy is perf's default (8192 bytes).
cd "$(dirname "$0")/.." || exit 1
export TAG=dwarf REC_CG="--call-graph dwarf" PERF_OPTS=--no-inline
export SAMPLES=${SAMPLES:-100000} FREQ=${FREQ:-4000}
export MODES=${MODES:-"children no-children"}
exec bench/report.sh "$@"
