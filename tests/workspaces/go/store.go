package lintelgo

import "strings"

// unusedHelper is never called: unused flags it.
func unusedHelper() int { return 42 }

// Count's first assignment is overwritten before it is read: ineffassign flags it.
func Count(items []string) int {
	total := len(items)
	total = 0
	for range items {
		total++
	}
	return total
}

// Has should use strings.Contains: staticcheck flags it.
func Has(s, sub string) bool {
	return strings.Index(s, sub) != -1
}
