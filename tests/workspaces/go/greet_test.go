package lintelgo

import "testing"

func TestGreeting(t *testing.T) {
	if got := Greeting("Ana"); got != "Bonjour Ana, un café ?" {
		t.Errorf("Greeting = %q", got)
	}
}

func TestDouble(t *testing.T) {
	if Double(2) != 4 {
		t.Error("Double(2) != 4")
	}
}
