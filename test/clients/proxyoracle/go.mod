module kubecred.dev/test/proxyoracle

go 1.24
