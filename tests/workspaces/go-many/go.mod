module example.com/lintelmany

go 1.25
