package worker

import "testing"

func TestTotal(t *testing.T) {
	if got := Total([]int{1, 2}); got != 3 {
		t.Errorf("Total = %d, want 3", got)
	}
}

func TestRetry(t *testing.T) {
	if got := Retry(1); got != 3 {
		t.Errorf("Retry(1) = %d, want 3", got)
	}
}
