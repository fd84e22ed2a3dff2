//go:build windows

package main

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
)

// lookFile tries p and p with each PATHEXT extension, and also accepts an
// extensionless file: bin/kubecred in a checkout is a Node script that Windows
// cannot run by itself, so execProgram runs it with node.
func lookFile(p string) (string, error) {
	found, err := exec.LookPath(p)
	if err == nil {
		return found, nil
	}
	if fi, serr := os.Stat(p); serr == nil && fi.Mode().IsRegular() && filepath.Ext(p) == "" {
		return p, nil
	}
	return "", err
}

// execProgram: Windows has no exec, so run the CLI as a child on our console
// and exit with its code. Ctrl+C reaches both processes; the shim ignores it
// so that the CLI decides how to end.
func execProgram(path string, args, env []string) (int, error) {
	name := path
	if filepath.Ext(path) == "" {
		node, err := exec.LookPath("node")
		if err != nil {
			return 1, errors.New("node is not on PATH")
		}
		name, args = node, append([]string{path}, args...)
	}
	cmd := exec.Command(name, args...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	signal.Ignore(os.Interrupt)
	err := cmd.Run()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ExitCode(), nil
	}
	if err != nil {
		return 1, err
	}
	return 0, nil
}
