//! lintel's Rust fixture: every finding below is deliberate and its line is pinned by the tests.

pub mod shapes;

/// Adds two numbers.
///
/// ```
/// assert_eq!(lintel_rust_fixture::add(1, 1), 2);
/// ```
pub fn add(a: i32, b: i32) -> i32 {
    return a + b;
}

/// Whether a list holds nothing.
pub fn is_empty_list(items: &[i32]) -> bool {
    items.len() == 0
}

/// A greeting in French.
pub fn greet(name: &str) -> String {
    let unused = 42;
    format!("Bonjour {name}, un café ?")
}

fn never_called() -> i32 {
    7
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_small_numbers() {
        assert_eq!(add(2, 2), 4);
    }

    #[test]
    fn adds_wrong() {
        assert_eq!(add(2, 2), 5, "add(2, 2) should be 5");
    }

    #[test]
    fn greets() {
        assert!(greet("Zoé").contains("Zoé"));
    }
}
