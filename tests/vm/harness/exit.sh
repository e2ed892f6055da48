#!/bin/bash
# Guest half of harness-exit: exit with the code given, or crash the kernel.
case $1 in
crash) echo c >/proc/sysrq-trigger ;;
hang) sleep 100000 ;;
*) exit "$1" ;;
esac
