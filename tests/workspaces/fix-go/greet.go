// Package fixgo holds findings whose linters carry suggested fixes
package fixgo

import (
	"fmt"
	"net/http"
	"strings"
)

// Greet says hello to the wörld 🚀 and is ocurred often
func Greet(name string) string {

	return fmt.Sprintf("%s", name)
}

// Shout greets loudly, the wörld 🚀 included.
func Shout(name string) string {
	return fmt.Sprint(strings.ToUpper(name), "!")
}

// Check tells a GET request
func Check(r *http.Request) bool {
	return r.Method == "GET"
}

// Has reports a substring.
func Has(s, sub string) bool {
	return strings.Index(s, sub) != -1
}
