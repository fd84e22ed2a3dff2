package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestEveryTokenKeyTypeSignsTheHandshake(t *testing.T) {
	for kind, scheme := range map[string]string{"rsa": "rsa_pss_sha256", "p256": "ecdsa_sha256", "p384": "ecdsa_sha384"} {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t, kind)
			port := e.listen("a", nil)
			cert := e.issue("a")
			code, body := e.get(e.client(&cert), local(port, "/whoami"), nil)
			if code != 200 || !strings.Contains(body, `"user":"token-user-`+kind+`"`) {
				t.Fatalf("%d %s", code, body)
			}
			e.b.mu.Lock()
			defer e.b.mu.Unlock()
			if len(e.b.schemes) != 1 || e.b.schemes[0] != scheme {
				t.Fatalf("schemes asked: %v, want [%s]", e.b.schemes, scheme)
			}
		})
	}
}

// A watch or logs -f: each chunk reaches kubectl while the cluster is still writing.
func TestAStreamingResponseFlushesEachChunk(t *testing.T) {
	e := newEnv(t, "p256")
	port := e.listen("a", nil)
	cert := e.issue("a")
	response, err := e.client(&cert).Get(local(port, "/stream"))
	if err != nil {
		t.Fatal(err)
	}
	defer response.Body.Close()
	lines := make(chan string, 2)
	go func() {
		reader := bufio.NewReader(response.Body)
		for {
			line, err := reader.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- line
		}
	}()
	select {
	case line := <-lines:
		if line != "first event\n" {
			t.Fatalf("first chunk %q", line)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the first chunk did not arrive while the cluster kept the response open")
	}
	close(e.c.release)
	if line := <-lines; line != "last event\n" {
		t.Fatalf("last chunk %q", line)
	}
}

// upgrade opens an exec-style SPDY/3.1 upgrade through the listener and checks one echo.
func upgrade(t *testing.T, e *env, port int, cert *issued) (net.Conn, *bufio.Reader) {
	t.Helper()
	config := e.tlsConfig(cert)
	config.NextProtos = []string{"http/1.1"} // client-go's SPDY and WebSocket dialers
	conn, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port), config)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /upgrade HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\nContent-Length: 0\r\n\r\n", port)
	reader := bufio.NewReader(conn)
	response, err := http.ReadResponse(reader, nil)
	if err != nil {
		t.Fatal(err)
	}
	if response.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(response.Body)
		t.Fatalf("upgrade: %s %s", response.Status, body)
	}
	fmt.Fprint(conn, "ping\n")
	if echo, _ := reader.ReadString('\n'); echo != "echo ping\n" {
		t.Fatalf("echo: %q", echo)
	}
	return conn, reader
}

// SPDY/3.1 cannot ride HTTP/2 upstream; the HTTP/1.1 transport carries it (the cluster's
// handler refuses anything but an HTTP/1.1 SPDY/3.1 upgrade).
func TestAnUpgradePassesThroughOverHTTP11(t *testing.T) {
	e := newEnv(t, "p256")
	port := e.listen("a", nil)
	cert := e.issue("a")
	code, body := e.get(e.client(&cert), local(port, "/whoami"), nil)
	if code != 200 || !strings.Contains(body, `"proto":"HTTP/2.0"`) {
		t.Fatalf("plain requests should go over HTTP/2: %d %s", code, body)
	}
	conn, reader := upgrade(t, e, port, &cert)
	fmt.Fprint(conn, "second\n")
	if echo, _ := reader.ReadString('\n'); echo != "echo second\n" {
		t.Fatalf("echo: %q", echo)
	}
	waitFor(t, "the upgrade's audit record (at the 101, while the stream is open)", func() bool {
		for _, record := range e.b.auditLog() {
			if record["path"] == "/upgrade" && record["status"] == float64(101) && record["method"] == "POST" {
				return true
			}
		}
		return false
	})
	// The HTTP/1.1 transport resumes the session the HTTP/2 one got: they share the cache.
	if e.b.signs.Load() != 1 {
		t.Fatalf("%d signatures for a request and an upgrade, want 1", e.b.signs.Load())
	}
}

func TestFiftyConcurrentRequestsAfterAWarmOneCostAtMostOneSignature(t *testing.T) {
	e := newEnv(t, "rsa")
	port := e.listen("a", nil)
	cert := e.issue("a")
	client := e.client(&cert)
	if code, _ := e.get(client, local(port, "/whoami"), nil); code != 200 {
		t.Fatal(code)
	}
	before := e.b.signs.Load()
	concurrently(50, func() {
		if code, _ := e.get(client, local(port, "/whoami"), nil); code != 200 {
			t.Errorf("status %d", code)
		}
	})
	extra := e.b.signs.Load() - before
	t.Logf("signatures: %d for the warm-up, %d more for 50 concurrent requests", before, extra)
	if extra > 1 {
		t.Fatalf("%d signatures for 50 warm requests", extra)
	}
}

// Cold: nothing connected yet, 50 requests at once (each with its own kubectl connection,
// so the proxy's transport dials for many of them). The single flight keeps it to one.
func TestFiftyConcurrentColdRequestsCostOneSignature(t *testing.T) {
	e := newEnv(t, "p256")
	port := e.listen("a", nil)
	cert := e.issue("a")
	concurrently(50, func() {
		if code, _ := e.get(e.client(&cert), local(port, "/whoami"), nil); code != 200 {
			t.Errorf("status %d", code)
		}
	})
	t.Logf("signatures: %d for 50 cold concurrent requests (the cluster saw %d full and %d resumed handshakes)", e.b.signs.Load(), e.c.full.Load(), e.c.resume.Load())
	if e.b.signs.Load() != 1 {
		t.Fatalf("%d signatures for 50 cold requests", e.b.signs.Load())
	}
}

// Ten new upstream connections one after another: the session cache resumes all but the
// first, where without it each one is a full handshake and a signature.
func TestNewConnectionsResumeWithTheSessionCache(t *testing.T) {
	c := newCluster(t, "p256")
	r, err := parseRoute("test", upstreamSettings{Server: c.server.URL + "/base", CaPem: &c.caPEM, CertificateChainPem: c.tokenCertPEM, KeyType: "ecdsa"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, cacheSize := range []int{sessionCacheSize, 0} {
		signs := 0
		var mu sync.Mutex
		ask := func(_ context.Context, scheme string, message []byte, _ map[string]string) ([]byte, error) {
			mu.Lock()
			signs++
			mu.Unlock()
			return tokenSign(c.tokenKey, scheme, message)
		}
		conns := newConnSet()
		u := newUpstream("a", r, ask, conns, quietLog(), cacheSize)
		for i := 0; i < 10; i++ {
			u.closeIdle() // the next request needs a new connection
			request, _ := http.NewRequest("GET", c.server.URL+"/base/whoami", nil)
			response, err := u.RoundTrip(request)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, response.Body)
			response.Body.Close()
		}
		// Closed connections are forgotten: 10,000 requests must not mean 10,000 entries.
		waitFor(t, "closed connections to leave the set", func() bool { return conns.count() == 1 })
		u.retire(errRevoked)
		conns.closeAll()
		if conns.count() != 0 {
			t.Fatalf("%d connections after closeAll", conns.count())
		}
		t.Logf("10 new connections, session cache size %d: %d signatures", cacheSize, signs)
		if want := map[bool]int{true: 1, false: 10}[cacheSize > 0]; signs != want {
			t.Fatalf("cache size %d: %d signatures, want %d", cacheSize, signs, want)
		}
	}
}

func TestRevokeEndsStreamsAndUpgradesAndTheNextRequestSignsAnew(t *testing.T) {
	e := newEnv(t, "rsa")
	port := e.listen("a", nil)
	cert := e.issue("a")
	client := e.client(&cert)
	response, err := client.Get(local(port, "/stream"))
	if err != nil {
		t.Fatal(err)
	}
	defer response.Body.Close()
	stream := bufio.NewReader(response.Body)
	if line, _ := stream.ReadString('\n'); line != "first event\n" {
		t.Fatalf("stream: %q", line)
	}
	_, upgraded := upgrade(t, e, port, &cert)
	before := e.b.signs.Load()

	revoked := time.Now()
	e.b.mustCall("revoke", map[string]any{"profile": "a"})
	ended := make(chan string, 2)
	go func() { _, err := io.Copy(io.Discard, stream); ended <- fmt.Sprint("the stream: ", err) }()
	go func() { _, err := io.Copy(io.Discard, upgraded); ended <- fmt.Sprint("the upgraded connection: ", err) }()
	for i := 0; i < 2; i++ {
		select {
		case what := <-ended:
			t.Logf("%s ended %v after the revoke", what, time.Since(revoked))
		case <-time.After(2 * time.Second):
			t.Fatal("a connection outlived the revoke by 2 s")
		}
	}
	if code, _ := e.get(client, local(port, "/whoami"), nil); code != 200 {
		t.Fatalf("after the revoke: %d", code)
	}
	if e.b.signs.Load() != before+1 {
		t.Fatalf("the first request after the revoke cost %d signatures, want 1 (no resumed session)", e.b.signs.Load()-before)
	}
}

// revokeWhileSigning starts a request whose handshake waits on a signature (a PIN prompt
// nobody answers), sends the revoke, and returns kubectl's answer: code and Status message.
func revokeWhileSigning(t *testing.T, revoke map[string]any) (int, string) {
	t.Helper()
	e := newEnv(t, "p256")
	port := e.listen("a", nil)
	cert := e.issue("a")
	hold := make(chan struct{})
	e.b.hold.Store(&hold)
	defer close(hold)
	type answer struct {
		code int
		body string
	}
	answered := make(chan answer, 1)
	go func() {
		code, body := e.get(e.client(&cert), local(port, "/whoami"), nil)
		answered <- answer{code, body}
	}()
	waitFor(t, "the sign request", func() bool { return e.b.signs.Load() == 1 })
	e.b.mustCall("revoke", revoke)
	select {
	case a := <-answered:
		s := decodeStatus(t, a.body)
		if s.Code != a.code {
			t.Fatalf("the Status says %d, the response %d", s.Code, a.code)
		}
		return a.code, s.Message
	case <-time.After(2 * time.Second):
		t.Fatal("the request waited on past the revoke")
		return 0, ""
	}
}

// A handshake stuck on a signature ends with the revoke too.
func TestRevokeEndsAHandshakeWaitingForASignature(t *testing.T) {
	if code, message := revokeWhileSigning(t, map[string]any{"profile": "a"}); code != 503 || !strings.Contains(message, "profile a was locked or removed") {
		t.Fatalf("%d %s", code, message)
	}
}

// The broker's reason for a revoke (the token that went away) is what kubectl is told.
func TestARevokeWithAReasonTellsKubectlTheReason(t *testing.T) {
	reason := `the key of token "card" went away (pulled out, locked or logged out); insert it or run kubecred token login card, and run the command again`
	if code, message := revokeWhileSigning(t, map[string]any{"profile": "a", "reason": reason}); code != 503 || message != "kubecred-proxy ended this request: "+reason {
		t.Fatalf("%d %q", code, message)
	}
}

func TestASignRefusalReachesKubectlAsAStatus(t *testing.T) {
	e := newEnv(t, "p256")
	port := e.listen("a", nil)
	cert := e.issue("a")
	client := e.client(&cert)
	e.b.refuse.Store(&refusal{message: `token "card" (serial 42) was removed: insert it and retry`, status: 503})
	code, body := e.get(client, local(port, "/whoami"), nil)
	s := decodeStatus(t, body)
	if code != 503 || s.Code != 503 || s.Reason != "ServiceUnavailable" || s.Message != `token "card" (serial 42) was removed: insert it and retry` {
		t.Fatalf("%d %+v", code, s)
	}

	e.b.refuse.Store(&refusal{message: "the broker is locked: unlock Kubecred"})
	code, body = e.get(client, local(port, "/whoami"), nil)
	if s := decodeStatus(t, body); code != 502 || s.Message != "kubecred-proxy could not reach "+e.c.server.URL+"/base: the broker is locked: unlock Kubecred" {
		t.Fatalf("without a status: %d %+v", code, s)
	}

	// The token is back: the next request works, no restart.
	e.b.refuse.Store(nil)
	if code, _ := e.get(client, local(port, "/whoami"), nil); code != 200 {
		t.Fatalf("after the refusals: %d", code)
	}
}

// A wrong PIN must cost one C_Login, not one per waiting request: a refusal answers every
// request that was waiting on the same handshake.
func TestOneRefusalAnswersEveryWaitingRequest(t *testing.T) {
	e := newEnv(t, "p256")
	port := e.listen("a", nil)
	cert := e.issue("a")
	e.b.refuse.Store(&refusal{message: "wrong PIN for token card", status: 401, delay: 200 * time.Millisecond})
	var mu sync.Mutex
	codes := map[int]int{}
	concurrently(20, func() {
		code, body := e.get(e.client(&cert), local(port, "/whoami"), nil)
		if s := decodeStatus(t, body); s.Message != "wrong PIN for token card" {
			t.Errorf("message %q", s.Message)
		}
		mu.Lock()
		codes[code]++
		mu.Unlock()
	})
	t.Logf("20 concurrent requests during a refused signature: %d sign requests, statuses %v", e.b.signs.Load(), codes)
	if codes[401] != 20 || e.b.signs.Load() != 1 {
		t.Fatalf("statuses %v after %d sign requests", codes, e.b.signs.Load())
	}
}

func TestAnUnreachableClusterIsA502Status(t *testing.T) {
	e := newEnv(t, "p256")
	dead, _ := net.Listen("tcp", "127.0.0.1:0")
	deadURL := "https://" + dead.Addr().String()
	dead.Close()
	reply := e.b.mustCall("listen", map[string]any{"profile": "a", "port": 0, "upstream": e.upstream(map[string]any{"server": deadURL}), "headers": nil})
	cert := e.issue("a")
	code, body := e.get(e.client(&cert), local(int(reply["port"].(float64)), "/whoami"), nil)
	if s := decodeStatus(t, body); code != 502 || !strings.HasPrefix(s.Message, "kubecred-proxy could not reach "+deadURL+": ") {
		t.Fatalf("%d %+v", code, s)
	}
}

func concurrently(n int, f func()) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			f()
		}()
	}
	close(start)
	wg.Wait()
}
