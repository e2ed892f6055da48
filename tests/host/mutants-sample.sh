#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# host-alone: the mutants' killers are VM tests, some of them timing relations
# A few mutants proved again on every run: tests change, and a mutant
# proves nothing once its killer has stopped looking, while `make mutants`
# (every one, over an hour) is too slow for each submission.  The sample
# is a rotation, least recently proved first (tests/mutants/proved), each
# commit further along it; it takes as many in turn as
# BLKFAST_MUTANT_SAMPLE_S seconds allow (default 1: one a run, 1-4
# minutes with its build and killers, more for one that the debug tier
# kills), rt and debug mutants too once their kernels are here; each must
# fail its tests for the reason it names (scripts/mutants.sh -s).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
exec scripts/mutants.sh -s "${BLKFAST_MUTANT_SAMPLE_S:-1}"
