package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRequestsBeforeInitAreRefused(t *testing.T) {
	b := startFakeBroker(t, testRSAKey)
	for _, kind := range []string{"listen", "issue", "revoke", "close"} {
		reply := b.call(kind, map[string]any{"profile": "a", "ttlSeconds": 60})
		if reply["ok"] != false || !strings.HasPrefix(reply["error"].(string), "not initialised") {
			t.Fatalf("%s before init: %v", kind, reply)
		}
	}
}

func TestUnknownRequestsAndMalformedLinesDoNotStopTheChannel(t *testing.T) {
	b := startFakeBroker(t, testRSAKey)
	_, _ = b.toProxy.Write([]byte("this is not json\n\n{\"type\":\"hello\"}\n"))
	_, _ = b.toProxy.Write(append([]byte(`{"junk":"`+strings.Repeat("x", maxLine)), "\"}\n"...))
	_, _ = b.toProxy.Write([]byte(`{"id":999,"reply":true,"ok":true}` + "\n"))
	reply := b.call("frobnicate", map[string]any{})
	if reply["ok"] != false || !strings.Contains(reply["error"].(string), "no request \"frobnicate\"") {
		t.Fatalf("unknown type: %v", reply)
	}
	if reply := b.call("", map[string]any{}); reply["ok"] != false {
		t.Fatalf("no type: %v", reply)
	}
	if reply := b.call("init", map[string]any{"ca": nil}); reply["ok"] != true {
		t.Fatalf("the channel stopped after bad lines: %v", reply)
	}
	stderr := b.stderr.String()
	for _, want := range []string{"not a JSON object", "without an id", "longer than", "id 999"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no diagnostic %q in:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "this is not json") || strings.Contains(stderr, "xxxx") {
		t.Error("a control line was echoed to stderr")
	}
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if !strings.HasPrefix(line, "kubecred-proxy: ") {
			t.Errorf("a diagnostic that is not one line: %q", line)
		}
	}
}

func TestInitKeepsOneCA(t *testing.T) {
	stored, _ := newLocalCA()
	other, _ := newLocalCA()
	b := startFakeBroker(t, testRSAKey)
	first := b.mustCall("init", map[string]any{"ca": map[string]any{"certPem": stored.certPEM, "keyPem": stored.keyPEM}})["ca"].(map[string]any)
	if first["certPem"] != stored.certPEM || first["keyPem"] != stored.keyPEM {
		t.Fatal("init did not answer with the stored CA")
	}
	again := b.mustCall("init", map[string]any{"ca": nil})["ca"].(map[string]any)
	if again["certPem"] != stored.certPEM {
		t.Fatal("a repeated init changed the CA")
	}
	if reply := b.call("init", map[string]any{"ca": map[string]any{"certPem": other.certPEM, "keyPem": other.keyPEM}}); reply["ok"] != false {
		t.Fatalf("another CA replaced the first: %v", reply)
	}
}

func TestIssueAnswersACertificateKeyAndExpiry(t *testing.T) {
	e := newEnv(t, "p256")
	reply := e.b.mustCall("issue", map[string]any{"profile": "no listener yet", "ttlSeconds": 600, "caller": nil})
	notAfter, err := time.Parse(time.RFC3339, reply["notAfter"].(string))
	if err != nil || time.Until(notAfter) < 9*time.Minute || time.Until(notAfter) > 10*time.Minute {
		t.Fatalf("notAfter %v: %v", reply["notAfter"], err)
	}
	if !strings.Contains(reply["certPem"].(string), "BEGIN CERTIFICATE") || !strings.Contains(reply["keyPem"].(string), "BEGIN PRIVATE KEY") {
		t.Fatal("issue did not answer PEM")
	}
	for _, ttl := range []int{0, -5, 86401} {
		if reply := e.b.call("issue", map[string]any{"profile": "a", "ttlSeconds": ttl}); reply["ok"] != false {
			t.Fatalf("ttl %d was issued", ttl)
		}
	}
}

// A sign request waits for the broker (a PIN prompt); meanwhile the broker's own requests
// must still be answered, or a revoke could never reach a stuck handshake.
func TestAPendingSignDoesNotBlockTheControlLoop(t *testing.T) {
	e := newEnv(t, "p256")
	port := e.listen("a", nil)
	client := e.client(ptr(e.issue("a")))
	hold := make(chan struct{})
	e.b.hold.Store(&hold)
	answered := make(chan int, 1)
	go func() {
		response, err := client.Get(local(port, "/whoami"))
		if err != nil {
			t.Error(err)
			answered <- 0
			return
		}
		response.Body.Close()
		answered <- response.StatusCode
	}()
	waitFor(t, "the sign request", func() bool { return e.b.signs.Load() == 1 })
	started := time.Now()
	e.b.mustCall("issue", map[string]any{"profile": "a", "ttlSeconds": 60})
	if time.Since(started) > time.Second {
		t.Fatalf("issue waited %v behind a pending sign", time.Since(started))
	}
	close(hold)
	if code := <-answered; code != http.StatusOK {
		t.Fatalf("after the signature: %d", code)
	}
}

// Replies are matched by id, not by order.
func TestRepliesAreMatchedById(t *testing.T) {
	ctl := newController(&lockedBuffer{}, &lockedBuffer{})
	done := make(chan string, 2)
	for i, kind := range []string{"first", "second"} {
		go func() {
			raw, err := ctl.call(t.Context(), kind, nil)
			if err != nil {
				done <- err.Error()
				return
			}
			var answer struct{ Echo string }
			_ = json.Unmarshal(raw, &answer)
			done <- kind + "=" + answer.Echo
		}()
		waitFor(t, "the call's id", func() bool {
			ctl.mu.Lock()
			defer ctl.mu.Unlock()
			return ctl.pending[int64(i+1)] != nil
		})
	}
	in := strings.NewReader(`{"id":2,"reply":true,"ok":true,"echo":"two"}` + "\n" + `{"id":1,"reply":true,"ok":true,"echo":"one"}` + "\n")
	ctl.serve(in, func(string, json.RawMessage) (map[string]any, error) { return nil, nil })
	got := map[string]bool{<-done: true, <-done: true}
	if !got["first=one"] || !got["second=two"] {
		t.Fatalf("replies crossed: %v", got)
	}
	// The pipe closed: a new call fails at once instead of waiting forever.
	if _, err := ctl.call(t.Context(), "third", nil); err != errBrokerGone {
		t.Fatalf("a call after the pipe closed: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }
