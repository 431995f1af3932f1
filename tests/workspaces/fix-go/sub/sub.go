// Package sub is badly formatted
package sub

// Héllo is formatted by gofmt: ünïcödé 🚀 before the fix
func Héllo(n int) int {
    if n  >  0 { return n }
	return -n
}
