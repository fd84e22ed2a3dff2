package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Seams for tests: the real ones replace the process (unix) or run a child.
var (
	execCLI    = execProgram
	executable = os.Executable
)

var errCLINotFound = errors.New("kubecred CLI not found")

// cliLayouts: where the CLI sits, seen from the shim's directory.
//   - a checkout or npm package: <root>/dist/shim/<goos>-<goarch>/ and <root>/bin/kubecred;
//   - the packaged app: resources/shim/<goos>-<goarch>/ and the launcher in
//     resources/bin/kubecred (kubecred.cmd on Windows, found through PATHEXT),
//     which runs the app's own binary as Node.
var cliLayouts = [][]string{{"..", "..", ".."}, {"..", ".."}}

// findCLI: $KUBECRED_CLI, else the CLI of the layout the shim sits in
// (cliLayouts), else kubecred on PATH.
func findCLI(getenv getenvFunc) (string, error) {
	if p := getenv("KUBECRED_CLI"); p != "" {
		found, err := lookCLI(p, getenv)
		if err != nil {
			// An explicit setting that does not work must not silently fall
			// back to some other kubecred.
			return "", fmt.Errorf("KUBECRED_CLI is set to %q, which is not an executable file", p)
		}
		return found, nil
	}
	if self, err := executable(); err == nil {
		// Resolve symlinks: the shim is usually reached through a link in
		// node_modules/.bin or a bin dir on PATH.
		if real, err := filepath.EvalSymlinks(self); err == nil {
			for _, up := range cliLayouts {
				beside := filepath.Join(append([]string{filepath.Dir(real)}, append(up, "bin", "kubecred")...)...)
				if found, err := lookFile(beside); err == nil {
					return found, nil
				}
			}
		}
	}
	if found, err := lookCLI("kubecred", getenv); err == nil && !isSelf(found) {
		return found, nil
	}
	return "", errCLINotFound
}

// lookCLI is exec.LookPath on the PATH of the environment the shim was given.
// Empty and relative PATH entries are skipped: never run a kubecred that
// happens to sit in the current directory.
func lookCLI(name string, getenv getenvFunc) (string, error) {
	if strings.ContainsAny(name, `/\`) {
		return lookFile(name)
	}
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if filepath.IsAbs(dir) {
			if found, err := lookFile(filepath.Join(dir, name)); err == nil {
				return found, nil
			}
		}
	}
	return "", errCLINotFound
}

// isSelf stops an endless exec loop when the shim itself is installed as
// `kubecred` on PATH.
func isSelf(path string) bool {
	self, err := executable()
	if err != nil {
		return false
	}
	a, err1 := filepath.EvalSymlinks(self)
	b, err2 := filepath.EvalSymlinks(path)
	return err1 == nil && err2 == nil && a == b
}

// handover gives the whole request to the Node CLI: same argv, same env,
// inherited stdio (the shim never reads stdin, so it is intact).
func handover(args, env []string, getenv getenvFunc, stderr io.Writer, notFound string) int {
	cli, err := findCLI(getenv)
	if errors.Is(err, errCLINotFound) {
		fmt.Fprintln(stderr, notFound)
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "kubecred: %s\n", err)
		return 1
	}
	code, err := execCLI(cli, args, env)
	if err != nil {
		fmt.Fprintf(stderr, "kubecred: cannot run the kubecred CLI %s: %s\n", cli, oneLine(err))
		return 1
	}
	return code
}

// One line each, for when the CLI cannot be found.
const (
	msgNoBroker = "kubecred: the Kubecred broker is not running and the kubecred CLI to start it was not found; start Kubecred, or set KUBECRED_CLI to the kubecred executable"
	msgTerminal = "kubecred: the Kubecred broker needs a terminal prompt and the kubecred CLI to show it was not found; install the kubecred CLI, or set KUBECRED_CLI to the kubecred executable"
)
