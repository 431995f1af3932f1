// Package lintelgo is lintel's Go fixture: every finding in it is deliberate.
package lintelgo

import (
	"fmt"
	"os"
)

// Greeting greets in French.
func Greeting(name string) string {
	return "Bonjour " + name + ", un café ?"
}

// Report returns before its last statement: go vet's unreachable check flags it.
func Report(count int) string {
	return fmt.Sprint("count: ", count)
	panic("not reached")
}

// Cleanup drops the error os.Remove returns: errcheck flags it.
func Cleanup(path string) {
	os.Remove(path)
}
