#!/usr/bin/env bash
# Builds the .deb (cpack -G DEB) from a build directory, unpacks it into a
# temporary root (dpkg-deb -x) and checks what an operator gets: the binary
# runs, the example config files are valid settings, the man page has every
# command, the units are sandboxed and, where systemd-analyze is installed,
# pass `systemd-analyze verify`. Exits non-zero naming what failed.
#
#   tests/install/check_package.sh BUILD_DIR CPACK
set -euo pipefail

build=$1
cpack=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check_package: $*" >&2; exit 1; }

(cd "$build" && "$cpack" -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log" >&2; fail "cpack -G DEB failed"; }
deb=$(ls "$work"/out/bloomroute_*.deb)

info=$(dpkg-deb -I "$deb")
for dep in librocksdb libthrift libboost-program-options libssl3 libedit2; do
  grep -q "^ Depends:.*$dep" <<<"$info" || fail "Depends lacks $dep"
done
grep -q '^ Recommends: gnuplot-nox' <<<"$info" || fail "gnuplot-nox not recommended"
dpkg-deb -e "$deb" "$work/control"
grep -qx /etc/bloomroute/router.conf "$work/control/conffiles" ||
  fail "router.conf is not a conffile"
[ -x "$work/control/postinst" ] || fail "no postinst"

root=$work/root
dpkg-deb -x "$deb" "$root"
for f in usr/bin/bloomroute usr/share/man/man1/bloomroute.1 \
         usr/lib/systemd/system/bloomroute-router.service \
         usr/lib/systemd/system/bloomroute-regionserver@.service \
         usr/lib/sysusers.d/bloomroute.conf \
         etc/bloomroute/router.conf etc/bloomroute/regionserver-1.conf \
         usr/share/doc/bloomroute/README.md \
         usr/share/doc/bloomroute/docs/operator-guide.md \
         usr/share/bloomroute/grafana/bloomroute-dashboard.json \
         usr/share/bloomroute/prometheus/bloomroute-alerts.yml \
         usr/share/bloomroute/prometheus/prometheus.yml; do
  [ -e "$root/$f" ] || fail "the package lacks /$f"
done

bin=$root/usr/bin/bloomroute
version=$("$bin" version) || fail "the installed binary does not run"
[[ $version == "bloomroute "* ]] || fail "unexpected version: $version"
"$bin" router --config "$root/etc/bloomroute/router.conf" --print-config \
  >/dev/null || fail "router.conf is not valid settings"
"$bin" regionserver --config "$root/etc/bloomroute/regionserver-1.conf" \
  --print-config >/dev/null || fail "regionserver-1.conf is not valid settings"

# The man page: a section per command `bloomroute --help` lists.
man=$root/usr/share/man/man1/bloomroute.1
head -1 "$man" | grep -q '^\.TH BLOOMROUTE 1' || fail "the man page has no .TH"
for cmd in $("$bin" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF {print $1}'); do
  grep -qx ".SS $cmd" "$man" || fail "the man page lacks the $cmd command"
done
if command -v man >/dev/null; then
  man -l "$man" >/dev/null 2>"$work/man.err" || fail "man cannot render it"
  [ ! -s "$work/man.err" ] || { cat "$work/man.err" >&2; fail "man warns"; }
fi

for unit in bloomroute-router.service bloomroute-regionserver@.service; do
  u=$root/usr/lib/systemd/system/$unit
  for line in User=bloomroute ProtectSystem=strict NoNewPrivileges=yes \
              StateDirectory=bloomroute; do
    grep -qx "$line" "$u" || fail "$unit lacks $line"
  done
  grep -q "^ExecStart=/usr/bin/bloomroute .*--config /etc/bloomroute/" "$u" ||
    fail "$unit does not start the installed binary with its config"
done

if command -v systemd-analyze >/dev/null; then
  # The installed paths point into the unpacked root; the regionserver
  # template is checked as instance 1.
  mkdir "$work/units"
  sed "s|/usr/bin/bloomroute|$bin|" \
    "$root/usr/lib/systemd/system/bloomroute-router.service" \
    >"$work/units/bloomroute-router.service"
  sed "s|/usr/bin/bloomroute|$bin|" \
    "$root/usr/lib/systemd/system/bloomroute-regionserver@.service" \
    >"$work/units/bloomroute-regionserver@1.service"
  for u in "$work"/units/*.service; do
    # verify exits 0 on some warnings: any output is a failure.
    out=$(cd "$work/units" && systemd-analyze verify --man=no "$u" 2>&1) ||
      { echo "$out" >&2; fail "systemd-analyze verify $(basename "$u")"; }
    [ -z "$out" ] || { echo "$out" >&2; fail "systemd-analyze warns on $(basename "$u")"; }
  done
  echo "check_package: $(basename "$deb") ok, units verified"
else
  echo "check_package: $(basename "$deb") ok; systemd-analyze not installed: units not verified"
fi
