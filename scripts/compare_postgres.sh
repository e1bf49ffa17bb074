#!/usr/bin/env bash
# bloomroute against PostgreSQL 15 in one run, on the same machine and the
# same table (`make compare`): starts a throwaway PostgreSQL cluster (default
# settings, loopback) and `bloomroute local --servers 4`, loads GeoNames
# cities500 into both, checks that every sampled lookup returns identical rows
# on both, and prints a Markdown table of latencies (p50, p99), throughput and
# load time with their ratios (scripts/compare_postgres.py says what and how).
# Usage: scripts/compare_postgres.sh BUILD_DIR [compare_postgres.py options]
# (--help lists them: seed, samples, calls, client processes, seconds).
#
# Needs the bloomroute program and the generated Python client
# (BUILD_DIR/python: the bloomroute_thrift_py target), and Debian's
# postgresql-15, python3-psycopg2 and python3-thrift
# (scripts/install-deps.sh --compare). Run as root, PostgreSQL runs as the
# postgres user (initdb refuses root). Everything, the clusters' data
# included, lives in a temporary directory removed at the end; PG_BIN
# (default /usr/lib/postgresql/15/bin) names PostgreSQL's programs. Exits 1
# when the rows differ or a step fails, 2 on bad usage.
set -euo pipefail

build_dir=${1:?usage: scripts/compare_postgres.sh BUILD_DIR [options]}
shift
bloomroute="$build_dir/tools/bloomroute"
python_dir="$build_dir/python"
pg_bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
scripts=$(dirname "$0")
python=/usr/bin/python3

fail() { echo "compare: $*" >&2; exit 1; }
[ -x "$bloomroute" ] || fail "$bloomroute is not built"
[ -d "$python_dir/bloomroute" ] ||
  fail "$python_dir has no generated client (build the bloomroute_thrift_py target)"
[ -x "$pg_bin/initdb" ] ||
  fail "no $pg_bin/initdb (scripts/install-deps.sh --compare installs PostgreSQL 15)"
"$python" -c 'import psycopg2, thrift.protocol.fastbinary' 2>/dev/null ||
  fail "$python lacks psycopg2 or thrift's fastbinary (scripts/install-deps.sh --compare)"

for arg in "$@"; do
  case $arg in
    -h | --help)
      PYTHONPATH="$python_dir" exec "$python" "$scripts/compare_postgres.py" --help ;;
  esac
done

data=$("$scripts/cities500.sh")

# ---- A temporary directory, and what stops everything ----
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bloomroute-compare.XXXXXX")
pg_data="$tmp/pg/data"
cluster_pid=""
pg_started=""
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || fail "running as root needs a postgres user"
  as_pg=(runuser -u postgres --)
else
  as_pg=()
fi
# PostgreSQL's programs, as its user, from a directory that user may enter.
pg() { (cd "$tmp" && "${as_pg[@]}" "$pg_bin/$1" "${@:2}"); }
cleanup() {
  if [ -n "$pg_started" ]; then
    pg pg_ctl -D "$pg_data" stop -m fast >/dev/null 2>&1 || true
  fi
  if [ -n "$cluster_pid" ] && kill -0 "$cluster_pid" 2>/dev/null; then
    kill -TERM "$cluster_pid"
    wait "$cluster_pid" || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- PostgreSQL: a cluster of its own, default settings ----
# The postgres user must reach its directory (mktemp makes it 0700).
chmod 711 "$tmp"
mkdir -p "$tmp/pg"
[ "$(id -u)" -ne 0 ] || chown postgres "$tmp/pg"
pg_port=$("$python" -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# UTF-8 (the file is) and the C locale (byte order, as bloomroute's keys);
# trust on loopback: the cluster lives for this run only.
pg initdb -D "$pg_data" -U compare -E UTF8 --locale=C \
  --auth=trust >"$tmp/initdb.log" 2>&1 ||
  { cat "$tmp/initdb.log" >&2; fail "initdb failed"; }
pg_started=1
pg pg_ctl -D "$pg_data" -l "$tmp/pg/server.log" -w \
  -o "-p $pg_port -k $tmp/pg -c listen_addresses=127.0.0.1" start >/dev/null ||
  { cat "$tmp/pg/server.log" >&2; fail "PostgreSQL did not start"; }
echo "compare: PostgreSQL on 127.0.0.1:$pg_port"

# ---- bloomroute: a router and 4 region servers ----
log="$tmp/local.log"
"$bloomroute" local --data "$tmp/cluster" --servers 4 --port 0 >"$log" 2>&1 &
cluster_pid=$!
router=""
for _ in $(seq 1 300); do
  router=$(sed -n 's/^bloomroute local: router on \([^,]*\),.*/\1/p' "$log")
  [ -n "$router" ] && break
  kill -0 "$cluster_pid" 2>/dev/null ||
    { cat "$log" >&2; fail "bloomroute local exited before it served"; }
  sleep 0.1
done
[ -n "$router" ] || { cat "$log" >&2; fail "no router after 30 s"; }
echo "compare: bloomroute router on $router"

# ---- Load, check, measure ----
pg_pid=$(head -n 1 "$pg_data/postmaster.pid")
PYTHONPATH="$python_dir" "$python" "$scripts/compare_postgres.py" \
  --bloomroute "$bloomroute" --router "$router" --pg-port "$pg_port" \
  --pg-pid "$pg_pid" --bloomroute-pid "$cluster_pid" \
  --data "$data" --log-dir "$tmp" "$@"
