#!/usr/bin/env bash
# Stops the daemons tests/slurm/start.sh DIR started, by the pids they wrote
# under DIR (never by name), and waits for them to end.
set -u
dir=${1:?usage: stop.sh DIR}
for f in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
  [ -s "$f" ] || continue
  pid=$(cat "$f")
  kill -0 "$pid" 2> /dev/null || continue
  # slurmd first: it may still be ending job steps.
  kill -TERM "$pid" 2> /dev/null
  for _ in $(seq 100); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2> /dev/null && kill -KILL "$pid" 2> /dev/null
done
exit 0
