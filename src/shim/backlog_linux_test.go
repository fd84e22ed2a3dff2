package main

import (
	"errors"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"
)

// listenBacklog0 listens without ever accepting, with the smallest backlog,
// so that connecting soon fails with EAGAIN like a swamped broker.
func listenBacklog0(t *testing.T, path string) {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	fillBacklog(t, path)
}

func fillBacklog(t *testing.T, path string) {
	t.Helper()
	for i := 0; i < 10; i++ {
		c, err := net.DialTimeout("unix", path, time.Second)
		if errors.Is(err, syscall.EAGAIN) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
	}
	t.Skip("could not fill the listen backlog")
}

func TestConnectTimeoutHandsOver(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the connect timeout")
	}
	home := newHome(t)
	listenBacklog0(t, sockOf(home))
	call := stubHandover(t, 42)
	start := time.Now()
	r := runShim(t, home, nil, credArgs, "KUBECRED_CLI="+fakeCLI(t, shortDir(t)+"/kubecred"))
	if r.code != 42 || !call.calledWith {
		t.Fatalf("got %+v", r)
	}
	if d := time.Since(start); d < connectTimeout || d > connectTimeout+time.Second {
		t.Errorf("handed over after %s, want about %s", d, connectTimeout)
	}
}

func TestFullBacklogWaitsForTheBroker(t *testing.T) {
	home := newHome(t)
	ln, err := net.Listen("unix", sockOf(home))
	if err != nil {
		t.Fatal(err)
	}
	// Fill the queue of a listener that does not accept yet, then start
	// serving: the shim must wait, not fail.
	raw, _ := ln.(*net.UnixListener).SyscallConn()
	raw.Control(func(fd uintptr) { syscall.Listen(int(fd), 0) })
	fillBacklog(t, sockOf(home))
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) })}
	t.Cleanup(func() { srv.Close() })
	time.AfterFunc(300*time.Millisecond, func() { srv.Serve(ln) })
	if r := runShim(t, home, nil, credArgs); r.code != 0 || r.stdout != "{}" {
		t.Fatalf("got %+v", r)
	}
}
