//! Points and ranges, with clippy lints of other names than lib.rs and a line rustfmt would rewrite.

#[derive(Debug, PartialEq)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

pub fn point(x: i32, y: i32) -> Point {
    Point { x: x, y: y }
}

pub fn in_range(value: i32) -> bool {
    value >= 1 && value <= 10
}

pub fn is_origin(p: &Point, strict: bool) -> bool {
    if strict == true {
        return p.x == 0 && p.y == 0;
    }
    p.x.abs() + p.y.abs() < 1
}

pub fn label(p: &Point) -> String { let accent = "é"; let spare = p.x; format!("{accent}{}", p.y) }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn makes_points() {
        assert_eq!(point(1, 2), Point { x: 1, y: 2 });
    }

    #[test]
    fn ranges() {
        assert!(in_range(5));
        assert!(!in_range(11));
    }
}
