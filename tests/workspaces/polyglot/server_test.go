package polyglot

import "testing"

func TestPort(t *testing.T) {
	if got := Port(); got != 8081 {
		t.Errorf("Port() = %d, want 8081", got)
	}
}
