#!/usr/bin/env bash
# Pending-event-set candidates on the hold model (bench/event_queue_bench.cpp).
# Usage: scripts/bench-queue.sh [build dir]   (default build/ci: the release
# preset builds no benchmark programs)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
exec "$build/bench/event_queue_bench" --benchmark_min_time=0.3 "${@:2}"
