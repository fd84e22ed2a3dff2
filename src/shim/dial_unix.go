//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
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

func dialBroker(ctx context.Context, home string, getenv getenvFunc) (net.Conn, error) {
	path, fallback := brokerAddress(home, getenv)
	if fallback {
		if err := checkSharedDir(path); err != nil {
			return nil, err
		}
	}
	deadline := time.Now().Add(connectTimeout)
	for {
		d := net.Dialer{Deadline: deadline}
		conn, err := d.DialContext(ctx, "unix", path)
		if err == nil {
			return conn, nil
		}
		if errors.Is(err, syscall.EAGAIN) && time.Now().Before(deadline) {
			// Linux fails at once when the listen backlog is full, where a
			// blocking connect would wait: wait here, up to the timeout.
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(10 * time.Millisecond):
				continue
			}
		}
		if isNoBroker(err) {
			return nil, fmt.Errorf("%w: %s", errNoBroker, path)
		}
		return nil, fmt.Errorf("cannot connect to the broker at %s: %w", path, err)
	}
}

// isNoBroker: the socket is absent or stale (refused) or nobody accepts in
// time (timeout, or a backlog still full at the deadline); all mean "start
// the broker", which only the CLI can do.
func isNoBroker(err error) bool {
	var ne net.Error
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOENT) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOTDIR) ||
		errors.Is(err, syscall.EAGAIN) ||
		(errors.As(err, &ne) && ne.Timeout())
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
