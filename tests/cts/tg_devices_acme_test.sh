#!/usr/bin/env bash
# The runtime finds a third-party plugin through TG_PLUGIN_PATH: `tg devices` lists ACME, loaded
# ("ok") with its device, both for a directory and for a direct .so path.
set -uo pipefail
tg="$1" acme="$2"
fail() { echo "FAIL: $*"; exit 1; }
export TG_CACHE_DIR="$TEST_TMPDIR"
for path in "$(cd "$(dirname "$acme")" && pwd)" "$(cd "$(dirname "$acme")" && pwd)/$(basename "$acme")"; do
  out=$(TG_PLUGIN_PATH="$path" "$tg" devices) || fail "tg devices exited $? (TG_PLUGIN_PATH=$path)"
  echo "$out"
  grep -Eq "^ACME 0\.1\.0  ABI 1\.[0-9]+  \[ok\]" <<<"$out" || fail "no ACME row with status ok (TG_PLUGIN_PATH=$path)"
  grep -q "ACME serial CPU" <<<"$out" || fail "no ACME device row (TG_PLUGIN_PATH=$path)"
done
out=$("$tg" devices)
grep -q "^ACME" <<<"$out" && fail "ACME listed without TG_PLUGIN_PATH"
echo ok
