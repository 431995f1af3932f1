// Package calc is the fixture's subpackage, with its own findings and a failing test.
package calc

import "os"

// Add adds.
func Add(a, b int) int { return a + b }

// Scale assigns x to itself: go vet's assign check flags it.
func Scale(x, factor int) int {
	x = x
	return x * factor
}

// Home drops the error os.Setenv returns: errcheck flags it.
func Home(dir string) {
	os.Setenv("HOME", dir)
}
