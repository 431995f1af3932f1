module example.com/fixgo

go 1.22
