module example.com/mono/api

go 1.25
