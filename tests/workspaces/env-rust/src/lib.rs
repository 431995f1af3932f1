//! Colour decided as CLI libraries decide it: NO_COLOR wins, then FORCE_COLOR, then CLICOLOR_FORCE, then the
//! terminal (and CLICOLOR=0 turns it off there). lintel's fixture for issue 25.

use std::env;

/// Whether output to a stream (a terminal or not) should be coloured.
pub fn wants_colour(terminal: bool) -> bool {
    if env::var("NO_COLOR").is_ok_and(|v| !v.is_empty()) {
        return false;
    }
    if let Ok(force) = env::var("FORCE_COLOR") {
        return force != "0" && force != "false";
    }
    if env::var("CLICOLOR_FORCE").is_ok_and(|v| !v.is_empty() && v != "0") {
        return true;
    }
    env::var("CLICOLOR").map_or(true, |v| v != "0") && terminal
}

/// `text` in green when `wants_colour` says so.
pub fn green(text: &str, terminal: bool) -> String {
    if wants_colour(terminal) {
        format!("\x1b[32m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}
