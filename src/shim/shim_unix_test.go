//go:build unix

package main

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

var credArgs = []string{"credential", "demo", "--flag=x y"}

func TestSuccessBodyGoesToStdoutByteForByte(t *testing.T) {
	home := newHome(t)
	body := "{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"t\u00e9\u2028\"}}\n\n"
	serveBroker(t, sockOf(home), func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Kubecred-Exit-Code", "0")
		w.Write([]byte(body))
	})
	r := runShim(t, home, nil, credArgs)
	if r.code != 0 || r.stdout != body || r.stderr != "" {
		t.Fatalf("got %+v", r)
	}
}

func TestFailureBodyGoesToStderrWithTheBrokersExitCode(t *testing.T) {
	home := newHome(t)
	msg := "kubecred: profile \"demo\" needs a login\n  hint: run kubecred login demo\n"
	serveBroker(t, sockOf(home), func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Kubecred-Exit-Code", "7")
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(msg))
	})
	r := runShim(t, home, nil, credArgs)
	if r.code != 7 || r.stdout != "" || r.stderr != msg {
		t.Fatalf("got %+v", r)
	}
}

func TestFailureWithoutUsableExitCodeExits1(t *testing.T) {
	for _, h := range []string{"", "nope", "0"} {
		home := newHome(t)
		serveBroker(t, sockOf(home), func(w http.ResponseWriter, r *http.Request) {
			if h != "" {
				w.Header().Set("Kubecred-Exit-Code", h)
			}
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte("boom\n"))
		})
		if r := runShim(t, home, nil, credArgs); r.code != 1 || r.stderr != "boom\n" || r.stdout != "" {
			t.Errorf("header %q: got %+v", h, r)
		}
	}
}

func TestRequestCarriesArgvExecInfoClientAndSecret(t *testing.T) {
	ok := func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) }
	for _, c := range []struct {
		name  string
		extra []string
		want  any
	}{
		{"unset exec info is null", nil, nil},
		{"empty exec info is a string", []string{"KUBERNETES_EXEC_INFO="}, ""},
		{"exec info is raw", []string{`KUBERNETES_EXEC_INFO={"kind":"ExecCredential", "spec":{"interactive":false}}`}, `{"kind":"ExecCredential", "spec":{"interactive":false}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := newHome(t)
			seen := serveBroker(t, sockOf(home), ok)
			if r := runShim(t, home, nil, credArgs, c.extra...); r.code != 0 {
				t.Fatalf("got %+v", r)
			}
			if seen.method != "POST" || seen.path != "/v1/credential" || seen.contentType != "application/json" {
				t.Errorf("request line: %+v", seen)
			}
			if seen.auth != "Bearer "+testSecret {
				t.Errorf("Authorization: %q", seen.auth)
			}
			want := map[string]any{
				"argv":            []any{"credential", "demo", "--flag=x y"},
				"execInfo":        c.want,
				"stdinIsTerminal": false,
				"parentPid":       float64(os.Getppid()),
				"client":          "shim",
			}
			if !reflect.DeepEqual(seen.body, want) {
				t.Errorf("body:\n got %#v\nwant %#v", seen.body, want)
			}
		})
	}
}

func TestStdinIsTerminal(t *testing.T) {
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	pr, pw, _ := os.Pipe()
	defer pr.Close()
	defer pw.Close()
	// /dev/null is a character device but no terminal: client-go hands it
	// to non-interactive plugins.
	for name, f := range map[string]*os.File{"devnull": devnull, "pipe": pr} {
		if isTerminal(f) {
			t.Errorf("%s reported as a terminal", name)
		}
	}
	if isTerminal(nil) || isTerminal(strings.NewReader("")) {
		t.Errorf("a non-file reported as a terminal")
	}
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pty here: %v", err)
	}
	defer ptmx.Close()
	if !isTerminal(ptmx) {
		t.Errorf("a pty is not reported as a terminal")
	}
	home := newHome(t)
	seen := serveBroker(t, sockOf(home), func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("{}")) })
	runShim(t, home, ptmx, credArgs)
	if seen.body["stdinIsTerminal"] != true {
		t.Errorf("stdinIsTerminal: %v", seen.body["stdinIsTerminal"])
	}
}

func TestNoBrokerHandsOverWithSameArgvAndEnv(t *testing.T) {
	setups := map[string]func(t *testing.T, home string){
		"secret missing": func(t *testing.T, home string) {
			os.Remove(filepath.Join(home, "run", "client-secret"))
			serveBroker(t, sockOf(home), func(w http.ResponseWriter, r *http.Request) { t.Error("should not be asked") })
		},
		"secret empty": func(t *testing.T, home string) {
			writeFile(t, filepath.Join(home, "run", "client-secret"), "\n", 0o600)
		},
		"home missing":   func(t *testing.T, home string) { os.RemoveAll(home) },
		"socket missing": func(t *testing.T, home string) {},
		"connection refused": func(t *testing.T, home string) {
			ln, err := net.Listen("unix", sockOf(home))
			if err != nil {
				t.Fatal(err)
			}
			ln.(*net.UnixListener).SetUnlinkOnClose(false) // leave a stale socket, as a crashed broker does
			ln.Close()
		},
	}
	for name, setup := range setups {
		t.Run(name, func(t *testing.T) {
			home := newHome(t)
			setup(t, home)
			cli := fakeCLI(t, filepath.Join(shortDir(t), "my kubecred"))
			call := stubHandover(t, 42)
			r := runShim(t, home, nil, credArgs, "KUBECRED_CLI="+cli, "KUBERNETES_EXEC_INFO={}")
			if r.code != 42 || r.stdout != "" || r.stderr != "" {
				t.Fatalf("got %+v", r)
			}
			if call.path != cli || !reflect.DeepEqual(call.args, credArgs) {
				t.Errorf("handover: %+v", call)
			}
			wantEnv := []string{"KUBECRED_HOME=" + home, "KUBECRED_CLI=" + cli, "KUBERNETES_EXEC_INFO={}"}
			for _, kv := range wantEnv {
				if !contains(call.env, kv) {
					t.Errorf("env lacks %q: %v", kv, call.env)
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestHandoverHeaderHandsOver(t *testing.T) {
	home := newHome(t)
	serveBroker(t, sockOf(home), func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Kubecred-Handover", "terminal")
		w.Header().Set("Kubecred-Exit-Code", "1")
		w.WriteHeader(http.StatusConflict)
		w.Write([]byte("needs a terminal\n"))
	})
	cli := fakeCLI(t, filepath.Join(shortDir(t), "kubecred"))
	call := stubHandover(t, 0)
	r := runShim(t, home, nil, credArgs, "KUBECRED_CLI="+cli)
	if r.code != 0 || r.stdout != "" || r.stderr != "" || !call.calledWith {
		t.Fatalf("got %+v, handover %+v", r, call)
	}
}

func TestCLINotFound(t *testing.T) {
	stubHandover(t, 0)
	stubExecutable(t, filepath.Join(shortDir(t), "dist", "shim", "linux-amd64", "kubecred-shim"))

	r := runShim(t, newHome(t), nil, credArgs)
	if r.code != 1 || r.stdout != "" || r.stderr != msgNoBroker+"\n" {
		t.Errorf("no broker: got %+v", r)
	}

	home := newHome(t)
	serveBroker(t, sockOf(home), func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Kubecred-Handover", "terminal")
		w.WriteHeader(http.StatusConflict)
	})
	r = runShim(t, home, nil, credArgs)
	if r.code != 1 || r.stdout != "" || r.stderr != msgTerminal+"\n" {
		t.Errorf("handover: got %+v", r)
	}
}

func TestBadKUBECRED_CLIIsNotSilentlyReplaced(t *testing.T) {
	call := stubHandover(t, 0)
	dir := shortDir(t)
	fakeCLI(t, filepath.Join(dir, "kubecred")) // on PATH, must not be used
	notExec := filepath.Join(dir, "plain")
	writeFile(t, notExec, "", 0o644)
	for _, p := range []string{filepath.Join(dir, "missing"), notExec} {
		r := runShim(t, newHome(t), nil, credArgs, "KUBECRED_CLI="+p, "PATH="+dir)
		if r.code != 1 || call.calledWith {
			t.Errorf("%s: got %+v", p, r)
		}
		wantOneLine(t, r.stderr, "KUBECRED_CLI is set to")
	}
}

func TestFindCLIOrder(t *testing.T) {
	root := shortDir(t)
	shim := filepath.Join(root, "pkg", "dist", "shim", "linux-amd64", "kubecred-shim")
	fakeCLI(t, shim)
	beside := fakeCLI(t, filepath.Join(root, "pkg", "bin", "kubecred"))
	link := filepath.Join(root, "kubecred-shim")
	if err := os.Symlink(shim, link); err != nil {
		t.Fatal(err)
	}
	onPath := fakeCLI(t, filepath.Join(root, "path", "kubecred"))
	fakeCLI(t, filepath.Join(root, "rel", "kubecred"))
	path := "PATH=" + strings.Join([]string{"", "rel", filepath.Join(root, "empty"), filepath.Dir(onPath)}, ":")

	stubExecutable(t, link)
	if got, err := findCLI(env("KUBECRED_CLI="+onPath, path)); got != onPath || err != nil {
		t.Errorf("KUBECRED_CLI first: %q %v", got, err)
	}
	got, err := findCLI(env(path))
	if err != nil || filepath.Clean(got) != beside {
		t.Errorf("beside the shim (through the symlink): %q %v", got, err)
	}
	stubExecutable(t, filepath.Join(root, "elsewhere", "kubecred-shim"))
	// "rel" in PATH must not count even where it resolves.
	if wd, err := os.Getwd(); err == nil {
		os.Chdir(root)
		defer os.Chdir(wd)
	}
	if got, err := findCLI(env(path)); got != onPath || err != nil {
		t.Errorf("PATH last: %q %v", got, err)
	}
	if got, err := findCLI(env("PATH=")); err != errCLINotFound {
		t.Errorf("nothing found: %q %v", got, err)
	}
	// The shim itself installed as `kubecred` must not exec itself forever.
	stubExecutable(t, onPath)
	if _, err := findCLI(env(path)); err != errCLINotFound {
		t.Errorf("self on PATH: %v", err)
	}
}

// The packaged app (electron-builder): resources/shim/<target>/kubecred-shim and the CLI
// launcher in resources/bin/kubecred, not three levels up: with the app not running, every
// kubectl would fail "CLI not found".
func TestFindCLIInThePackagedApp(t *testing.T) {
	root := shortDir(t)
	resources := filepath.Join(root, "Kubecred", "resources")
	shim := filepath.Join(resources, "shim", "linux-amd64", "kubecred-shim")
	fakeCLI(t, shim)
	launcher := fakeCLI(t, filepath.Join(resources, "bin", "kubecred"))
	stubExecutable(t, shim)
	got, err := findCLI(env("PATH="))
	if err != nil || filepath.Clean(got) != launcher {
		t.Errorf("the packaged launcher: %q %v", got, err)
	}
}

func TestBadAnswersExit1WithNothingOnStdout(t *testing.T) {
	for name, answer := range map[string]string{
		"not http":       "garbage\r\n\r\n",
		"empty":          "",
		"cut short":      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"kind\":\"ExecCre",
		"chunk cut":      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{\"kind\":\"ExecCre\r\n",
		"200 not json":   "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		"200 half json":  "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{\"kind\":",
		"error cut":      "HTTP/1.1 500 Oops\r\nContent-Length: 50\r\n\r\npartial",
		"status garbage": "HTTP/1.1 abc\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			home := newHome(t)
			serveRaw(t, sockOf(home), answer)
			stubHandover(t, 99)
			r := runShim(t, home, nil, credArgs)
			if r.code != 1 || r.stdout != "" {
				t.Fatalf("got %+v", r)
			}
			t.Logf("stderr: %s", r.stderr)
			wantOneLine(t, r.stderr, "kubecred: ")
		})
	}
}

func TestUsageWithoutArguments(t *testing.T) {
	r := runShim(t, newHome(t), nil, nil)
	if r.code != 2 || r.stdout != "" {
		t.Fatalf("got %+v", r)
	}
	wantOneLine(t, r.stderr, "usage: kubecred-shim credential <profile>")
}

func TestLongHomeUsesTheTmpdirSocket(t *testing.T) {
	tmp := shortDir(t)
	home := filepath.Join(shortDir(t), strings.Repeat("h", 60), strings.Repeat("o", 40))
	if err := os.MkdirAll(filepath.Join(home, "run"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, "run", "client-secret"), testSecret, 0o600)

	sockDir := filepath.Join(tmp, "kubecred-"+strconv.Itoa(os.Getuid()))
	stubHandover(t, 42)
	cli := "KUBECRED_CLI=" + fakeCLI(t, filepath.Join(tmp, "kubecred"))
	if r := runShim(t, home, nil, credArgs, "TMPDIR="+tmp+"/", cli); r.code != 42 {
		t.Fatalf("no socket dir should hand over: %+v", r)
	}

	if err := os.Mkdir(sockDir, 0o700); err != nil {
		t.Fatal(err)
	}
	serveBroker(t, filepath.Join(sockDir, homeHash(home)+".sock"), func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"ok":true}`))
	})
	if r := runShim(t, home, nil, credArgs, "TMPDIR="+tmp+"/"); r.code != 0 || r.stdout != `{"ok":true}` {
		t.Fatalf("got %+v", r)
	}

	// Someone else could swap the socket in a group/world-writable dir.
	os.Chmod(sockDir, 0o777)
	r := runShim(t, home, nil, credArgs, "TMPDIR="+tmp)
	if r.code != 1 || r.stdout != "" {
		t.Fatalf("got %+v", r)
	}
	wantOneLine(t, r.stderr, "refusing to use the socket directory")
}

func TestNoticesGoToStderrAsTheyComeWithoutEscapes(t *testing.T) {
	home := newHome(t)
	var accepts string
	serveBroker(t, sockOf(home), func(w http.ResponseWriter, r *http.Request) {
		accepts = r.Header.Get("Kubecred-Accept-Notices")
		w.Header().Set("Kubecred-Notice", "sign%20in%20to%20profile%20%22sso%22%3A%20enter%20the%20code%20ABCD-EFGH%1B%5D2%3Bpwned%07")
		w.WriteHeader(102)
		w.Header().Del("Kubecred-Notice")
		w.Header().Set("Kubecred-Exit-Code", "0")
		w.Write([]byte("{}"))
	})
	r := runShim(t, home, nil, credArgs)
	if accepts != "1" {
		t.Errorf("the request did not say it reads notices: %q", accepts)
	}
	want := "kubecred: sign in to profile \"sso\": enter the code ABCD-EFGH]2;pwned\n"
	if r.code != 0 || r.stdout != "{}" || r.stderr != want {
		t.Fatalf("got %+v, want stderr %q", r, want)
	}
}

// Issue 32: the shim starts the broker itself; a start that takes long says so on kubectl's
// terminal, and a broker that will not start is the CLI's to report.
func TestASlowBrokerStartIsToldThenHandedOver(t *testing.T) {
	home := newHome(t)
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	slow := filepath.Join(shortDir(t), "kubecred")
	// The daemon gets the session's PATH (here none): the script names sleep by its path.
	writeFile(t, slow, "#!/bin/sh\n"+sleep+" 1.5\nexit 1\n", 0o755)
	call := stubHandover(t, 7)
	start := time.Now()
	r := runShim(t, home, nil, credArgs, "KUBECRED_CLI="+slow)
	if r.code != 7 || !call.calledWith {
		t.Fatalf("got %+v", r)
	}
	if d := time.Since(start); d < time.Second || d > 5*time.Second {
		t.Errorf("handed over after %s", d)
	}
	wantOneLine(t, r.stderr, "kubecred: starting the Kubecred broker (its log: "+filepath.Join(home, "state", "daemon.log")+")")
}
