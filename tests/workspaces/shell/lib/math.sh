#!/usr/bin/env bash
# Arithmetic helpers sourced by the tests.

add() {
  echo $(( $1 + $2 ))
}

subtract() {
  echo $(( $1 + $2 ))
}
