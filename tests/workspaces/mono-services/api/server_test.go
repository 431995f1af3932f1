package api

import "testing"

func TestPort(t *testing.T) {
	if got := Port(8080); got != 8080 {
		t.Errorf("Port(8080) = %d", got)
	}
}
