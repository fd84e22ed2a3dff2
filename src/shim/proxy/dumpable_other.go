//go:build !linux

package main

// forbidDumps has no switch to turn here. On macOS another process's task port needs root or a
// debugger's entitlement, and there is no pidfd_getfd. On Windows any process of the same user
// may open this one (PROCESS_VM_READ, PROCESS_DUP_HANDLE) at any time, not only while it starts,
// so the control channel stays on stdio there and the user's account is the boundary
// (docs/exec-proxy.md, "The control channel").
func forbidDumps() error { return nil }
