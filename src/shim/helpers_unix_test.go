//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testSecret = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// shortDir: unix socket paths must stay under ~104 bytes, and t.TempDir()
// names are long.
func shortDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "ks")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// newHome makes a home with run/client-secret (written with the trailing
// newline and spaces a broker or an editor might leave).
func newHome(t *testing.T) string {
	t.Helper()
	home := shortDir(t)
	if err := os.MkdirAll(filepath.Join(home, "run"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, "run", "client-secret"), " "+testSecret+"\n", 0o600)
	return home
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

type seenRequest struct {
	method, path, auth, contentType string
	body                            map[string]any
}

// serveBroker runs an HTTP handler on the socket path; it returns the last
// request it saw.
func serveBroker(t *testing.T, sock string, h http.HandlerFunc) *seenRequest {
	t.Helper()
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	seen := &seenRequest{}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		*seen = seenRequest{r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), nil}
		if err := json.Unmarshal(raw, &seen.body); err != nil {
			t.Errorf("request body is not JSON: %q", raw)
		}
		h(w, r)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return seen
}

// serveRaw answers every connection with fixed bytes, then closes it.
func serveRaw(t *testing.T, sock, answer string) {
	t.Helper()
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 64<<10)
				c.Read(buf) // the request; its content does not matter here
				io.WriteString(c, answer)
			}()
		}
	}()
}

func sockOf(home string) string { return filepath.Join(home, "run", "broker.sock") }

type handoverCall struct {
	path       string
	args, env  []string
	calledWith bool
}

// stubHandover replaces the exec with a recorder answering code.
func stubHandover(t *testing.T, code int) *handoverCall {
	t.Helper()
	call := &handoverCall{}
	old := execCLI
	execCLI = func(path string, args, env []string) (int, error) {
		*call = handoverCall{path, args, env, true}
		return code, nil
	}
	t.Cleanup(func() { execCLI = old })
	return call
}

// stubExecutable pretends the shim runs from path (for the beside-the-shim
// lookup); by default it points where no bin/kubecred exists.
func stubExecutable(t *testing.T, path string) {
	t.Helper()
	old := executable
	executable = func() (string, error) { return path, nil }
	t.Cleanup(func() { executable = old })
}

// fakeCLI writes an executable file that stands in for bin/kubecred.
func fakeCLI(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, "#!/bin/sh\nexit 0\n", 0o755)
	return path
}

type result struct {
	code           int
	stdout, stderr string
}

// runShim calls run with an environment made of home, an empty PATH (so no
// real kubecred is found) and extra.
func runShim(t *testing.T, home string, stdin io.Reader, args []string, extra ...string) result {
	t.Helper()
	env := append([]string{"KUBECRED_HOME=" + home, "PATH=" + shortDir(t)}, extra...)
	var out, errb bytes.Buffer
	code := run(args, env, stdin, &out, &errb)
	r := result{code, out.String(), errb.String()}
	if strings.Contains(r.stdout+r.stderr, testSecret) {
		t.Errorf("the client secret leaked into the output: %+v", r)
	}
	return r
}

func wantOneLine(t *testing.T, s, contains string) {
	t.Helper()
	if strings.Count(s, "\n") != 1 || !strings.HasSuffix(s, "\n") || !strings.Contains(s, contains) {
		t.Errorf("want one line containing %q, got %q", contains, s)
	}
}
