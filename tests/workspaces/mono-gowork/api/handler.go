// Package api is one module of lintel's go.work fixture: every finding in it is deliberate.
package api

import (
	"fmt"
	"os"
)

// Status returns before its last statement: go vet's unreachable check flags it.
func Status(code int) string {
	return fmt.Sprint("status ", code)
	panic("not reached")
}

// Purge drops the error os.Remove returns: errcheck flags it.
func Purge(path string) {
	os.Remove(path)
}
