#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fuzz pdm_table_parse() with libFuzzer under ASan/UBSan for FUZZ_SECONDS
# (default 30) in FUZZ_FORKS (default 2, one a core) processes that share
# a corpus (libFuzzer's -fork), starting from the table corpus,
# tests/pdm-tables/ (good and bad).  New inputs go to a scratch copy in
# build/fuzz/, never into the corpus.  Fails on any crash, leak,
# sanitizer report or broken invariant.
set -u
cd "$(dirname "$0")/../.." || exit 1

seconds=${FUZZ_SECONDS:-30}
forks=${FUZZ_FORKS:-2}
out=build/fuzz
bin=$out/table-fuzz
scratch=$out/corpus-table
cc=${FUZZ_CC:-clang}

fail() {
	echo "FAIL: $*"
	exit 1
}

command -v "$cc" >/dev/null ||
	fail "clang with libFuzzer is required; apt install clang"
mkdir -p "$out" || fail "cannot create $out"
# -Werror as everywhere; a missing libFuzzer shows up as a link error.
read -ra targets <<<"$(scripts/pdm-targets.sh sources)" ||
	fail "no target list"
"$cc" -g -O1 -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -Iinclude -Iinclude/uapi -Ipoll -Itests/unit \
	tests/fuzz/table-fuzz.c "${targets[@]}" -o "$bin" ||
	fail "cannot build $bin: clang with libFuzzer is required; apt install clang"

rm -rf "$scratch" "$out/crashes"
mkdir -p "$scratch" "$out/crashes"
for t in tests/pdm-tables/*/*.table; do
	# One folder: good/ and bad/ both hold 01-*.
	cp "$t" "$scratch/$(basename "$(dirname "$t")")-$(basename "$t")" ||
		fail "no seed corpus"
done

# -max_len: inputs of PDM_MAX_TABLE would slow every run (the size limit
# has its own unit test); 64 KiB still holds over 1024 segments.
"$bin" -fork="$forks" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
	-rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$out/crashes/" "$scratch" 2>&1 | tail -n 25
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || fail "table-fuzz exited $rc; reproducers: $(ls "$out/crashes")"
[ -z "$(ls "$out/crashes")" ] || fail "crash inputs in $out/crashes"
echo "ok: table-fuzz ran ${seconds}s in $forks processes without a finding"
