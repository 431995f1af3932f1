// Package paint colours text as CLI libraries decide it: NO_COLOR wins, then FORCE_COLOR, then CLICOLOR_FORCE,
// then the terminal (and CLICOLOR=0 turns it off there). lintel's fixture for issue 25.
package paint

import "os"

// WantsColour says whether output to a stream (a terminal or not) should be coloured.
func WantsColour(terminal bool) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	if force, ok := os.LookupEnv("FORCE_COLOR"); ok {
		return force != "0" && force != "false"
	}
	if force := os.Getenv("CLICOLOR_FORCE"); force != "" && force != "0" {
		return true
	}
	return os.Getenv("CLICOLOR") != "0" && terminal
}

// Green colours text green when WantsColour says so.
func Green(text string, terminal bool) string {
	if WantsColour(terminal) {
		return "\x1b[32m" + text + "\x1b[0m"
	}
	return text
}
