//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// lookFile: p names an executable regular file.
func lookFile(p string) (string, error) {
	return exec.LookPath(p)
}

// execProgram replaces the shim with the CLI, so kubectl sees one process
// whose stdio, signals and exit code are the CLI's own. It returns only on
// failure.
func execProgram(path string, args, env []string) (int, error) {
	argv := append([]string{path}, args...)
	return 1, syscall.Exec(path, argv, env)
}
