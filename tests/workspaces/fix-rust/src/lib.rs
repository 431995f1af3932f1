//! clippy and rustc findings that carry machine-applicable fixes, for tests/integration/test_fixes_rust_go.py.

use std::collections::HashMap;
use std::fmt::Write;

pub mod ranges;

pub struct Point {
    pub x: i32,
    pub y: i32,
}

pub fn make_point(x: i32, y: i32) -> Point {
    Point { x: x, y: y }
}

pub fn double(value: i32) -> i32 {
    return value * 2;
}

pub fn is_empty(items: &Vec<i32>) -> bool {
    items.len() == 0
}

pub fn greet(name: &str, s: &str) -> String {
    let label = "héllo 🚀 wörld"; if s.len() == 0 { return label.to_string(); }
    format!("{}", name)
}

pub fn flag(done: bool) -> bool {
    if done == true {
        return true;
    }
    false
}

pub fn total(values: &[i32]) -> i32 {
    let mut sum = 0;
    for v in values.iter() {
        sum += *v;
    }
    let result = sum;
    result
}

pub fn copy_it(p: &i32) -> i32 {
    p.clone()
}

pub fn counted() -> i32 {
    let mut count = 3;
    let unused = 7;
    count
}
