package main

import (
	"net"
	"os"
	"testing"
)

func TestPeerPIDNamesTheProcessOnTheOtherEnd(t *testing.T) {
	server := loopbackConnection(t)
	if pid, ok := peerPID(server.LocalAddr(), server.RemoteAddr()); !ok || pid != os.Getpid() {
		t.Fatalf("peerPID = %d, %v; want %d", pid, ok, os.Getpid())
	}
	// An address pair with no connection names nobody.
	if pid, ok := peerPID(server.LocalAddr(), &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}); ok {
		t.Fatalf("a connection that does not exist: pid %d", pid)
	}
}
