//go:build !linux

package main

// forbidDumps has nothing to do where processes of the same user cannot read each other's
// memory by default (Windows' process ACLs) or where the OS offers no per-process switch.
func forbidDumps() error { return nil }
