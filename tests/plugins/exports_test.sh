#!/usr/bin/env bash
# Each plugin given as an argument must export exactly one symbol: tg_plugin_get_api.
set -euo pipefail
status=0
for so in "$@"; do
  syms=$(nm -D --defined-only "$so" | awk '{print $NF}' | sort)
  if [ "$syms" != "tg_plugin_get_api" ]; then
    echo "FAIL: $so exports more (or less) than tg_plugin_get_api:"
    echo "$syms" | sed 's/^/  /'
    status=1
  else
    echo "ok: $so exports only tg_plugin_get_api"
  fi
done
exit $status
