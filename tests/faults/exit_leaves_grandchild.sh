#!/bin/sh
# Fault: exits at once, leaving a backgrounded grandchild that keeps stdout and stderr open.
sleep 600 &
echo "child $$"
echo "grandchild $!"
echo "done" >&2
exit 3
