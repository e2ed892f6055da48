#!/bin/bash
# vm: -c 2 -a blkfast.from=header
# Guest half of harness-exit's header check: the guest has what this
# header asks for and what the command line adds.
echo "header: $(nproc) vCPUs, $(grep -o 'blkfast\.from=[a-z]*' /proc/cmdline | tr '\n' ' ')"
