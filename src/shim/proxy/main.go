// Command kubecred-proxy lets kubectl reach a cluster with mTLS whose private key never leaves
// a hardware token. The broker starts it and drives it over stdin/stdout (see control.go); it
// never runs on its own, and it exits when the broker's end of the pipe closes.
package main

import (
	"context"
	"fmt"
	"os"
)

func main() {
	if err := run(context.Background(), os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "kubecred-proxy: %v\n", err)
		os.Exit(1)
	}
}
