#!/usr/bin/env bash
# Runs a command and then prints how long it took: scripts/timed.sh NAME COMMAND [ARGS...].
# The exit status is the command's.
set -uo pipefail
name=$1
shift
start=$(date +%s)
"$@"
status=$?
echo "$name: $(($(date +%s) - start)) s"
exit $status
