module example.com/paint

go 1.25
