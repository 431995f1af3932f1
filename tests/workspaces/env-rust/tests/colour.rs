//! The library's own tests: they pass in a shell or CI that does not set NO_COLOR, as most do not. One test
//! binary runs its tests on threads, so the environment is changed by one test only.

use lintel_env_rust_fixture::green;
use std::env;

#[test]
fn force_color_then_clicolor_force_colour_a_pipe() {
    env::set_var("FORCE_COLOR", "1");
    assert_eq!(green("ok", false), "\x1b[32mok\x1b[0m");
    env::remove_var("FORCE_COLOR");
    env::set_var("CLICOLOR_FORCE", "1");
    assert_eq!(green("ok", false), "\x1b[32mok\x1b[0m");
}
