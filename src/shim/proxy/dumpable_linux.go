package main

import "syscall"

// prSetDumpable is PR_SET_DUMPABLE from <linux/prctl.h>.
const prSetDumpable = 4

// forbidDumps makes the process non-dumpable: no core file, and no same-user ptrace,
// pidfd_getfd or /proc/<pid>/mem. Otherwise any program of the user could borrow the control
// channel and have the broker sign with the token's key, or read the local CA's key and the
// keys of the certificates just issued.
func forbidDumps() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0); errno != 0 {
		return errno
	}
	return nil
}
