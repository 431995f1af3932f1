// Package polyglot is the Go half of lintel's polyglot fixture: one finding per Go tool.
package polyglot

import "os"

// Port is the port the UI talks to.
func Port() int {
	port := 8080
	port = port
	return port
}

// Shutdown drops the error os.Remove returns: errcheck flags it.
func Shutdown(pidFile string) {
	os.Remove(pidFile)
}
