//go:build unix

package main

import (
	"net"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// A broker that restarted after the shim read its secret answers 401; the
// shim reads the new secret and asks once more.
func TestRotatedSecretIsReadAgain(t *testing.T) {
	home := newHome(t)
	secretFile := filepath.Join(home, "run", "client-secret")
	var calls atomic.Int32
	serveBroker(t, sockOf(home), func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			writeFile(t, secretFile, "rotated-secret\n", 0o600)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if r.Header.Get("Authorization") != "Bearer rotated-secret" {
			t.Errorf("second request carried %q", r.Header.Get("Authorization"))
		}
		w.Header().Set("Kubecred-Exit-Code", "0")
		w.Write([]byte(`{"status":{"token":"t"}}`))
	})
	r := runShim(t, home, nil, credArgs)
	if r.code != 0 || r.stdout != `{"status":{"token":"t"}}` || calls.Load() != 2 {
		t.Fatalf("got %+v after %d calls", r, calls.Load())
	}
}

// A broker that dies mid-request twice in a row is left to the CLI, which can
// wait for it to go and start a new one.
func TestBrokerGoneTwiceHandsOver(t *testing.T) {
	home := newHome(t)
	ln, err := net.Listen("unix", sockOf(home))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Close() // takes the request, then vanishes
		}
	}()
	cli := fakeCLI(t, filepath.Join(shortDir(t), "kubecred"))
	call := stubHandover(t, 0)
	r := runShim(t, home, nil, credArgs, "KUBECRED_CLI="+cli)
	if r.code != 0 || r.stdout != "" || !call.calledWith {
		t.Fatalf("got %+v, handover %+v", r, call)
	}
}
