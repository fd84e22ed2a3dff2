package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

// channelFlag names the Unix socket, in the broker's private run directory, that carries the
// control channel. The broker passes it on Linux and macOS: the descriptors a process has from
// its start (stdin, stdout, stderr) can be copied by another program of the user while the Go
// runtime starts, before forbidDumps runs, so nothing secret may ever travel over them. A
// socket this process connects to after forbidDumps is a descriptor no such copy holds, and the
// broker takes it only from the pid it started (see docs/exec-proxy.md, "The control channel").
const channelFlag = "--channel"

// channelDialTimeout bounds the wait for the broker to accept: a broker gone meanwhile must not
// leave a proxy behind.
const channelDialTimeout = 10 * time.Second

// controlChannel is where the broker's messages come from and where the proxy's go.
type controlChannel struct {
	in    io.Reader
	out   io.Writer
	close func()
}

// openControlChannel connects to the broker's socket when the arguments name one (called
// after forbidDumps), else uses stdin and stdout: Windows, where no per-process switch keeps
// the user's other programs out of this process at any time (see dumpable_other.go).
func openControlChannel(args []string) (controlChannel, error) {
	path, err := channelPath(args)
	if err != nil {
		return controlChannel{}, err
	}
	if path == "" {
		return controlChannel{in: os.Stdin, out: os.Stdout, close: func() {}}, nil
	}
	conn, err := net.DialTimeout("unix", path, channelDialTimeout)
	if err != nil {
		return controlChannel{}, fmt.Errorf("cannot reach the broker's control channel (%v): the broker starts kubecred-proxy, run it through Kubecred", err)
	}
	return controlChannel{in: conn, out: conn, close: func() { _ = conn.Close() }}, nil
}

// channelPath reads `--channel <path>` or `--channel=<path>`; no arguments: stdio.
func channelPath(args []string) (string, error) {
	switch {
	case len(args) == 0:
		return "", nil
	case len(args) == 2 && args[0] == channelFlag && args[1] != "":
		return args[1], nil
	case len(args) == 1 && len(args[0]) > len(channelFlag)+1 && args[0][:len(channelFlag)+1] == channelFlag+"=":
		return args[0][len(channelFlag)+1:], nil
	}
	return "", errors.New("unknown arguments: the broker starts kubecred-proxy with --channel <socket> or none, run it through Kubecred")
}
