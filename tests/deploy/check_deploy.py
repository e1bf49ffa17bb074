#!/usr/bin/python3
"""Checks the monitoring files in deploy/ against Prometheus and the metric names.

  check_deploy.py --source SOURCE_DIR [--promtool PATH]
  check_deploy.py --list-names

1. With promtool (Debian's `prometheus` package; scripts/install-deps.sh
   installs it; without it these checks print SKIPPED and the others run):
   `promtool check rules` on deploy/prometheus/bloomroute-alerts.yml,
   `promtool check config` on deploy/prometheus/prometheus.yml as shipped and
   with its commented TLS lines (those starting "#" and no space) enabled,
   `promtool test rules` on tests/deploy/bloomroute-alerts.test.yml, and every
   PromQL expression of the dashboard (Grafana's variables replaced) parsed
   as a recording rule.
2. Every metric name in every expression of the dashboard (panels and
   variables) and of the alert rules is one the servers export
   (METRICS below; `up` is Prometheus's own and allowed in the rules).
3. The dashboard: panel ids unique, every query panel on the ${DS_PROMETHEUS}
   data source variable, the data source and instance variables present.
4. The alert rules: each has a severity label, summary and description
   annotations, and a test case where it fires and one where it does not.

Each problem is printed as FILE: message; the exit code is 1 if there is any,
0 otherwise. Standard library only; about a second with promtool.
--list-names prints METRICS, one name a line (histograms as their base name),
for comparing with what a live /metrics serves.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

DASHBOARD = "deploy/grafana/bloomroute-dashboard.json"
RULES = "deploy/prometheus/bloomroute-alerts.yml"
CONFIG = "deploy/prometheus/prometheus.yml"
RULES_TEST = "tests/deploy/bloomroute-alerts.test.yml"

# The metric families routers and region servers export, by kind. A
# histogram's series are NAME_bucket, NAME_sum and NAME_count.
METRICS = {
    # Router process.
    "bloomroute_calls_total": "counter",
    "bloomroute_call_duration_seconds": "histogram",
    "bloomroute_lookups_total": "counter",
    "bloomroute_lookup_servers_asked_total": "counter",
    "bloomroute_lookup_servers_asked_not_current_total": "counter",
    "bloomroute_lookup_servers_with_rows_total": "counter",
    "bloomroute_lookup_rows_returned_total": "counter",
    "bloomroute_lookup_fanout": "histogram",
    "bloomroute_region_server_up": "gauge",
    "bloomroute_replica_current": "gauge",
    "bloomroute_replica_ops_behind": "gauge",
    "bloomroute_replica_catchup_bytes_total": "counter",
    "bloomroute_router_index_bytes": "gauge",
    "bloomroute_region_operations_running": "gauge",
    "bloomroute_region_operation_oldest_age_seconds": "gauge",
    "bloomroute_region_operation_age_seconds": "gauge",
    "bloomroute_balancer_runs_total": "counter",
    "bloomroute_balancer_moves_total": "counter",
    "bloomroute_tables": "gauge",
    "bloomroute_regions": "gauge",
    "bloomroute_thrift_connections": "gauge",
    "bloomroute_thrift_queued_calls": "gauge",
    "bloomroute_thrift_refusals_total": "counter",
    "bloomroute_http_requests_total": "counter",
    # Region server process.
    "bloomroute_regionserver_regions": "gauge",
    "bloomroute_regionserver_rows": "gauge",
    "bloomroute_regionserver_bytes": "gauge",
    "bloomroute_regionserver_writes_total": "counter",
    "bloomroute_regionserver_wal_syncs_total": "counter",
    "bloomroute_regionserver_filter_stages": "gauge",
    "bloomroute_regionserver_filter_fill_ratio": "gauge",
    "bloomroute_regionserver_filter_estimated_fpr": "gauge",
    "bloomroute_rocksdb_block_cache_hits_total": "counter",
    "bloomroute_rocksdb_block_cache_misses_total": "counter",
    "bloomroute_rocksdb_write_stall_seconds_total": "counter",
    "bloomroute_rocksdb_pending_compaction_bytes": "gauge",
    "bloomroute_rocksdb_write_stopped": "gauge",
    "bloomroute_rocksdb_block_cache_capacity_bytes": "gauge",
    "bloomroute_rocksdb_block_cache_usage_bytes": "gauge",
    "bloomroute_rocksdb_memtable_bytes": "gauge",
    "bloomroute_rocksdb_memtable_limit_bytes": "gauge",
    # Every process (metrics::AddProcessCollector).
    "process_cpu_seconds_total": "counter",
    "process_resident_memory_bytes": "gauge",
    "process_virtual_memory_bytes": "gauge",
    "process_open_fds": "gauge",
    "process_max_fds": "gauge",
    "process_start_time_seconds": "gauge",
}
# Series Prometheus makes itself for each target.
PROMETHEUS_SERIES = {"up"}

PROMQL_KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring",
                   "group_left", "group_right", "bool", "offset", "inf", "nan",
                   "atan2"}
IDENT_RE = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*")
GRAFANA_VAR_RE = re.compile(r"\$\{?(\w+)(?::\w+)?\}?")
# Values for Grafana's variables that make an expression plain PromQL.
GRAFANA_VALUES = {"__rate_interval": "5m", "__interval": "1m", "__range": "1h"}


def series_names():
    """Every series name the servers' families produce."""
    names = set()
    for name, kind in METRICS.items():
        if kind == "histogram":
            names.update(name + s for s in ("_bucket", "_sum", "_count"))
        else:
            names.add(name)
    return names


def metric_names(expr):
    """The metric names an expression selects (best effort, but exact for the
    PromQL these files use: selectors, functions, aggregations with by/without,
    binary operators with on/ignoring/group_*)."""
    e = GRAFANA_VAR_RE.sub(" ", expr)
    e = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`', '""', e)
    e = re.sub(r"\{[^{}]*\}", " ", e)  # label matchers
    e = re.sub(r"\[[^\]]*\]", " ", e)  # ranges and subqueries
    e = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)", " ", e)
    names = []
    for m in IDENT_RE.finditer(e):
        before = e[m.start() - 1] if m.start() else " "
        if before.isdigit() or before == ".":
            continue  # 1e3, 0.5, a duration's unit
        if re.match(r"\s*\(", e[m.end():]) or m.group(0).lower() in PROMQL_KEYWORDS:
            continue  # a function, an aggregation, a keyword
        names.append(m.group(0))
    return names


def self_test():
    """metric_names on expressions like the files', so a broken extractor
    cannot pass the checks by finding nothing."""
    cases = {
        'histogram_quantile(0.99, sum by (service, le) (rate(a_bucket{x="b c"}[$__rate_interval])))': ["a_bucket"],
        '(sum(rate(a[5m])) - sum(rate(b[5m]))) / sum without (x) (rate(c{y=~"$instance"}[1m]))': ["a", "b", "c"],
        "a == 0 unless on (i, s) (b == 0)": ["a", "b"],
        "time() - process_start_time_seconds offset 5m": ["process_start_time_seconds"],
        "x / ignoring(le) group_left y > 1e3": ["x", "y"],
    }
    for expr, want in cases.items():
        got = metric_names(expr)
        assert got == want, "metric_names(%r) = %r, want %r" % (expr, got, want)


class Problems:
    def __init__(self):
        self.items = []

    def add(self, where, message):
        self.items.append("%s: %s" % (where, message))


def walk_panels(panels):
    for p in panels:
        yield p
        yield from walk_panels(p.get("panels", []))


def dashboard_queries(dash):
    """(where, expr, is_variable) of every PromQL query of the dashboard."""
    for p in walk_panels(dash.get("panels", [])):
        for t in p.get("targets", []):
            if "expr" in t:
                yield "panel %s %r %s" % (p.get("id"), p.get("title"), t.get("refId")), t["expr"], False
    for v in dash.get("templating", {}).get("list", []):
        if v.get("type") == "query":
            q = v.get("query")
            q = q.get("query", "") if isinstance(q, dict) else (q or "")
            m = re.match(r"^\s*label_values\((.*),\s*\w+\s*\)\s*$", q)
            yield "variable %s" % v.get("name"), (m.group(1) if m else q), True


def check_dashboard(source, problems):
    path = os.path.join(source, DASHBOARD)
    try:
        with open(path, encoding="utf-8") as f:
            dash = json.load(f)
    except (OSError, ValueError) as e:
        problems.add(DASHBOARD, "not valid JSON: %s" % e)
        return []
    known = series_names()
    ids = {}
    for p in walk_panels(dash.get("panels", [])):
        pid = p.get("id")
        if not isinstance(pid, int):
            problems.add(DASHBOARD, "panel %r has no integer id" % p.get("title"))
        elif pid in ids:
            problems.add(DASHBOARD, "panel id %d is used by %r and %r" % (pid, ids[pid], p.get("title")))
        else:
            ids[pid] = p.get("title")
        if p.get("targets"):
            uids = [p.get("datasource", {}).get("uid")] + [
                t.get("datasource", {}).get("uid") for t in p["targets"]]
            if any(u != "${DS_PROMETHEUS}" for u in uids):
                problems.add(DASHBOARD, "panel %r does not query ${DS_PROMETHEUS}" % p.get("title"))
    variables = {v.get("name"): v for v in dash.get("templating", {}).get("list", [])}
    ds = variables.get("DS_PROMETHEUS", {})
    if ds.get("type") != "datasource" or ds.get("query") != "prometheus":
        problems.add(DASHBOARD, "no Prometheus data source variable DS_PROMETHEUS")
    if "instance" not in variables:
        problems.add(DASHBOARD, "no instance variable")

    queries = list(dashboard_queries(dash))
    used = set()
    for where, expr, _ in queries:
        names = metric_names(expr)
        if not names:
            problems.add(DASHBOARD, "%s: no metric name in %r" % (where, expr))
        for n in names:
            used.add(n)
            if n not in known:
                problems.add(DASHBOARD, "%s: `%s` is not a metric bloomroute exports" % (where, n))
    unused = sorted(n for n in METRICS if not any(u == n or u.startswith(n + "_") for u in used))
    print("check_deploy: %d dashboard panels, %d queries; metrics not on it: %s"
          % (len(ids), len(queries), ", ".join(unused) or "none"))
    return [expr for _, expr, is_variable in queries if not is_variable]


def rule_blocks(text):
    """(alert name, its lines) of each `- alert:` rule of a rules file written
    as ours is (one rule per `- alert:` item, its keys indented below it)."""
    blocks, current = [], None
    for line in text.split("\n"):
        m = re.match(r"^(\s*)- alert:\s*(\S+)\s*$", line)
        if m:
            current = (m.group(2), len(m.group(1)), [])
            blocks.append(current)
        elif current and line.strip() and not line.lstrip().startswith("#"):
            if len(line) - len(line.lstrip()) <= current[1]:
                current = None
            else:
                current[2].append(line)
    return [(name, lines) for name, _, lines in blocks]


def rule_expr(lines):
    """The expr of a rule's lines: inline, or a block scalar (| or >) below."""
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)expr:\s*(.*)$", line)
        if not m:
            continue
        value = m.group(2).strip()
        if value[:1] not in ("|", ">"):
            return value.strip("'\"") if value[:1] in "'\"" else value
        indent, body = len(m.group(1)), []
        for more in lines[i + 1:]:
            if more.strip() and len(more) - len(more.lstrip()) <= indent:
                break
            body.append(more.strip())
        return " ".join(body)
    return ""


def check_rules(source, problems):
    with open(os.path.join(source, RULES), encoding="utf-8") as f:
        blocks = rule_blocks(f.read())
    with open(os.path.join(source, RULES_TEST), encoding="utf-8") as f:
        tests = f.read()
    if not blocks:
        problems.add(RULES, "no alert rules found")
    known = series_names() | PROMETHEUS_SERIES
    for name, lines in blocks:
        text = "\n".join(lines)
        expr = rule_expr(lines)
        names = metric_names(expr)
        if not names:
            problems.add(RULES, "%s: no expr, or no metric name in it" % name)
        for n in names:
            if n not in known:
                problems.add(RULES, "%s: `%s` is not a metric bloomroute exports" % (name, n))
        if not re.search(r"^\s*severity:\s*(critical|warning|info)\s*$", text, re.M):
            problems.add(RULES, "%s: no severity label (critical, warning or info)" % name)
        for key in ("summary", "description"):
            if not re.search(r"^\s*%s:\s*\S" % key, text, re.M):
                problems.add(RULES, "%s: no %s annotation" % (name, key))
        # A test case where it fires and one where it does not.
        cases = re.findall(r"alertname:\s*%s\s*\n\s*exp_alerts:(.*)" % re.escape(name), tests)
        if not any(c.strip() == "[]" for c in cases):
            problems.add(RULES_TEST, "%s: no case where it does not fire" % name)
        if not any(c.strip() == "" for c in cases):
            problems.add(RULES_TEST, "%s: no case where it fires" % name)
    print("check_deploy: %d alert rules: %s" % (len(blocks), ", ".join(n for n, _ in blocks)))


def run_promtool(promtool, args, cwd, problems, what):
    p = subprocess.run([promtool] + args, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=60)
    out = p.stdout.decode("utf-8", "replace")
    if p.returncode != 0:
        problems.add(what, "`promtool %s` failed:\n%s" % (" ".join(args), out))
    else:
        print("check_deploy: promtool %s %s: ok" % (" ".join(args[:2]), what))


def check_with_promtool(promtool, source, exprs, problems):
    run_promtool(promtool, ["check", "rules", RULES], source, problems, RULES)
    run_promtool(promtool, ["check", "config", CONFIG], source, problems, CONFIG)
    run_promtool(promtool, ["test", "rules", RULES_TEST], source, problems, RULES_TEST)
    with tempfile.TemporaryDirectory() as work:
        # The config with its TLS lines enabled, the certificate paths
        # pointing at empty files (promtool checks that they exist).
        with open(os.path.join(source, CONFIG), encoding="utf-8") as f:
            config = f.read()
        tls = re.sub(r"^(\s*)#(?=\S)(?!#)", r"\1", config, flags=re.M)
        jobs = len(re.findall(r"^\s*- job_name:", config, re.M))
        if len(re.findall(r"^\s+scheme: https\s*$", tls, re.M)) != jobs:
            problems.add(CONFIG, "not every job has commented TLS lines (#scheme: https ...)")
        for cert in set(re.findall(r"/etc/prometheus/bloomroute/([\w.\-]+)", tls)):
            open(os.path.join(work, cert), "w").close()
        tls = tls.replace("/etc/prometheus/bloomroute/", work + "/")
        with open(os.path.join(work, "prometheus.yml"), "w", encoding="utf-8") as f:
            f.write(tls)
        shutil.copy(os.path.join(source, RULES), work)
        run_promtool(promtool, ["check", "config", "prometheus.yml"], work, problems,
                     CONFIG + " with its TLS lines enabled")

        # The dashboard's expressions as recording rules: promtool parses them.
        rules = ["groups:", "  - name: dashboard", "    rules:"]
        for i, expr in enumerate(exprs):
            plain = GRAFANA_VAR_RE.sub(lambda m: GRAFANA_VALUES.get(m.group(1), ".*"), expr)
            rules += ["      - record: dashboard:query_%d" % i,
                      "        expr: %s" % json.dumps(plain)]
        with open(os.path.join(work, "dashboard-rules.yml"), "w", encoding="utf-8") as f:
            f.write("\n".join(rules) + "\n")
        p = subprocess.run([promtool, "check", "rules", "dashboard-rules.yml"], cwd=work,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        if p.returncode != 0:
            problems.add(DASHBOARD, "an expression does not parse as PromQL:\n%s"
                         % p.stdout.decode("utf-8", "replace"))
        else:
            print("check_deploy: the dashboard's %d expressions parse as PromQL" % len(exprs))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", help="the source tree (deploy/, tests/deploy/)")
    parser.add_argument("--promtool", default=shutil.which("promtool"),
                        help="promtool (default: the one on PATH)")
    parser.add_argument("--list-names", action="store_true",
                        help="print the metric names the checks know and exit")
    args = parser.parse_args()
    if args.list_names:
        print("\n".join(sorted(METRICS)))
        return 0
    if not args.source:
        parser.error("--source is required")
    self_test()
    source = os.path.abspath(args.source)
    problems = Problems()
    exprs = check_dashboard(source, problems)
    check_rules(source, problems)
    if args.promtool:
        check_with_promtool(args.promtool, source, exprs, problems)
    else:
        print("check_deploy: SKIPPED the promtool checks (check rules, check config, "
              "test rules, the dashboard's PromQL): no promtool on PATH; "
              "scripts/install-deps.sh installs it (Debian package prometheus)")
    for item in problems.items:
        print(item)
    if problems.items:
        print("check_deploy: %d problem(s)" % len(problems.items))
        return 1
    print("check_deploy: the dashboard, alert rules and scrape config are consistent")
    return 0


if __name__ == "__main__":
    sys.exit(main())
