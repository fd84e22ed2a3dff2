//go:build linux || windows

package main

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"testing"
)

// dialAndWaitEnv makes this test binary a client: it connects to the address, says so, and
// holds the connection until its stdin closes.
const dialAndWaitEnv = "KUBECRED_PEERPID_TEST_DIAL"

func init() {
	if address := os.Getenv(dialAndWaitEnv); address != "" {
		conn, err := net.Dial("tcp", address)
		if err != nil {
			os.Exit(2)
		}
		os.Stdout.WriteString("connected\n")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		conn.Close()
		os.Exit(0)
	}
}

func TestPeerPIDNamesTheProcessOnTheOtherEnd(t *testing.T) {
	socket, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer socket.Close()
	// Another process, so the peer's row cannot be mistaken for our own (the mirror of it).
	client := exec.Command(os.Args[0], "-test.run=^$")
	client.Env = append(os.Environ(), dialAndWaitEnv+"="+socket.Addr().String())
	hold, err := client.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	said, err := client.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { hold.Close(); _ = client.Wait() }()
	server, err := socket.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	if line, _ := bufio.NewReader(said).ReadString('\n'); line != "connected\n" {
		t.Fatalf("the client said %q", line)
	}
	if pid, ok := peerPID(server.LocalAddr(), server.RemoteAddr()); !ok || pid != client.Process.Pid {
		t.Fatalf("peerPID = %d, %v; want the client's pid %d (ours is %d)", pid, ok, client.Process.Pid, os.Getpid())
	}
	// Our own end of a connection within this process is named as this process.
	own := loopbackConnection(t)
	if pid, ok := peerPID(own.LocalAddr(), own.RemoteAddr()); !ok || pid != os.Getpid() {
		t.Fatalf("peerPID of our own connection = %d, %v; want %d", pid, ok, os.Getpid())
	}
	// An address pair with no connection names nobody.
	if pid, ok := peerPID(server.LocalAddr(), &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}); ok {
		t.Fatalf("a connection that does not exist: pid %d", pid)
	}
}

// loopbackConnection is the accepted end of a fresh loopback TCP connection from this process,
// closed with the test.
func loopbackConnection(t *testing.T) net.Conn {
	t.Helper()
	socket, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { socket.Close() })
	client, err := net.Dial("tcp", socket.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	server, err := socket.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	return server
}
