#!/usr/bin/env bash
# Installs the Debian 12 packages bloomroute needs to build, test and benchmark.
# Idempotent: when every package is already installed it only checks and exits.
# Runs apt-get directly as root and through sudo otherwise; never prompts.
#
#   scripts/install-deps.sh          what building and testing need
#   scripts/install-deps.sh --demo   ... and npm, which `make demo` uses to fetch
#                                    its data set (only when no npm is on PATH:
#                                    a Node.js install of another origin has its
#                                    own npm)
#   scripts/install-deps.sh --compare
#                                    ... and PostgreSQL 15 with psycopg2, which
#                                    `make compare` measures bloomroute against
#                                    (opt-in: nothing else uses them)
set -euo pipefail

packages=(
  cmake            # build system (CMake >= 3.20 for ctest --test-dir)
  g++              # C++17 compiler
  make             # the top-level entry point
  pkg-config
  libxxhash-dev    # XXH3 element hashing and checksums
  libgtest-dev     # unit tests
  libgmock-dev
  libbenchmark-dev # Google Benchmark programs
  librocksdb-dev   # region server storage
  libjemalloc-dev  # the bloomroute program's allocator (RocksDB's choice;
                   # measured in CMakeLists.txt)
  libthrift-dev    # RPC (Apache Thrift 0.17)
  thrift-compiler  # generates the C++ code from thrift/*.thrift at build time
  libssl-dev       # TLS on every port and `bloomroute cert` (OpenSSL 3)
  openssl          # the openssl command, used by tests to inspect certificates
  libboost-program-options-dev  # the bloomroute command line
  libedit-dev      # line editing, history and completion in `bloomroute shell`
                   # (BSD-licensed, readline-compatible API)
  libspdlog-dev    # the servers' log lines (time, level, component)
  dpkg-dev         # dpkg-shlibdeps: the .deb's dependencies (cpack -G DEB)
  gnuplot-nox      # the chart of `bloomroute accuracy` (optional at run time)
  python3-thrift   # the Python client example and its test (/usr/bin/python3)
  prometheus       # promtool: the deploy test checks the alert rules, runs their
                   # unit tests and checks the example scrape config with it
  chromium         # headless browser for the test of the servers' /status page
  universal-ctags  # style.CodeSizes: each function's first and last line, to
                   # hold STYLE.md's bounds on file and function length
  libzookeeper-mt-dev  # the ZooKeeper C client (multi-threaded), coord/zk/
  zookeeper        # the ZooKeeper server's jars (not the zookeeperd service):
                   # tests start their own servers on loopback ports
)

case "${1:-}" in
  "") ;;
  --demo) command -v npm >/dev/null 2>&1 || packages+=(npm) ;;
  # postgresql-15 rather than the postgresql metapackage: the comparison
  # names PostgreSQL 15 and runs its initdb and pg_ctl from
  # /usr/lib/postgresql/15/bin, in a cluster of its own.
  --compare) packages+=(postgresql-15 python3-psycopg2) ;;
  *) echo "usage: scripts/install-deps.sh [--demo | --compare]" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo -n)
else
  echo "install-deps: missing packages (${missing[*]}) and not root; install sudo or run as root" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Package lists on a fresh machine are empty or old; refresh them once before
# installing so apt-get finds the current versions.
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq -o Dpkg::Use-Pty=0 --no-install-recommends "${missing[@]}"
# The prometheus package is here for promtool, but under systemd it also starts
# a Prometheus server on port 9090, the router's default port: stop and
# disable the server we just installed (one installed before is left alone).
if [[ " ${missing[*]} " == *" prometheus "* ]] && [ -d /run/systemd/system ]; then
  "${as_root[@]}" systemctl disable --now prometheus.service >/dev/null 2>&1 || true
fi
# Likewise postgresql-15 makes a cluster "main" and, under systemd, starts a
# server on port 5432; the comparison runs a throwaway cluster of its own, so
# stop and disable the one we just installed (one installed before is left
# alone).
if [[ " ${missing[*]} " == *" postgresql-15 "* ]] && [ -d /run/systemd/system ]; then
  "${as_root[@]}" systemctl disable --now postgresql.service >/dev/null 2>&1 || true
fi
