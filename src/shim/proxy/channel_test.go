package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The broker's socket is the channel: init and its reply cross it, nothing crosses stdio, and
// the broker closing its end ends run as the pipe's EOF did.
func TestTheControlChannelIsTheBrokersSocket(t *testing.T) {
	dir, err := os.MkdirTemp("", "kc-ch-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "proxy.sock")
	listener, err := net.Listen("unix", path)
	if err != nil {
		t.Skipf("no Unix sockets here: %v", err)
	}
	defer listener.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		conn, err := listener.Accept()
		if err == nil {
			accepted <- conn
		}
	}()
	channel, err := openControlChannel([]string{channelFlag, path})
	if err != nil {
		t.Fatal(err)
	}
	defer channel.close()
	broker := <-accepted
	done := make(chan error, 1)
	go func() { done <- run(context.Background(), channel.in, channel.out, io.Discard) }()
	if _, err := broker.Write([]byte(`{"id":1,"type":"init","ca":null}` + "\n")); err != nil {
		t.Fatal(err)
	}
	_ = broker.SetReadDeadline(time.Now().Add(5 * time.Second))
	reply, err := bufio.NewReader(broker).ReadString('\n')
	if err != nil || !strings.Contains(reply, `"reply":true`) || !strings.Contains(reply, "PRIVATE KEY") {
		t.Fatalf("init over the socket: %q %v", reply, err)
	}
	_ = broker.Close()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("run did not return after the broker closed the socket")
	}
}

func TestChannelArguments(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
		ok   bool
	}{
		{nil, "", true},
		{[]string{"--channel", "/run/x.sock"}, "/run/x.sock", true},
		{[]string{"--channel=/run/x.sock"}, "/run/x.sock", true},
		{[]string{"--channel"}, "", false},
		{[]string{"--channel", ""}, "", false},
		{[]string{"--other"}, "", false},
	} {
		got, err := channelPath(c.args)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("%q: %q %v", c.args, got, err)
		}
	}
}

func TestANoBrokerSocketIsAClearError(t *testing.T) {
	// A folder that does not exist: nothing is made there to clean up (under Wine, a temp folder an
	// AF_UNIX connect touched cannot be removed).
	absent := filepath.Join(os.TempDir(), fmt.Sprintf("kubecred-no-such-folder-%d", time.Now().UnixNano()), "absent.sock")
	_, err := openControlChannel([]string{channelFlag, absent})
	if err == nil || !strings.Contains(err.Error(), "run it through Kubecred") {
		t.Fatalf("%v", err)
	}
}
