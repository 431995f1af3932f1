module example.com/mono/worker

go 1.25
