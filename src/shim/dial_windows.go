//go:build windows

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
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

func dialBroker(ctx context.Context, home string, getenv getenvFunc) (net.Conn, error) {
	name, _ := brokerAddress(home, getenv)
	deadline := time.Now().Add(connectTimeout)
	for {
		f, err := openPipe(name)
		if err == nil {
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
	h, err := syscall.CreateFile(p, syscall.GENERIC_WRITE, 0, nil, syscall.OPEN_EXISTING,
		securitySQOSPresent|securityIdentification, 0)
	if err == nil {
		syscall.CloseHandle(h)
	}
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
