//go:build windows

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// Not in package syscall. SQOS with SecurityIdentification stops a process
// that squats our pipe name from impersonating us (os.OpenFile would allow
// full impersonation).
const (
	securitySQOSPresent    = 0x00100000
	securityIdentification = 1 << 16
	errorPipeBusy          = syscall.Errno(231)
)

func brokerAddress(home string, _ getenvFunc) (addr string, fallback bool) {
	return pipeName(home), false
}

func dialBroker(ctx context.Context, home string, getenv getenvFunc) (brokerConn, error) {
	name, _ := brokerAddress(home, getenv)
	deadline := time.Now().Add(connectTimeout)
	for {
		f, err := openPipe(name)
		if err == nil {
			if err := servedByBroker(f, home); err != nil {
				f.Close()
				return nil, err
			}
			return &pipeConn{f: f, addr: pipeAddr(name)}, nil
		}
		switch {
		case errors.Is(err, syscall.ERROR_FILE_NOT_FOUND), errors.Is(err, syscall.ERROR_PATH_NOT_FOUND):
			return nil, fmt.Errorf("%w: %s", errNoBroker, name)
		case errors.Is(err, errorPipeBusy):
			// Every instance is taken; the broker makes a new one per accept,
			// so retry briefly (WaitNamedPipe is not in package syscall).
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("%w: %s is busy", errNoBroker, name)
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		default:
			return nil, fmt.Errorf("cannot connect to the broker at %s: %w", name, err)
		}
	}
}

func openPipe(name string) (*os.File, error) {
	p, err := syscall.UTF16PtrFromString(name)
	if err != nil {
		return nil, err
	}
	h, err := syscall.CreateFile(p, syscall.GENERIC_READ|syscall.GENERIC_WRITE, 0, nil,
		syscall.OPEN_EXISTING, securitySQOSPresent|securityIdentification, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(h), name), nil
}

// provesCallerByPipe: the broker cannot ask Windows who is at the other end of its pipe, so it
// asks the client to open a one-time pipe of the broker's (docs/wire-protocol.md).
const provesCallerByPipe = true

// openCallerCheck opens (and at once closes) the broker's one-time pipe: that Windows saw this
// process open it is the proof. Only a caller-check pipe of Kubecred's is opened, write-only
// and at identification level, so the name cannot point it at another program's pipe.
func openCallerCheck(name string) {
	if !strings.HasPrefix(name, `\\.\pipe\kubecred-caller-`) || len(name) != len(`\\.\pipe\kubecred-caller-`)+32 {
		return
	}
	p, err := syscall.UTF16PtrFromString(name)
	if err != nil {
		return
	}
	// The broker made the pipe before it named it, but its one instance may not be free yet (a
	// busy machine, Wine): a client retries a busy or not-yet-listening pipe for a moment, as
	// Windows' own WaitNamedPipe would, instead of leaving the broker to call it an unknown caller.
	for deadline := time.Now().Add(time.Second); ; time.Sleep(10 * time.Millisecond) {
		h, err := syscall.CreateFile(p, syscall.GENERIC_WRITE, 0, nil, syscall.OPEN_EXISTING,
			securitySQOSPresent|securityIdentification, 0)
		if err == nil {
			syscall.CloseHandle(h)
			return
		}
		if (err != errorPipeBusy && err != syscall.ERROR_FILE_NOT_FOUND) || time.Now().After(deadline) {
			return
		}
	}
}

var getNamedPipeServerProcessID = syscall.NewLazyDLL("kernel32.dll").NewProc("GetNamedPipeServerProcessId")

// servedByBroker: pipe names are global on Windows, so any program could have made this one
// before the broker did. Before the client secret is sent, the process serving the pipe must
// be the broker that holds this home's lock (run\broker.lock, which only this user can write).
func servedByBroker(f *os.File, home string) error {
	var server uint32
	if r, _, callErr := getNamedPipeServerProcessID.Call(f.Fd(), uintptr(unsafe.Pointer(&server))); r == 0 {
		return fmt.Errorf("cannot tell which process serves %s (%v); not sending it the client secret", f.Name(), callErr)
	}
	lock := filepath.Join(home, "run", "broker.lock")
	b, err := os.ReadFile(lock)
	owner, convErr := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 32)
	if err != nil || convErr != nil {
		return fmt.Errorf("refusing to talk to %s: no broker holds this home's lock (%s), yet something serves the pipe; another program may hold the broker's pipe name: end it, then run kubecred restart", f.Name(), lock)
	}
	if uint32(owner) != server {
		return fmt.Errorf("refusing to talk to %s: the process serving it (pid %d) is not the Kubecred broker (pid %d in %s); another program holds the broker's pipe name: end it, then run kubecred restart", f.Name(), server, owner, lock)
	}
	return nil
}

type pipeAddr string

func (a pipeAddr) Network() string { return "pipe" }
func (a pipeAddr) String() string  { return string(a) }

// pipeConn is the least net.Conn http.Transport needs. The handle is
// synchronous, so deadlines are unsupported; the request's context bounds the
// wait instead and the process exits when it fires.
type pipeConn struct {
	f    *os.File
	addr pipeAddr
}

func (c *pipeConn) Read(b []byte) (int, error) {
	n, err := c.f.Read(b)
	if errors.Is(err, syscall.ERROR_BROKEN_PIPE) {
		err = io.EOF // the broker closed its end: a normal end of stream
	}
	return n, err
}
func (c *pipeConn) Write(b []byte) (int, error)      { return c.f.Write(b) }
func (c *pipeConn) Close() error                     { return c.f.Close() }
func (c *pipeConn) LocalAddr() net.Addr              { return c.addr }
func (c *pipeConn) RemoteAddr() net.Addr             { return c.addr }
func (c *pipeConn) SetDeadline(time.Time) error      { return nil }
func (c *pipeConn) SetReadDeadline(time.Time) error  { return nil }
func (c *pipeConn) SetWriteDeadline(time.Time) error { return nil }
