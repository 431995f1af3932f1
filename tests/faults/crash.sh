#!/bin/sh
# Fault: prints a line, then kills itself with signal SIGNAL (a name such as SEGV).
echo "about to crash"
kill -s "$1" $$
sleep 5
