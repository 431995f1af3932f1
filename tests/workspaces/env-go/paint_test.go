package paint

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// The library's own tests: they pass in a shell or CI that does not set NO_COLOR, as most do not.

func TestForceColorColoursAPipe(t *testing.T) {
	t.Setenv("FORCE_COLOR", "1")
	if got := Green("ok", false); got != "\x1b[32mok\x1b[0m" {
		t.Errorf("Green = %q", got)
	}
}

func TestClicolorForceColoursAPipe(t *testing.T) {
	t.Setenv("FORCE_COLOR", "")
	os.Unsetenv("FORCE_COLOR")
	t.Setenv("CLICOLOR_FORCE", "1")
	if got := Green("ok", false); got != "\x1b[32mok\x1b[0m" {
		t.Errorf("Green = %q", got)
	}
}

// ENV_FIXTURE_EXPECT, set by lintel's own tests, names variables and the values (null: unset) the test runner
// was started with.
func TestTheEnvironmentIsTheOneTheTestsWereStartedIn(t *testing.T) {
	expected := map[string]*string{}
	if text, ok := os.LookupEnv("ENV_FIXTURE_EXPECT"); ok {
		if err := json.Unmarshal([]byte(text), &expected); err != nil {
			t.Fatal(err)
		}
	}
	actual := map[string]*string{}
	for name := range expected {
		if value, ok := os.LookupEnv(name); ok {
			actual[name] = &value
		} else {
			actual[name] = nil
		}
	}
	if !reflect.DeepEqual(actual, expected) {
		t.Errorf("environment %v, expected %v", show(actual), show(expected))
	}
}

func show(values map[string]*string) map[string]string {
	shown := map[string]string{}
	for name, value := range values {
		if value == nil {
			shown[name] = "(unset)"
		} else {
			shown[name] = *value
		}
	}
	return shown
}
