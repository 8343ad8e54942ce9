#!/usr/bin/env bash
# Starts a throw-away single-node Slurm (munged, slurmctld, slurmd) as root,
# all state under DIR (default: a new temp dir), and waits until the node is
# idle. Prints DIR; `source DIR/env.sh` points sinfo/sbatch/srun at it, and
# tests/slurm/stop.sh DIR stops exactly the daemons started here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "start.sh: must run as root" >&2; exit 77; }
for b in munged slurmctld slurmd sinfo sbatch; do
  command -v "$b" > /dev/null || { echo "start.sh: $b not found (apt-get install slurm-wlm munge)" >&2; exit 77; }
done
dir=${1:-$(mktemp -d /tmp/sipsim-slurm.XXXXXX)}
mkdir -p "$dir"/{munge,state,spool,log}
chmod 700 "$dir/munge"
dir=$(cd "$dir" && pwd)
host=$(hostname -s)
cpus=$(nproc)
# Nine tenths of the memory, in MB (slurmd refuses a node with less than its RealMemory).
mem=$(awk '/^MemTotal:/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
# Ports away from the defaults (6817/6818), so that a site Slurm is not
# disturbed: the first free pair from 16817 (another test cluster may hold one).
in_use() { (exec 3<> "/dev/tcp/127.0.0.1/$1") 2> /dev/null; }
ctld_port=16817
while in_use "$ctld_port" || in_use $((ctld_port + 1)); do ctld_port=$((ctld_port + 2)); done
slurmd_port=$((ctld_port + 1))
sed -e "s|@HOST@|$host|g" -e "s|@CPUS@|$cpus|g" -e "s|@MEM@|$mem|g" -e "s|@DIR@|$dir|g" \
    -e "s|@CTLD_PORT@|$ctld_port|g" -e "s|@SLURMD_PORT@|$slurmd_port|g" \
    -e "s|@FIRST_JOB@|$(((ctld_port - 16817) * 50000 + 1))|g" \
    "$here/slurm.conf.in" > "$dir/slurm.conf"
cat > "$dir/env.sh" <<ENV
export SLURM_CONF=$dir/slurm.conf
ENV
export SLURM_CONF=$dir/slurm.conf

# munge: a fresh key, its own socket (slurm.conf's AuthInfo names it).
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1 count=1024 status=none
chmod 400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
  --seed-file="$dir/munge/munged.seed"
for _ in $(seq 50); do [ -S "$dir/munge/munge.socket" ] && break; sleep 0.1; done
[ -S "$dir/munge/munge.socket" ] || { echo "start.sh: munged did not start" >&2; cat "$dir/log/munged.log" >&2; exit 1; }

# -i: ignore saved state (a fresh cluster each time).
slurmctld -i -f "$dir/slurm.conf"
slurmd -f "$dir/slurm.conf"
for _ in $(seq 120); do
  state=$(sinfo -h -n "$host" -o %t 2> /dev/null || true)
  [ "$state" = idle ] && break
  # A daemon that could not start (a port in use, a bad config) says so at once.
  grep -q 'fatal:\|Address already in use' "$dir"/log/slurm*.log 2> /dev/null && break
  sleep 0.5
done
if [ "$state" != idle ]; then
  echo "start.sh: node $host is '${state:-unknown}', not idle" >&2
  tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
  "$here/stop.sh" "$dir"
  exit 1
fi
echo "$dir"
