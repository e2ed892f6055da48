#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# baseline: that two copies of the test corpus agree
# The malformed-table corpus embedded in tests/vm/pdm-bad-tables.sh (only
# tests/vm reaches the guest) is tests/pdm-tables/bad/ byte for byte: the
# same files, the same bytes, the same EXPECTED.
# shellcheck source=tests/host/lib.sh
. "$(dirname "$0")/lib.sh"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bash tests/vm/pdm-bad-tables.sh --write-corpus "$out" ||
	fail "pdm-bad-tables.sh --write-corpus failed"
diff -r "$out" tests/pdm-tables/bad ||
	fail "the corpus in tests/vm/pdm-bad-tables.sh differs from tests/pdm-tables/bad"
tables=(tests/pdm-tables/bad/*.table)
n=${#tables[@]}
[ "$n" -ge 30 ] || fail "only $n tables in tests/pdm-tables/bad"
echo "ok: $n tables and EXPECTED match tests/pdm-tables/bad"
