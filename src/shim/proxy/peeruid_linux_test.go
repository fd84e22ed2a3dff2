package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestPeerUIDNamesThisProcessUser(t *testing.T) {
	server := loopbackConnection(t)
	if uid, ok := peerUID(server); !ok || uid != uint32(os.Getuid()) {
		t.Fatalf("peerUID = %d, %v; want %d", uid, ok, os.Getuid())
	}
}

// C6: another user's connection is closed at once, before it can hold a handshake slot
// (here the slot would be held for the 10 s handshake deadline).
func TestAnotherUsersConnectionIsClosedAtOnce(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to connect as nobody")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("no setpriv")
	}
	w := newGuardWorld(t, guardLimits{conns: 100, handshakes: 10, timeout: 10 * time.Second}, false)
	port := w.g.Addr().(*net.TCPAddr).Port
	// bash's /dev/tcp: connect as nobody, then wait for the server to close (cat ends at EOF).
	script := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d; cat <&3 >/dev/null", port)
	started := time.Now()
	out, err := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", "timeout", "8", "bash", "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("nobody's connection was held: %v %s", err, out)
	}
	if took := time.Since(started); took > 3*time.Second {
		t.Fatalf("nobody's connection was closed after %s", took)
	}
	if len(w.g.handshakes) != 0 || w.g.live.Load() != 0 {
		t.Fatal("nobody's connection took a slot")
	}
}
