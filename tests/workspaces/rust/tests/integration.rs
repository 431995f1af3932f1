use lintel_rust_fixture::{add, is_empty_list};

#[test]
fn empty_list_is_empty() {
    assert!(is_empty_list(&[ ]));
}

#[test]
fn addition_is_wrong_here() {
    assert_eq!(add(1, 2), 4, "integration: 1 + 2 should be 4");
}
