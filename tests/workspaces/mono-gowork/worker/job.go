// Package worker is the other module of lintel's go.work fixture: every finding in it is deliberate.
package worker

import "os"

// Retry assigns n to itself: go vet's assign check flags it.
func Retry(n int) int {
	n = n
	return n + 1
}

// Total's first assignment is overwritten before it is read: ineffassign flags it.
func Total(items []int) int {
	sum := len(items)
	sum = 0
	for _, item := range items {
		sum += item
	}
	return sum
}

// Configure drops the error os.Setenv returns: errcheck would flag it, but worker does not enable errcheck.
func Configure(dir string) {
	os.Setenv("WORKER_HOME", dir)
}
