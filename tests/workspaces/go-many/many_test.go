package many

import (
	"testing"
	"time"
)

// Three tests run in parallel: one fails, one panics, one would pass but is cut short by the panic, which
// ends the whole test binary.

func TestSlowButFine(t *testing.T) {
	t.Parallel()
	time.Sleep(2 * time.Second)
}

func TestIndexOutOfRange(t *testing.T) {
	t.Parallel()
	time.Sleep(200 * time.Millisecond)
	var names []string
	_ = names[3]
}

func TestWrongCount(t *testing.T) {
	t.Parallel()
	if got := 2 + 2; got != 5 {
		t.Errorf("count = %d, want 5", got)
	}
}
