//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// provesCallerByPipe: on a Unix socket the broker asks the kernel (SO_PEERCRED) who is at
// the other end; nothing to prove.
const provesCallerByPipe = false

func openCallerCheck(string) {}

// brokerAddress: the socket for this home, and whether it is the shared
// tmpdir fallback.
func brokerAddress(home string, getenv getenvFunc) (addr string, fallback bool) {
	return socketPath(home, getenv("TMPDIR"), os.Getuid())
}

// dialBroker connects with a blocking socket. The shim does one thing at a
// time, and Go's poller (a non-blocking socket, the goroutine parked until
// another thread sees it ready) cost a few tenths of a millisecond on each
// kubectl call.
func dialBroker(_ context.Context, home string, getenv getenvFunc) (brokerConn, error) {
	path, fallback := brokerAddress(home, getenv)
	if fallback {
		if err := checkSharedDir(path); err != nil {
			return nil, err
		}
	}
	// Not inherited by the CLI a handover execs (SOCK_CLOEXEC is not on every Unix).
	syscall.ForkLock.RLock()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("cannot make a socket: %w", err)
	}
	conn := &socketConn{fd: fd}
	// A blocking connect waits while the broker's listen backlog is full
	// (Linux refuses a non-blocking one at once), up to the timeout.
	deadline := time.Now().Add(connectTimeout)
	if err := conn.SetDeadline(deadline); err != nil {
		conn.Close()
		return nil, err
	}
	for {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
		if errors.Is(err, syscall.EINTR) && time.Now().Before(deadline) {
			continue
		}
		break
	}
	if errors.Is(err, syscall.EISCONN) {
		err = nil // an interrupted connect that went through meanwhile
	}
	if err != nil {
		conn.Close()
		if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.ETIMEDOUT) {
			return nil, fmt.Errorf("%w: %w: %s", errNoBroker, errBrokerBusy, path)
		}
		if isNoBroker(err) {
			return nil, fmt.Errorf("%w: %s", errNoBroker, path)
		}
		return nil, fmt.Errorf("cannot connect to the broker at %s: %w", path, err)
	}
	return conn, nil
}

// socketConn is a connected, blocking Unix socket.
type socketConn struct{ fd int }

func (c *socketConn) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(c.fd, p)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EAGAIN):
			return 0, os.ErrDeadlineExceeded // SO_RCVTIMEO ran out
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *socketConn) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		n, err := syscall.Write(c.fd, p[written:])
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EAGAIN):
			return written, os.ErrDeadlineExceeded // SO_SNDTIMEO ran out
		case err != nil:
			return written, err
		}
		written += n
	}
	return written, nil
}

func (c *socketConn) Close() error { return syscall.Close(c.fd) }

// SetDeadline bounds each read and write (and a connect) by the time left.
func (c *socketConn) SetDeadline(t time.Time) error {
	tv := syscall.NsecToTimeval(max(time.Until(t), time.Millisecond).Nanoseconds())
	for _, opt := range []int{syscall.SO_RCVTIMEO, syscall.SO_SNDTIMEO} {
		if err := syscall.SetsockoptTimeval(c.fd, syscall.SOL_SOCKET, opt, &tv); err != nil {
			return fmt.Errorf("cannot set the socket's timeout: %w", err)
		}
	}
	return nil
}

// isNoBroker: the socket is absent or stale (refused) or nobody accepts in
// time (timeout, or a backlog still full at the deadline); all mean "start
// the broker", which only the CLI can do.
func isNoBroker(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOENT) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOTDIR) ||
		errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.ETIMEDOUT)
}

// checkSharedDir guards the tmpdir fallback: another local user could have
// created /tmp/kubecred-<uid> first and listen there to collect our secret.
// The directory must be ours and writable only by us.
func checkSharedDir(sock string) error {
	dir := filepath.Dir(sock)
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s", errNoBroker, sock)
	}
	if err != nil {
		return fmt.Errorf("cannot check the socket directory %s: %w", dir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("refusing to use the socket directory %s: it must be a directory owned by you and writable only by you", dir)
	}
	return nil
}
