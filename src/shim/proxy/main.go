// Command kubecred-proxy lets kubectl reach a cluster with mTLS whose private key never leaves
// a hardware token. The broker starts it and drives it over a control channel (control.go): a
// Unix socket in the broker's private run directory that the proxy connects to once it is
// non-dumpable (channel.go), or stdin/stdout on Windows. It never runs on its own, and it
// exits when the broker's end of the channel closes.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// First, before the control channel exists: a refusal here is fatal, since the promise is
	// that no other program of the user can use the token's key or the local CA through us.
	if err := forbidDumps(); err != nil {
		fmt.Fprintf(os.Stderr, "kubecred-proxy: cannot make the process non-dumpable: %v\n", err)
		os.Exit(1)
	}
	// Only now the channel: a descriptor made once the process is non-dumpable, which no other
	// program of the user can copy (see channel.go).
	channel, err := openControlChannel(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "kubecred-proxy: %v\n", err)
		os.Exit(1)
	}
	defer channel.close()
	// SIGTERM from a service manager (or Ctrl-C in the broker's terminal) frees the ports
	// as cleanly as the pipe closing does.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, channel.in, channel.out, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "kubecred-proxy: %v\n", err)
		os.Exit(1)
	}
}

// run serves the broker until its end of the control channel closes (EOF or a read error:
// the broker died, even by SIGKILL) or ctx ends, then closes every listener and returns.
func run(ctx context.Context, in io.Reader, out, diag io.Writer) error {
	ctl := newController(out, diag)
	p := newProxy(ctl)
	served := make(chan struct{})
	go func() {
		ctl.serve(in, p.handle)
		close(served)
	}()
	select {
	case <-served:
	case <-ctx.Done():
		// The reading goroutine may stay blocked on stdin; the process is about to exit.
	}
	ctl.shutdown()
	p.closeAll()
	return nil
}
