module example.com/services/api

go 1.25
