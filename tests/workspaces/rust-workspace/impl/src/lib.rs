//! The member crate: one clippy finding and one failing test, both only seen with `--workspace`.

pub fn double(x: i32) -> i32 {
    x * 2
}

pub fn nothing_in(values: &[i32]) -> bool {
    values.len() == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_two() {
        assert_eq!(double(2), 5, "double(2) should be 5");
    }

    #[test]
    fn empty_is_nothing() {
        assert!(nothing_in(&[]));
    }
}
