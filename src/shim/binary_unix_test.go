//go:build unix

package main

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	builtShim string
	buildErr  error
	buildOut  []byte
)

// shimBinary builds the real kubecred-shim once per test run.
func shimBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ksbin")
		if err != nil {
			buildErr = err
			return
		}
		builtShim = filepath.Join(dir, "kubecred-shim")
		// `go test` puts its own go first on PATH.
		cmd := exec.Command("go", "build", "-trimpath", "-o", builtShim, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("go build: %v\n%s", buildErr, buildOut)
	}
	return builtShim
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtShim != "" {
		os.RemoveAll(filepath.Dir(builtShim))
	}
	os.Exit(code)
}

// runBinary runs bin with exactly env (plus a PATH with only /bin and
// /usr/bin, for the shell scripts).
func runBinary(t *testing.T, bin, stdin string, args []string, env ...string) (r result, pid int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Start()
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	r = result{cmd.ProcessState.ExitCode(), out.String(), errb.String()}
	if strings.Contains(r.stdout+r.stderr, testSecret) {
		t.Errorf("the client secret leaked: %+v", r)
	}
	return r, cmd.Process.Pid
}

func TestBinaryAgainstFakeBroker(t *testing.T) {
	bin := shimBinary(t)
	home := newHome(t)
	body := `{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"abc"}}` + "\n"
	seen := serveBroker(t, sockOf(home), func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Authorization"), testSecret) && len(r.Header.Values("Authorization")) == 1 {
			w.Write([]byte(body))
			return
		}
		w.Header().Set("Kubecred-Exit-Code", "3")
		w.WriteHeader(401)
		w.Write([]byte("bad secret\n"))
	})
	r, pid := runBinary(t, bin, "", credArgs, "KUBECRED_HOME="+home, "KUBERNETES_EXEC_INFO={\"spec\":{}}")
	if r.code != 0 || r.stdout != body || r.stderr != "" {
		t.Fatalf("got %+v", r)
	}
	if seen.body["parentPid"] != float64(os.Getpid()) || seen.body["execInfo"] != `{"spec":{}}` || seen.body["stdinIsTerminal"] != false {
		t.Errorf("request from pid %d: %v", pid, seen.body)
	}

	writeFile(t, filepath.Join(home, "run", "client-secret"), strings.Repeat("f", 64), 0o600)
	r, _ = runBinary(t, bin, "", credArgs, "KUBECRED_HOME="+home)
	if r.code != 3 || r.stdout != "" || r.stderr != "bad secret\n" {
		t.Fatalf("got %+v", r)
	}
}

// handoverScript stands in for the Node CLI: it reports its pid, argv, one
// variable and its stdin, then exits 5.
const handoverScript = `#!/bin/sh
echo "pid=$$"
for a in "$@"; do echo "arg=$a"; done
echo "info=$KUBERNETES_EXEC_INFO"
echo "stdin=$(cat)"
echo "to stderr" >&2
exit 5
`

func TestBinaryExecsTheCLIInPlace(t *testing.T) {
	bin := shimBinary(t)
	dir := shortDir(t)
	script := filepath.Join(dir, "fake kubecred")
	writeFile(t, script, handoverScript, 0o755)

	// No secret, no socket: the broker is not running.
	r, pid := runBinary(t, bin, "piped input", []string{"credential", "demo", "--x=a b", ""},
		"KUBECRED_HOME="+filepath.Join(dir, "nohome"), "KUBECRED_CLI="+script, "KUBERNETES_EXEC_INFO={\"a\":1}")
	want := "pid=" + strconv.Itoa(pid) + "\narg=credential\narg=demo\narg=--x=a b\narg=\ninfo={\"a\":1}\nstdin=piped input\n"
	if r.code != 5 || r.stdout != want || r.stderr != "to stderr\n" {
		t.Fatalf("got %+v\nwant stdout %q", r, want)
	}
}

func TestBinaryFindsTheCLIBesideItThroughASymlink(t *testing.T) {
	bin := shimBinary(t)
	root := shortDir(t)
	shim := filepath.Join(root, "pkg", "dist", "shim", "linux-amd64", "kubecred-shim")
	if err := os.MkdirAll(filepath.Dir(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, shim, string(data), 0o755)
	os.MkdirAll(filepath.Join(root, "pkg", "bin"), 0o755)
	writeFile(t, filepath.Join(root, "pkg", "bin", "kubecred"), handoverScript, 0o755)
	link := filepath.Join(root, "kubecred-shim")
	if err := os.Symlink(shim, link); err != nil {
		t.Fatal(err)
	}

	r, _ := runBinary(t, link, "", []string{"credential", "p"}, "KUBECRED_HOME="+filepath.Join(root, "nohome"))
	if r.code != 5 || !strings.Contains(r.stdout, "arg=credential\narg=p\n") {
		t.Fatalf("got %+v", r)
	}

	os.Remove(filepath.Join(root, "pkg", "bin", "kubecred"))
	r, _ = runBinary(t, link, "", []string{"credential", "p"}, "KUBECRED_HOME="+filepath.Join(root, "nohome"))
	if r.code != 1 || r.stdout != "" || r.stderr != msgNoBroker+"\n" {
		t.Fatalf("got %+v", r)
	}
}
