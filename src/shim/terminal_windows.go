package main

import "syscall"

// isTerminalFd: only a console handle has a console mode.
func isTerminalFd(fd uintptr) bool {
	var mode uint32
	return syscall.GetConsoleMode(syscall.Handle(fd), &mode) == nil
}
