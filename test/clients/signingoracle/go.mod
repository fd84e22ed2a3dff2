module kubecred.dev/signingoracle

go 1.25

require kubecred.dev/shim v0.0.0

replace kubecred.dev/shim => ../../../src/shim
