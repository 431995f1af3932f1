package lintelgo

import "strings"

// unusedHelper is never called: unused flags it.
func unusedHelper() int { return 42 }

// Count's first assignment to total is overwritten before it is read: ineffassign flags it, at a column
// that counts 14 in bytes but 13 in characters (é is two bytes in UTF-8).
func Count(items []string) int {
	étiquette, total := "items", len(items)
	total = 0
	for range items {
		total++
	}
	return total + len(étiquette)
}

// Has should use strings.Contains: staticcheck flags it.
func Has(s, sub string) bool {
	return strings.Index(s, sub) != -1
}
