module kubecred.dev/bench

go 1.21
