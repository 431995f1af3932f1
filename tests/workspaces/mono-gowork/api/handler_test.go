package api

import "testing"

func TestStatus(t *testing.T) {
	if got := Status(200); got != "status 200" {
		t.Errorf("Status(200) = %q", got)
	}
}
