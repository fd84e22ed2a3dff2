package main

import (
	"context"
	"io"
	"net/http"
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

// New user review 4, N26: the broker killed while a confirm waited for the person. kubectl got
// "unexpected EOF"; it hears why instead, and that nothing reached the cluster.
func TestABrokerThatDiesDuringAConfirmLeavesKubectlAnAnswer(t *testing.T) {
	e, port, client := confirmDeletesEnv(t)
	asked := make(chan struct{})
	never := make(chan struct{})
	defer close(never)
	e.b.answerConfirms(func(map[string]any) map[string]any {
		close(asked)
		<-never
		return map[string]any{"allow": true}
	})
	type answer struct {
		code int
		body string
	}
	answered := make(chan answer, 1)
	go func() {
		request, _ := http.NewRequest("DELETE", local(port, "/api/v1/namespaces/default/pods/web"), nil)
		response, err := client.Do(request)
		if err != nil {
			answered <- answer{0, err.Error()}
			return
		}
		defer response.Body.Close()
		body, _ := io.ReadAll(response.Body)
		answered <- answer{response.StatusCode, string(body)}
	}()
	<-asked
	_ = e.b.toProxy.Close()
	select {
	case got := <-answered:
		if got.code == 0 {
			t.Fatalf("no answer, the connection dropped: %s", got.body)
		}
		s := decodeStatus(t, got.body)
		want := `kubecred: delete pods "web" in namespace "default" (profile a) was not sent: Kubecred stopped while it waited for your answer. Run the command again (Kubecred starts again with it)`
		if got.code != 503 || s.Message != want {
			t.Fatalf("%d %q\nwant 503 %q", got.code, s.Message, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer 5 s after the broker went")
	}
}
