use lintel_rust_fixture::{add, shapes};

fn main() {
    let values = vec![1, 2, 3];
    let total = add(values.len() as i32,1);
    println!("{total} {:?}", shapes::point(total, 0));
}
