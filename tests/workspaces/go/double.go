package lintelgo

// Double is formatted by hand, which gofmt -l reports.
func Double(x int) int {
    return x*2
}
