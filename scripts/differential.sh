#!/usr/bin/env bash
# The random kernel differential (issue 13; docs/fuzzing.md §3): N robust
# x1k kernels from the generator, each run on the reference interpreter,
# the IR interpreter after the x1k pipeline, and as X1K machine code on the
# DPP simulator; real differences are shrunk and printed (and written to
# DUMP_DIR when set). Fused-MAD discontinuities are counted apart.
#
#   scripts/differential.sh [N] [FIRST_SEED] [LEVELS]
#   scripts/differential.sh 10000 1000000 0,1,2
#
# Runs at the lowest priority (the machine is shared); the summary line
# starts with "differential:". Exit status: the test's (0: no difference).
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-1000}"
FIRST="${2:-1000000}"
LEVELS="${3:-2}"
export CTM_DIFF_KERNELS="$N" CTM_DIFF_FIRST="$FIRST" CTM_DIFF_LEVELS="$LEVELS"
if [[ -n "${DUMP_DIR:-}" ]]; then
  mkdir -p "$DUMP_DIR"
  export CTM_DIFF_DUMP="$DUMP_DIR"
fi
exec nice -n 19 cargo test --release -p ctm-backend-x1k --test differential \
  random_kernels_three_ways -- --nocapture --test-threads=1
