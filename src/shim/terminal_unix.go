//go:build unix

package main

import (
	"syscall"
	"unsafe"
)

// isTerminalFd is isatty(3): only a tty answers the get-termios ioctl.
func isTerminalFd(fd uintptr) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, ioctlGetTermios, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
