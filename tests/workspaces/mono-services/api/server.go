// Package api is the Go service of lintel's monorepo fixture (no workspace file): its findings are deliberate.
package api

import "os"

// Port assigns p to itself: go vet's assign check flags it.
func Port(p int) int {
	p = p
	return p
}

// Shutdown drops the error os.Remove returns: errcheck flags it.
func Shutdown(pidfile string) {
	os.Remove(pidfile)
}
