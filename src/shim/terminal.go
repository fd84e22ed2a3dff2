package main

import "io"

// isTerminal asks the OS whether stdin is a terminal the CLI could prompt on.
// A character-device check is not enough: client-go gives a non-interactive
// plugin /dev/null (NUL on Windows) as stdin, which is a character device too.
func isTerminal(stdin io.Reader) bool {
	f, ok := stdin.(interface{ Fd() uintptr })
	return ok && isTerminalFd(f.Fd())
}
