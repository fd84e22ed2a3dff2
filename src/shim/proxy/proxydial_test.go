package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// connectProxy is a CONNECT proxy with Basic auth that alone knows where api.kubecred.test is.
type connectProxy struct {
	listener net.Listener
	hosts    map[string]string
	mu       sync.Mutex
	seen     []string
}

func startConnectProxy(t *testing.T, hosts map[string]string) *connectProxy {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &connectProxy{listener: listener, hosts: hosts}
	t.Cleanup(func() { _ = listener.Close() })
	go func() {
		for {
			conn, err := listener.Accept()
			if err != nil {
				return
			}
			go p.serve(conn)
		}
	}()
	return p
}

func (p *connectProxy) serve(conn net.Conn) {
	defer conn.Close()
	request, err := http.ReadRequest(bufio.NewReader(conn))
	if err != nil || request.Method != http.MethodConnect {
		return
	}
	p.mu.Lock()
	p.seen = append(p.seen, request.Host+" "+request.Header.Get("Proxy-Authorization"))
	p.mu.Unlock()
	given := request.Header.Get("Proxy-Authorization")
	if given != "" && given != "Basic "+base64.StdEncoding.EncodeToString([]byte("alice:p@ss:w")) {
		// As tinyproxy answers a wrong password.
		_, _ = io.WriteString(conn, "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n")
		return
	}
	if given == "" {
		_, _ = io.WriteString(conn, "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"corp\"\r\nContent-Length: 0\r\n\r\n")
		return
	}
	host, port, _ := net.SplitHostPort(request.Host)
	address, ok := p.hosts[host]
	if !ok {
		_, _ = io.WriteString(conn, "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
		return
	}
	upstream, err := net.Dial("tcp", net.JoinHostPort(address, port))
	if err != nil {
		_, _ = io.WriteString(conn, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
		return
	}
	defer upstream.Close()
	_, _ = io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n")
	go func() { _, _ = io.Copy(upstream, conn) }()
	_, _ = io.Copy(conn, upstream)
}

// Issue 43: kubecred-proxy reaches the cluster through the person's proxy (CONNECT, Basic auth
// from the proxy URL), TLS end to end inside the tunnel; a 407, a refusal and a proxy that is
// down are told with the proxy (never its password) and what to change.
func TestTheUpstreamIsDialledThroughTheProxysTunnel(t *testing.T) {
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "through")
	}))
	defer server.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(server.URL, "https://"))
	proxy := startConnectProxy(t, map[string]string{"api.kubecred.test": "127.0.0.1"})
	target, _ := url.Parse("https://api.kubecred.test:" + port)
	addr := "api.kubecred.test:" + port
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	via := func(raw string) proxyChoice {
		proxyURL, _ := url.Parse(raw)
		return func(*url.URL) (*url.URL, error) { return proxyURL, nil }
	}
	proxyAddr := proxy.listener.Addr().String()

	conn, err := dialUpstream(ctx, dialer, "tcp", addr, target, via("http://alice:p%40ss%3Aw@"+proxyAddr))
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig: server.Client().Transport.(*http.Transport).TLSClientConfig.Clone(),
		DialTLSContext:  nil,
		DialContext:     func(context.Context, string, string) (net.Conn, error) { return conn, nil },
	}}
	client.Transport.(*http.Transport).TLSClientConfig.ServerName = "example.com"
	answer, err := client.Get("https://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(answer.Body)
	_ = answer.Body.Close()
	if string(body) != "through" {
		t.Fatalf("answer %q", body)
	}
	// The far side: the proxy saw a tunnel to the server's name, with the credentials of its URL.
	proxy.mu.Lock()
	first := proxy.seen[0]
	proxy.mu.Unlock()
	if !strings.HasPrefix(first, addr+" Basic ") {
		t.Fatalf("the proxy saw %q", first)
	}

	_, err = dialUpstream(ctx, dialer, "tcp", addr, target, via("http://"+proxyAddr))
	if err == nil || !strings.Contains(err.Error(), "answered 407 Proxy Authentication Required to CONNECT "+addr) || !strings.Contains(err.Error(), "http://user:password@host:port") {
		t.Fatalf("no password: %v", err)
	}
	_, err = dialUpstream(ctx, dialer, "tcp", addr, target, via("http://alice:wr0ng@"+proxyAddr))
	if err == nil || !strings.Contains(err.Error(), "answered 401 Unauthorized to CONNECT "+addr+": it refused the user and password in") || strings.Contains(err.Error(), "wr0ng") {
		t.Fatalf("wrong password: %v", err)
	}
	_, err = dialUpstream(ctx, dialer, "tcp", "elsewhere.test:443", target, via("http://alice:p%40ss%3Aw@"+proxyAddr))
	if err == nil || !strings.Contains(err.Error(), "answered 403 Forbidden") || strings.Contains(err.Error(), "p@ss") || strings.Contains(err.Error(), "p%40ss") {
		t.Fatalf("refused: %v", err)
	}
	_, err = dialUpstream(ctx, dialer, "tcp", addr, target, via("http://alice:p%40ss%3Aw@127.0.0.1:9"))
	if err == nil || !strings.Contains(err.Error(), "cannot reach the proxy http://127.0.0.1:9") || strings.Contains(err.Error(), "p%40ss") {
		t.Fatalf("down: %v", err)
	}
	// No proxy: straight to the server (here, a name only the proxy knows: it does not resolve).
	if _, err := dialUpstream(ctx, dialer, "tcp", addr, target, func(*url.URL) (*url.URL, error) { return nil, nil }); err == nil {
		t.Fatal("dialled a name only the proxy resolves without the proxy")
	}
}
