//go:build !linux

package main

import "net"

// peerPID: only Linux names a loopback peer's process without privileges; elsewhere a confirm
// question goes to the broker without a pid.
func peerPID(net.Addr, net.Addr) (int, bool) { return 0, false }
