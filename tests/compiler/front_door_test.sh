#!/usr/bin/env bash
# The front end reaches the compiler through one header: compiler/compiler.h. Any other compiler
# header included from frontend/ (the files given as arguments) fails this test, naming the line.
set -uo pipefail
[ "$#" -gt 10 ] || { echo "FAIL: expected the front end's files as arguments, got $#"; exit 1; }
bad=$(grep -Hn '#include "compiler/' "$@" | grep -v '#include "compiler/compiler.h"')
if [ -n "$bad" ]; then
  echo "FAIL: the front end includes compiler headers other than compiler/compiler.h:"
  echo "$bad"
  exit 1
fi
echo "ok: $# front-end files include only compiler/compiler.h"
