#!/bin/sh
# Fault: an interactive tool that asks a question on stdin. Exits 5 on EOF.
printf 'Continue? [y/N] '
if read -r answer; then
    echo "answer: $answer"
    exit 0
fi
echo "EOF on stdin"
exit 5
