//! ENV_FIXTURE_EXPECT, set by lintel's own tests, names variables and the values the test binary was started
//! with, one `NAME=value` or `NAME` (unset) per line. One test only: the others change the environment.

use std::env;

#[test]
fn the_environment_is_the_one_the_tests_were_started_in() {
    let expected = env::var("ENV_FIXTURE_EXPECT").unwrap_or_default();
    for line in expected.lines().filter(|l| !l.is_empty()) {
        let (name, value) = match line.split_once('=') {
            Some((name, value)) => (name, Some(value.to_string())),
            None => (line, None),
        };
        assert_eq!(env::var(name).ok(), value, "{name}");
    }
}
