#!/usr/bin/env bash
# A minimal TAP producer: one line per check, the failure's details in a YAML block.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../lib/math.sh
. "$here/lib/math.sh"

count=0
failed=0
check() {
  local name=$1 expected=$2 actual=$3 line=$4
  count=$((count + 1))
  if [ "$expected" = "$actual" ]; then
    echo "ok $count - $name"
  else
    failed=1
    echo "not ok $count - $name"
    echo "  ---"
    echo "  message: 'expected $expected, got $actual'"
    echo "  location: 'tests/run.sh:$line'"
    echo "  ..."
  fi
}

echo "TAP version 13"
echo "1..2"
check "adds two numbers" 5 "$(add 2 3)" "$LINENO"
check "subtracts two numbers" 1 "$(subtract 3 2)" "$LINENO"
exit "$failed"
