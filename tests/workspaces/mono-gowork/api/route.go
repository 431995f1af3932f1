package api

// Route is formatted by hand, which gofmt -l reports.
func Route(name string) string {
    return "/"+name
}
