module kubecred.dev/shim

go 1.25
