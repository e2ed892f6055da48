#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# host-alone: the mutants' killers are VM tests, some of them timing relations
# A few mutants proved again on every run: tests change, and a mutant
# proves nothing once its killer has stopped looking, while `make mutants`
# (every one, over an hour) is too slow for each submission.  The sample
# starts at a mutant chosen by the checked-out commit and takes as many
# in turn as BLKFAST_MUTANT_SAMPLE_S seconds allow (default 1: one a run,
# 1-4 minutes with its build and killers), so that successive commits
# cover them all; each must fail its tests for the reason it names
# (scripts/mutants.sh -s).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
exec scripts/mutants.sh -s "${BLKFAST_MUTANT_SAMPLE_S:-1}"
