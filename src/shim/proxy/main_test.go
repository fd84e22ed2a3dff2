package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// The broker died (even by SIGKILL, its end of the pipe closes): run returns within 2 s and
// every port is free for the broker's next kubecred-proxy.
func TestClosingStdinEndsRunAndFreesThePorts(t *testing.T) {
	e := newEnv(t, "p256")
	portA := e.listen("a", nil)
	portB := e.listen("b", nil)
	cert := e.issue("a")
	client := e.client(&cert)
	if code, _ := e.get(client, local(portA, "/whoami"), nil); code != 200 {
		t.Fatal(code)
	}
	response, err := client.Get(local(portA, "/stream")) // a watch left open
	if err != nil {
		t.Fatal(err)
	}
	defer response.Body.Close()
	closed := time.Now()
	_ = e.b.toProxy.Close()
	select {
	case <-e.b.done:
		t.Logf("run returned %v after stdin closed", time.Since(closed))
	case <-time.After(2 * time.Second):
		t.Fatal("still running 2 s after the broker went")
	}
	assertFree(t, portA)
	assertFree(t, portB)
	if _, err := io.Copy(io.Discard, response.Body); err == nil {
		t.Log("the open watch ended cleanly")
	}
}

func TestAReadErrorOnStdinEndsRunToo(t *testing.T) {
	in, inW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(context.Background(), in, io.Discard, io.Discard) }()
	_ = inW.CloseWithError(io.ErrUnexpectedEOF)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("run did not return after a read error")
	}
}

func TestCancelingTheContextEndsRun(t *testing.T) {
	in, inW := io.Pipe()
	defer inW.Close()
	out := &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, in, out, io.Discard) }()
	_, _ = inW.Write([]byte(`{"id":1,"type":"init","ca":null}` + "\n"))
	waitFor(t, "the init reply", func() bool { return strings.Contains(out.String(), `"reply":true`) })
	cancel()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("run did not return after its context ended")
	}
}
