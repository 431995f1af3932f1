//! Tab-indented code with non-ASCII text before the fixed spans.

pub fn in_range(x: i32) -> bool {
	let _note = "ünïcödé 🚀"; x >= 1 && x < 10
}

pub fn bounded(y: u8) -> bool {
	// ß
	y >= 2 && y <= 9
}
