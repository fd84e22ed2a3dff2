package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/creack/pty"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/utils/exec"
)

// localRuntime stands in for the container runtime: every container of every pod is this
// machine, with root as the working directory.
type localRuntime struct{ root string }

// ExecInContainer runs cmd as a local process; with tty, on a pseudo-terminal that follows the
// client's window size, as `kubectl exec -it` expects.
func (r *localRuntime) ExecInContainer(ctx context.Context, _ string, _ types.UID, _ string, cmd []string, in io.Reader, out, stderr io.WriteCloser, tty bool, resize <-chan remotecommand.TerminalSize, _ time.Duration) error {
	if len(cmd) == 0 {
		return errors.New("no command")
	}
	process := exec.CommandContext(ctx, cmd[0], cmd[1:]...)
	process.Dir = r.root
	process.Env = append(os.Environ(), "TERM=xterm")
	var err error
	if tty {
		err = runOnTerminal(process, in, out, resize)
	} else {
		process.Stdin, process.Stdout, process.Stderr = in, out, stderr
		err = process.Run()
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return utilexec.ExitErrorWrapper{ExitError: exitErr}
	}
	return err
}

func runOnTerminal(process *exec.Cmd, in io.Reader, out io.Writer, resize <-chan remotecommand.TerminalSize) error {
	terminal, err := pty.Start(process)
	if err != nil {
		return err
	}
	defer terminal.Close()
	go func() {
		for size := range resize {
			_ = pty.Setsize(terminal, &pty.Winsize{Rows: size.Height, Cols: size.Width})
		}
	}()
	if in != nil {
		go func() { _, _ = io.Copy(terminal, in) }()
	}
	copied := make(chan struct{})
	go func() {
		// EIO once the process exits and the terminal's other end closes: that is the end of output.
		_, _ = io.Copy(out, terminal)
		close(copied)
	}()
	err = process.Wait()
	<-copied
	return err
}

// AttachContainer joins the container's main process, which here echoes each line of its
// input back, prefixed, so a test can see both directions.
func (r *localRuntime) AttachContainer(ctx context.Context, name string, _ types.UID, container string, in io.Reader, out, _ io.WriteCloser, _ bool, _ <-chan remotecommand.TerminalSize) error {
	if out != nil {
		fmt.Fprintf(out, "attached to %s/%s\n", name, container)
	}
	if in == nil {
		<-ctx.Done()
		return nil
	}
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		if out != nil {
			fmt.Fprintf(out, "echo: %s\n", lines.Text())
		}
	}
	return nil
}

// PortForward connects the stream to the port on this machine's loopback.
func (r *localRuntime) PortForward(ctx context.Context, _ string, _ types.UID, port int32, stream io.ReadWriteCloser) error {
	defer stream.Close()
	var dialer net.Dialer
	conn, err := dialer.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port))))
	if err != nil {
		return fmt.Errorf("port %d: %w", port, err)
	}
	defer conn.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(conn, stream); done <- struct{}{} }()
	go func() { _, _ = io.Copy(stream, conn); done <- struct{}{} }()
	<-done
	return nil
}
