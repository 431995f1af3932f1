fn main() {
    println!("{}", lintel_workspace_impl::double(21));
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_app_doubles() {
        assert_eq!(lintel_workspace_impl::double(1), 2);
    }
}
