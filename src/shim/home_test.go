package main

import (
	"strings"
	"testing"
)

func env(kv ...string) getenvFunc { return envGetter(kv, "linux") }

func TestResolveHome(t *testing.T) {
	cases := []struct {
		name, goos string
		env        []string
		want       string
	}{
		{"override wins on linux", "linux", []string{"KUBECRED_HOME=/x/kc", "XDG_CONFIG_HOME=/xdg", "HOME=/home/u"}, "/x/kc"},
		{"override wins on windows", "windows", []string{"KUBECRED_HOME=D:\\kc", "APPDATA=C:\\AD"}, "D:\\kc"},
		{"override is made absolute and clean, as the broker does", "linux", []string{"KUBECRED_HOME=/x//kc/"}, "/x/kc"},
		{"empty override ignored", "linux", []string{"KUBECRED_HOME=", "HOME=/home/u"}, "/home/u/.config/kubecred"},
		{"linux xdg", "linux", []string{"XDG_CONFIG_HOME=/xdg", "HOME=/home/u"}, "/xdg/kubecred"},
		{"linux empty xdg", "linux", []string{"XDG_CONFIG_HOME=", "HOME=/home/u"}, "/home/u/.config/kubecred"},
		{"linux default", "linux", []string{"HOME=/home/u"}, "/home/u/.config/kubecred"},
		{"freebsd uses xdg rules", "freebsd", []string{"XDG_CONFIG_HOME=/xdg"}, "/xdg/kubecred"},
		{"macos ignores xdg", "darwin", []string{"XDG_CONFIG_HOME=/xdg", "HOME=/Users/u"}, "/Users/u/Library/Application Support/Kubecred"},
		{"windows appdata", "windows", []string{`APPDATA=C:\Users\u\AppData\Roaming`}, `C:\Users\u\AppData\Roaming\Kubecred`},
		{"windows names fold case", "windows", []string{`AppData=C:\AD\`}, `C:\AD\Kubecred`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := resolveHome(c.goos, envGetter(c.env, c.goos))
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestResolveHomeFailsWithoutAnyHint(t *testing.T) {
	for _, goos := range []string{"linux", "darwin", "windows"} {
		if h, err := resolveHome(goos, env()); err != errNoHome {
			t.Errorf("%s: got %q, %v; want errNoHome", goos, h, err)
		}
	}
	// Names are case-sensitive off Windows.
	if _, err := resolveHome("linux", env("home=/home/u")); err != errNoHome {
		t.Errorf("linux matched a lowercase name")
	}
}

func TestLookupEnvTellsUnsetFromEmpty(t *testing.T) {
	e := []string{"A=", "B=1", "B=2", "weird"}
	if v, ok := lookupEnv(e, "A", false); !ok || v != "" {
		t.Errorf("A: %q %v", v, ok)
	}
	if v, ok := lookupEnv(e, "B", false); !ok || v != "2" {
		t.Errorf("B: last one should win, got %q", v)
	}
	if _, ok := lookupEnv(e, "C", false); ok {
		t.Errorf("C should be unset")
	}
}

func TestSocketPath(t *testing.T) {
	p, fb := socketPath("/home/u/.config/kubecred", "/tmp", 1000)
	if p != "/home/u/.config/kubecred/run/broker.sock" || fb {
		t.Fatalf("short home: %q %v", p, fb)
	}

	// Exactly 100 bytes stays, 101 falls back.
	base := "/" + strings.Repeat("a", 100-len("/")-len("/run/broker.sock"))
	if p, fb := socketPath(base, "/tmp", 1); len(p) != 100 || fb {
		t.Fatalf("100 bytes should not fall back: %q", p)
	}
	long := base + "b"
	p, fb = socketPath(long, "/var/folders/xy/T/", 501)
	want := "/var/folders/xy/T/kubecred-501/" + homeHash(long) + ".sock"
	if p != want || !fb {
		t.Fatalf("long home: got %q, want %q", p, want)
	}
	if p, _ := socketPath(long, "", 501); !strings.HasPrefix(p, "/tmp/kubecred-501/") {
		t.Fatalf("empty TMPDIR should mean /tmp: %q", p)
	}
}

func TestHomeHashIsFirst16HexOfSHA256(t *testing.T) {
	// Expected values from `printf %s "$home" | sha256sum | cut -c1-16`.
	if h := homeHash("/home/u/.config/kubecred"); h != "be8deba7be2a4baf" {
		t.Errorf("got %s", h)
	}
	if p := pipeName(`C:\Users\u\AppData\Roaming\Kubecred`); p != `\\.\pipe\kubecred-4086ec82dffd2708` {
		t.Errorf("got %s", p)
	}
}

func TestFailureExitCode(t *testing.T) {
	for h, want := range map[string]int{"": 1, "3": 3, " 42 ": 42, "abc": 1, "0": 1, "-2": 1, "256": 1, "255": 255, "1.5": 1} {
		if got := failureExitCode(h); got != want {
			t.Errorf("%q: got %d want %d", h, got, want)
		}
	}
}
