#!/usr/bin/python3
"""bloomroute against PostgreSQL 15, side by side, on the same table.

scripts/compare_postgres.sh starts both servers (a `bloomroute local` cluster
with 4 region servers and a throwaway PostgreSQL cluster with default
settings) and runs this helper, which:

1. loads the GeoNames cities500 file into both: PostgreSQL with COPY into a
   table of text columns (the key geonameid with the "C" collation, so that
   ORDER BY it is the row-key byte order bloomroute returns) with a primary
   key and B-tree indexes on the indexed columns, then VACUUM (ANALYZE) and
   CHECKPOINT (not timed: autovacuum and the checkpointer would do the same
   work, later, during the measurement);
   bloomroute with `bloomroute import`, indexing the same columns;
   then the same rows into a second table the fastest way each side has
   (PostgreSQL: COPY into a table with no index, then the primary key and
   the indexes; bloomroute: `import --bulk`), and a fourth index added to
   the first table (CREATE INDEX / `bloomroute index add`, which returns
   once the backfill is complete);
2. samples the lookups' values from the file with a fixed seed;
3. runs every sampled lookup on both and checks that they return identical
   rows: the same keys and the same value in every column (an empty field is
   NULL in PostgreSQL and no cell in bloomroute); exits 1 when they differ;
4. measures each lookup's latency (p50, p99) with one client per side, the
   two sides' calls interleaved so that both see the same machine load, and
   the throughput of the country lookup with several client processes;
5. reads each side's resident memory at the end: the proportional set
   size (Pss, /proc/PID/smaps_rollup) summed over its process tree, so
   memory shared between PostgreSQL's processes counts once;
6. prints a Markdown table: measure, PostgreSQL, bloomroute, and their ratio
   (bloomroute / PostgreSQL).

Clients, as the performance issue measured: psycopg2 over a loopback TCP
connection with prepared statements (PREPARE / EXECUTE, autocommit), and the
Thrift client generated from thrift/router_service.thrift with the
C-accelerated binary protocol (TBinaryProtocolAccelerated) over a framed
transport, asking for compact rows (TIndexQuery.compactRows: each column
named once, a cell a number, a value and a timestamp, instead of a
TColumnValue object per cell). Both fetch every column of every row. Uses Debian's python3-thrift
and python3-psycopg2 (/usr/bin/python3) and the generated code in
BUILD_DIR/python (on PYTHONPATH).
"""
import argparse
import collections
import math
import multiprocessing
import os
import random
import socket
import string
import subprocess
import sys
import time

import psycopg2
from thrift.protocol import TBinaryProtocol
from thrift.transport import TSocket, TTransport

from bloomroute.rpc.index_service.ttypes import TEqualityPredicate, TIndexQuery
from bloomroute.rpc.router_service import RouterService

TABLE = "cities"
FAMILY = b"d"
KEY = "geonameid"
COLUMNS = [
    "geonameid", "name", "asciiname", "alternatenames", "latitude",
    "longitude", "feature_class", "feature_code", "country_code", "cc2",
    "admin1_code", "admin2_code", "admin3_code", "admin4_code", "population",
    "elevation", "dem", "timezone", "modification_date"]
# The demo's indexed columns (scripts/demo.sh): three at load time, and
# admin1_code added to the loaded table (measured on both sides).
INDEXED = ["country_code", "feature_code", "timezone"]
ADDED_INDEX = "admin1_code"
# The bulk load's table: the same rows, loaded the fastest way each side has.
BULK_TABLE = "cities_bulk"
PG_USER = "compare"

# A lookup: its name (also the prepared statement's), the columns of its
# equality predicates (AND), and a limit (then ORDER BY the key in SQL;
# bloomroute returns rows in row-key order).
Lookup = collections.namedtuple("Lookup", "name columns limit")
BY_COUNTRY = Lookup("by_country", ["country_code"], None)
BY_PAIR = Lookup("by_pair", ["country_code", "feature_code"], None)
FIRST_US = Lookup("first_us", ["country_code"], 1000)


def pg_sql(lookup):
    where = " AND ".join(f"{c} = ${i + 1}"
                         for i, c in enumerate(lookup.columns))
    sql = f"SELECT {', '.join(COLUMNS)} FROM {TABLE} WHERE {where}"
    if lookup.limit:
        sql += f" ORDER BY {KEY} LIMIT {lookup.limit}"
    return sql


class Postgres:
    """One psycopg2 connection with the lookups prepared."""

    def __init__(self, port):
        self.conn = psycopg2.connect(host="127.0.0.1", port=port,
                                     user=PG_USER, dbname="postgres")
        self.conn.autocommit = True
        self.cur = self.conn.cursor()
        for lookup in (BY_COUNTRY, BY_PAIR, FIRST_US):
            types = ", ".join("text" for _ in lookup.columns)
            self.cur.execute(f"PREPARE {lookup.name}({types}) AS "
                             f"{pg_sql(lookup)}")

    def round_trip(self):
        self.cur.execute("SELECT 1")
        return self.cur.fetchall()

    def lookup(self, lookup, values):
        args = ", ".join("%s" for _ in values)
        self.cur.execute(f"EXECUTE {lookup.name}({args})", values)
        return self.cur.fetchall()

    @staticmethod
    def rows(raw, ordered):
        """(key, {b"d:column": value}) per row, by key unless `ordered`."""
        rows = [(r[0].encode(),
                 {FAMILY + b":" + c.encode(): v.encode()
                  for c, v in zip(COLUMNS[1:], r[1:]) if v is not None})
                for r in raw]
        return rows if ordered else sorted(rows, key=lambda r: r[0])

    def close(self):
        self.conn.close()


class Bloomroute:
    """One Thrift connection to the router (framed, accelerated binary)."""

    def __init__(self, address):
        host, _, port = address.rpartition(":")
        sock = TSocket.TSocket(host, int(port))
        sock.setTimeout(60000)  # milliseconds
        self.transport = TTransport.TFramedTransport(sock)
        protocol = TBinaryProtocol.TBinaryProtocolAccelerated(self.transport)
        self.client = RouterService.Client(protocol)
        self.transport.open()
        # As libpq does for PostgreSQL's connection.
        sock.handle.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def round_trip(self):
        return self.client.getThriftServerType()

    def lookup(self, lookup, values):
        """Every page's TCompactRows until the limit (or the last row)."""
        query = TIndexQuery(predicates=[
            TEqualityPredicate(FAMILY, c.encode(), v.encode())
            for c, v in zip(lookup.columns, values)], limit=lookup.limit,
            compactRows=True)
        pages, count, self.asked = [], 0, 0
        while True:
            result = self.client.getByIndex(TABLE, query)
            pages.append(result.compactRows)
            count += len(result.compactRows.rows)
            self.asked += len(result.routing.serversAsked)
            if not result.truncated or count == lookup.limit:
                return pages
            query.pageToken = result.nextPageToken
            if lookup.limit:
                query.limit = lookup.limit - count

    @staticmethod
    def rows(pages, ordered=True):
        out = []
        for page in pages:
            names = [f + b":" + q
                     for f, q in zip(page.families, page.qualifiers)]
            out.extend((r.row, {names[c]: v for c, v in zip(r.columns,
                                                             r.values)})
                       for r in page.rows)
        return out

    def close(self):
        self.transport.close()


# ---- Loading ----

def pg_connect(port):
    conn = psycopg2.connect(host="127.0.0.1", port=port, user=PG_USER,
                            dbname="postgres")
    conn.autocommit = True
    return conn


def pg_copy(cur, table, data):
    """COPYs the file into `table`; its seconds."""
    # Tab-separated; a quote character the file never holds (GeoNames has
    # literal '"'), so every byte is data; an empty field is NULL.
    copy = (f"COPY {table} FROM STDIN (FORMAT csv, DELIMITER E'\\t', "
            "QUOTE E'\\x01', NULL '')")
    with open(data, "rb") as f:
        start = time.perf_counter()
        cur.copy_expert(copy, f)
        return time.perf_counter() - start


def pg_create_table(cur, table, key):
    columns = ", ".join(f"{c} text" for c in COLUMNS[1:])
    key_text = 'text COLLATE "C"' + (" PRIMARY KEY" if key else "")
    cur.execute(f"CREATE TABLE {table} ({KEY} {key_text}, {columns})")


def pg_settle(cur, table):
    """Not timed: what autovacuum and the next checkpoint would do after a
    load, done now so that neither runs while later steps are measured."""
    cur.execute(f"VACUUM (ANALYZE) {table}")
    cur.execute("CHECKPOINT")


def load_postgres(port, data):
    """Creates the indexed table, COPYs the file in; the COPY's seconds."""
    conn = pg_connect(port)
    cur = conn.cursor()
    pg_create_table(cur, TABLE, key=True)
    for c in INDEXED:
        cur.execute(f"CREATE INDEX {TABLE}_{c} ON {TABLE} ({c})")
    seconds = pg_copy(cur, TABLE, data)
    pg_settle(cur, TABLE)
    cur.execute("SHOW server_version")
    version = cur.fetchone()[0]
    conn.close()
    return seconds, version


def bulk_load_postgres(port, data):
    """PostgreSQL's fastest load of an indexed table: COPY into a table with
    no index, then the primary key and the indexes; their seconds."""
    conn = pg_connect(port)
    cur = conn.cursor()
    pg_create_table(cur, BULK_TABLE, key=False)
    start = time.perf_counter()
    pg_copy(cur, BULK_TABLE, data)
    cur.execute(f"ALTER TABLE {BULK_TABLE} ADD PRIMARY KEY ({KEY})")
    for c in INDEXED:
        cur.execute(f"CREATE INDEX {BULK_TABLE}_{c} ON {BULK_TABLE} ({c})")
    seconds = time.perf_counter() - start
    pg_settle(cur, BULK_TABLE)
    conn.close()
    return seconds


def add_index_postgres(port):
    """CREATE INDEX on the loaded table; its seconds."""
    conn = pg_connect(port)
    cur = conn.cursor()
    start = time.perf_counter()
    cur.execute(f"CREATE INDEX {TABLE}_{ADDED_INDEX} ON {TABLE} "
                f"({ADDED_INDEX})")
    seconds = time.perf_counter() - start
    conn.close()
    return seconds


def timed_command(command, log, what):
    """Runs `command`, its output to `log`; its seconds. Exits 1 when it
    fails."""
    with open(log, "wb") as out:
        start = time.perf_counter()
        done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT,
                              check=False)
        seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.stdout.flush()
        sys.stderr.write(open(log, errors="replace").read())
        raise SystemExit(f"compare: {what} exited {done.returncode}")
    return seconds


def load_bloomroute(binary, router, data, log, table=TABLE, bulk=False):
    """`bloomroute import` (or `import --bulk`) of the file; its seconds.
    Output goes to `log`."""
    command = [binary, "import", "--router", router, "--table", table,
               "--file", data, "--format", "tsv", "--columns",
               ",".join(COLUMNS), "--row-key", KEY, "--index",
               ",".join(INDEXED)] + (["--bulk"] if bulk else [])
    return timed_command(command, log, "bloomroute import")


def add_index_bloomroute(binary, router, log):
    """`bloomroute index add`, which waits until the backfill is complete
    and lookups on the column are served; its seconds."""
    command = [binary, "index", "add", "--router", router, "--table", TABLE,
               "--column", ADDED_INDEX, "--poll-ms", "10"]
    return timed_command(command, log, "bloomroute index add")


# ---- Memory ----

def process_tree(root):
    """`root` and its descendants' pids, from /proc."""
    children = collections.defaultdict(list)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                # The command may hold spaces and parentheses: the parent's
                # pid is the second field after the last ')'.
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
        children[ppid].append(int(entry))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children[pid])
    return tree


def resident_bytes(root):
    """The proportional set size (Pss) of `root`'s process tree: resident
    memory with each shared page divided among the processes sharing it, so
    PostgreSQL's shared buffers count once, not once per backend."""
    total = 0
    for pid in process_tree(root):
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            continue  # gone meanwhile
    return total


# ---- Sampling ----

def read_counts(data):
    """Rows per country_code and per (country_code, feature_code)."""
    country, pair = collections.Counter(), collections.Counter()
    cc, fc = COLUMNS.index("country_code"), COLUMNS.index("feature_code")
    rows = 0
    with open(data, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            country[fields[cc]] += 1
            pair[(fields[cc], fields[fc])] += 1
            rows += 1
    return rows, country, pair


def sample(data, seed, n):
    """The sampled values of each lookup, as lists of value tuples."""
    rows, country, pair = read_counts(data)
    rng = random.Random(seed)

    def pick(candidates):
        candidates = sorted(candidates)
        return rng.sample(candidates, min(n, len(candidates)))

    absent = [a + b for a in string.ascii_uppercase
              for b in string.ascii_uppercase if a + b not in country]
    return rows, {
        "country": [(c,) for c in pick(c for c, k in country.items()
                                       if 10 <= k <= 200)],
        "pair": pick(p for p, k in pair.items() if 2 <= k <= 20),
        "absent": [(c,) for c in pick(absent)],
        "us": [("US",)],
    }


# ---- Checking and timing ----

CLASSES = [("country", BY_COUNTRY), ("pair", BY_PAIR), ("absent", BY_COUNTRY),
           ("us", FIRST_US)]


def first_difference(pg_rows, br_rows):
    pg, br = dict(pg_rows), dict(br_rows)
    only_pg = sorted(pg.keys() - br.keys())
    only_br = sorted(br.keys() - pg.keys())
    if only_pg or only_br:
        return (f"{len(pg_rows)} rows vs {len(br_rows)}; only in PostgreSQL: "
                f"{only_pg[:3]}, only in bloomroute: {only_br[:3]}")
    if [k for k, _ in pg_rows] != [k for k, _ in br_rows]:
        return "the same keys in a different order"
    for key in pg:
        if pg[key] != br[key]:
            cells = sorted(set(pg[key].items()) ^ set(br[key].items()))
            return f"row {key!r}: cells differ: {cells[:4]}"
    return "different rows"


def check(pg, br, samples):
    """Runs every sampled lookup on both; per class its mean rows and mean
    servers asked. Exits 1 naming the first queries whose rows differ."""
    stats, failures, compared = {}, [], 0
    for name, lookup in CLASSES:
        rows = asked = 0
        for values in samples[name]:
            ordered = lookup.limit is not None
            pg_rows = Postgres.rows(pg.lookup(lookup, values), ordered)
            br_rows = Bloomroute.rows(br.lookup(lookup, values))
            asked += br.asked
            if pg_rows != br_rows:
                failures.append(f"{lookup.name}{values}: "
                                f"{first_difference(pg_rows, br_rows)}")
            rows += len(pg_rows)
            compared += len(pg_rows)
        n = len(samples[name])
        stats[name] = (rows / n, asked / n)
    if failures:
        for failure in failures[:10]:
            print(f"compare: rows differ: {failure}", file=sys.stderr)
        raise SystemExit(f"compare: {len(failures)} sampled queries returned "
                         "different rows")
    return stats, compared


def interleaved(pg_call, br_call, values, iterations):
    """Latencies in seconds of `iterations` calls a side, cycling through
    `values`; the sides alternate which goes first."""
    pg_times, br_times = [], []
    clock = time.perf_counter
    for i in range(iterations):
        v = values[i % len(values)]
        pair = [(pg_call, pg_times), (br_call, br_times)]
        for call, times in (pair if i % 2 == 0 else reversed(pair)):
            start = clock()
            call(v)
            times.append(clock() - start)
    return pg_times, br_times


def percentile(times, p):
    """Nearest-rank percentile: the smallest time with p% at or below it."""
    ordered = sorted(times)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def latencies(pg, br, samples, iterations):
    """{measure name: (pg times, bloomroute times)}."""
    interleaved(lambda v: pg.round_trip(), lambda v: br.round_trip(), [()],
                200)  # warm-up
    out = {"round trip": interleaved(lambda v: pg.round_trip(),
                                     lambda v: br.round_trip(), [()],
                                     2 * iterations)}
    for name, lookup in CLASSES:
        n = iterations if lookup.limit is None else max(20, iterations // 10)
        out[name] = interleaved(lambda v, l=lookup: pg.lookup(l, v),
                                lambda v, l=lookup: br.lookup(l, v),
                                samples[name], n)
    return out


def worker(side, target, values, offset, seconds, barrier, results):
    """One client process of the throughput run: by_country lookups, cycling
    through `values` from `offset`, for `seconds`; puts (calls, seconds)."""
    client = Postgres(target) if side == "pg" else Bloomroute(target)
    barrier.wait()
    calls, start = 0, time.perf_counter()
    while True:
        client.lookup(BY_COUNTRY, values[(offset + calls) % len(values)])
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    client.close()
    results.put((calls, elapsed))


def throughput(side, target, values, clients, seconds):
    """Lookups per second of `clients` processes together."""
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(clients), context.Queue()
    procs = [context.Process(target=worker, args=(
        side, target, values, i * len(values) // clients, seconds, barrier,
        results)) for i in range(clients)]
    for p in procs:
        p.start()
    rates = [calls / elapsed for calls, elapsed in
             (results.get(timeout=seconds + 120) for _ in procs)]
    for p in procs:
        p.join()
        if p.exitcode != 0:
            raise SystemExit(f"compare: a {side} client process failed")
    return sum(rates)


# ---- Report ----

def ms(seconds):
    return f"{seconds * 1000:.3f} ms"


def ratio(pg, br):
    return f"{br / pg:.2f}" if pg else "-"


def report_rows(lat, tput, loads, clients):
    """The table's rows: (measure, PostgreSQL, bloomroute, ratio), numbered
    as the performance issue's list."""
    measures = [
        ("1. round trip: `SELECT 1` / `getThriftServerType`", "round trip"),
        ("2. `country_code = X`", "country"),
        ("3. `country_code = X AND feature_code = Y`", "pair"),
        ("4. an absent value: `country_code = X`", "absent"),
        ("5. `country_code = 'US'`, first 1,000 rows by key", "us")]
    rows = []
    for text, name in measures:
        pg_times, br_times = lat[name]
        for p in (50, 99):
            a, b = percentile(pg_times, p), percentile(br_times, p)
            rows.append((f"{text}, p{p}", ms(a), ms(b), ratio(a, b)))
    a, b = tput
    rows.append((f"6. throughput of 2., {clients} client processes (ops/s)",
                 f"{a:,.0f}", f"{b:,.0f}", ratio(a, b)))
    (a, b), (c, d), (e, f), (g, h) = loads
    rows.append(("7. load, 3 indexes: COPY into the indexed table / "
                 "`bloomroute import`", f"{a:.2f} s", f"{b:.2f} s",
                 ratio(a, b)))
    rows.append(("8. bulk load: COPY, then primary key and indexes / "
                 "`import --bulk`", f"{c:.2f} s", f"{d:.2f} s", ratio(c, d)))
    rows.append(("9. add a 4th index to the loaded table: CREATE INDEX / "
                 "`index add`", f"{e:.2f} s", f"{f:.2f} s", ratio(e, f)))
    rows.append(("10. resident memory after the run (Pss of every process)",
                 f"{g / 2**20:,.0f} MiB", f"{h / 2**20:,.0f} MiB",
                 ratio(g, h)))
    return rows


def notes(samples, stats, iterations):
    """The lines under the table: what each lookup's sample is."""
    def line(number, name, what):
        n, (mean, asked) = len(samples[name]), stats[name]
        return (f"{number}: {n} {what}, mean {mean:.1f} rows; bloomroute "
                f"asked {asked:.2f} of 4 region servers on average.")
    return [
        "ratio: bloomroute / PostgreSQL (latency: below 1, bloomroute is "
        "faster; throughput: above 1, bloomroute is faster).",
        f"1: {2 * iterations} calls a side; 2-4: {iterations}; 5: "
        f"{max(20, iterations // 10)}; the two sides' calls interleaved.",
        line(2, "country", "values with 10-200 rows each"),
        line(3, "pair", "pairs with 2-20 rows each"),
        line(4, "absent", "two-letter codes no row has"),
        line(5, "us", "value"),
    ]


def print_report(rows, context, after):
    for line in context:
        print(line)
    print()
    print("| measure | PostgreSQL | bloomroute | ratio |")
    print("|---|---:|---:|---:|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
    for line in after:
        print(line)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # Set by compare_postgres.sh:
    parser.add_argument("--bloomroute", required=True,
                        help="the bloomroute program (set by the script)")
    parser.add_argument("--router", required=True,
                        help="its router, HOST:PORT (set by the script)")
    parser.add_argument("--pg-port", type=int, required=True,
                        help="PostgreSQL's port on 127.0.0.1 (set by the "
                        "script)")
    parser.add_argument("--data", required=True,
                        help="cities500.txt (set by the script)")
    parser.add_argument("--pg-pid", type=int, required=True,
                        help="PostgreSQL's postmaster pid (set by the "
                        "script)")
    parser.add_argument("--bloomroute-pid", type=int, required=True,
                        help="`bloomroute local`'s pid (set by the script)")
    parser.add_argument("--log-dir", required=True,
                        help="where the import's output goes (set by the "
                        "script)")
    parser.add_argument("--seed", type=int, default=500,
                        help="the sampling seed (default 500)")
    parser.add_argument("--samples", type=int, default=200,
                        help="values sampled per lookup, at most (default "
                        "200: every country with 10-200 rows, 200 of the "
                        "pairs and of the absent codes)")
    parser.add_argument("--iterations", type=int, default=2000,
                        help="timed calls per side and lookup (default 2000; "
                        "the round trip twice that, the 1,000-row lookup a "
                        "tenth)")
    parser.add_argument("--clients", type=int, default=4,
                        help="client processes of the throughput run "
                        "(default 4)")
    parser.add_argument("--seconds", type=float, default=10,
                        help="seconds of the throughput run, per side "
                        "(default 10)")
    return parser.parse_args()


def main():
    args = parse_args()
    load_before = os.getloadavg()
    rows, samples = sample(args.data, args.seed, args.samples)
    print(f"compare: loading {rows:,} rows into PostgreSQL (COPY) ...",
          flush=True)
    pg_load, version = load_postgres(args.pg_port, args.data)
    print("compare: loading them into bloomroute (bloomroute import) ...",
          flush=True)
    br_load = load_bloomroute(args.bloomroute, args.router, args.data,
                              os.path.join(args.log_dir, "import.log"))
    print("compare: bulk loads (COPY + CREATE INDEX / import --bulk) ...",
          flush=True)
    bulk = (bulk_load_postgres(args.pg_port, args.data),
            load_bloomroute(args.bloomroute, args.router, args.data,
                            os.path.join(args.log_dir, "bulk.log"),
                            table=BULK_TABLE, bulk=True))
    print(f"compare: adding an index on {ADDED_INDEX} ...", flush=True)
    added = (add_index_postgres(args.pg_port),
             add_index_bloomroute(args.bloomroute, args.router,
                                  os.path.join(args.log_dir, "index.log")))
    pg, br = Postgres(args.pg_port), Bloomroute(args.router)
    print("compare: checking that both return the same rows ...", flush=True)
    stats, compared = check(pg, br, samples)
    print("compare: measuring latency ...", flush=True)
    lat = latencies(pg, br, samples, args.iterations)
    pg.close()
    br.close()
    print("compare: measuring throughput ...", flush=True)
    tput = (throughput("pg", args.pg_port, samples["country"], args.clients,
                       args.seconds),
            throughput("br", args.router, samples["country"], args.clients,
                       args.seconds))
    load_after = os.getloadavg()
    memory = (resident_bytes(args.pg_pid), resident_bytes(args.bloomroute_pid))
    queries = sum(len(v) for v in samples.values())
    context = [
        "",
        f"PostgreSQL {version} (default settings) and `bloomroute local "
        f"--servers 4`, both on loopback; GeoNames cities500, {rows:,} rows; "
        f"indexed: {', '.join(INDEXED)}.",
        f"Rows identical on both for all {queries} sampled queries "
        f"({compared:,} rows, every column); values sampled with seed "
        f"{args.seed}.",
        f"{os.cpu_count()} CPUs; load average (1 min) {load_before[0]:.2f} "
        f"before, {load_after[0]:.2f} after."]
    loads = ((pg_load, br_load), bulk, added, memory)
    print_report(report_rows(lat, tput, loads, args.clients),
                 context, notes(samples, stats, args.iterations))
    return 0


if __name__ == "__main__":
    sys.exit(main())
