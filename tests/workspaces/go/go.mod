module example.com/lintelgo

go 1.25
