package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The cases the CLI's rule is tested with too (test/unit/platform/shimSessionEnvironment.test.ts).
type sessionCases struct {
	Kept        map[string]bool `json:"kept"`
	SearchPaths []struct {
		Path, CallerDir, Home, Shared string
		// Directories that hold a project marker (.git, .envrc) in this case's world.
		Projects []string
	} `json:"searchPaths"`
}

func loadSessionCases(t *testing.T) sessionCases {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "test", "fixtures", "sessionEnvironment", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c sessionCases
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Kept) == 0 || len(c.SearchPaths) == 0 {
		t.Fatal("no cases")
	}
	return c
}

func TestSessionVariablesAsTheCLIKeepsThem(t *testing.T) {
	for name, want := range loadSessionCases(t).Kept {
		if got := isSessionVariable(name); got != want {
			t.Errorf("%s: kept %v, want %v", name, got, want)
		}
	}
}

func TestSharedSearchPathAsTheCLIMakesIt(t *testing.T) {
	for _, c := range loadSessionCases(t).SearchPaths {
		isProject := func(dir string) bool { return slices.Contains(c.Projects, dir) }
		if got := sharedSearchPath(c.Path, c.CallerDir, c.Home, isProject); got != c.Shared {
			t.Errorf("%q from %q: got %q, want %q", c.Path, c.CallerDir, got, c.Shared)
		}
	}
}

func TestSessionEnvironmentDropsTheRestAndSharesPath(t *testing.T) {
	got := sessionEnvironment([]string{
		"HOME=/home/ann", "PATH=/home/ann/src/app/bin:/usr/bin", "AWS_SECRET_ACCESS_KEY=planted-secret",
		"KUBECRED_HOME=/home/ann/kc", "NODE_OPTIONS=--require=/tmp/x.js",
	}, "/home/ann/src/app")
	want := []string{"HOME=/home/ann", "PATH=/usr/bin", "KUBECRED_HOME=/home/ann/kc"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
