#!/bin/sh
# Fault: a tool that hangs with a grandchild. Prints "child <pid>" and "grandchild <pid>" at once
# (and writes them to PIDFILE when given), then waits forever.
# MODE "ignore-term": child and grandchild ignore SIGTERM, so only SIGKILL ends them.
# Usage: hang_tree.sh plain|ignore-term [PIDFILE]
if [ "$1" = ignore-term ]; then
    trap '' TERM  # inherited by the grandchild as SIG_IGN
fi
sleep 600 &
pids="child $$
grandchild $!"
echo "$pids"
if [ -n "$2" ]; then
    echo "$pids" > "$2.tmp" && mv "$2.tmp" "$2"
fi
while :; do
    wait
    sleep 1
done
