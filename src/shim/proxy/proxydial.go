package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"
)

// proxyChoice says which proxy, if any, a connection to a server goes through.
type proxyChoice func(target *url.URL) (*url.URL, error)

// environmentProxy is the proxy the person's tools use for a server (HTTPS_PROXY, NO_PROXY...),
// as kubectl decides it: Go's own rules, read from this process's environment, which the broker
// passes on. nil: straight to the server.
func environmentProxy(target *url.URL) (*url.URL, error) {
	return http.ProxyFromEnvironment(&http.Request{URL: target})
}

// proxySource names the variable a proxy came from, for messages.
func proxySource() string {
	for _, name := range []string{"HTTPS_PROXY", "https_proxy"} {
		if os.Getenv(name) != "" {
			return name
		}
	}
	return "HTTPS_PROXY"
}

// shownProxy is the proxy as messages may show it: never its user or password.
func shownProxy(proxy *url.URL) string {
	return proxy.Scheme + "://" + proxy.Host
}

// dialUpstream opens TCP to addr, through the proxy's CONNECT tunnel when the person's tools
// would use one: the proxy sees the host and port only, the TLS handshake (and any token
// signature) runs end to end inside the tunnel.
func dialUpstream(ctx context.Context, dialer *net.Dialer, network, addr string, target *url.URL, choose proxyChoice) (net.Conn, error) {
	proxy, err := choose(target)
	if err != nil {
		return nil, fmt.Errorf("the proxy setting %s cannot be used: %v", proxySource(), err)
	}
	if proxy == nil {
		return dialer.DialContext(ctx, network, addr)
	}
	where := fmt.Sprintf("the proxy %s (from %s)", shownProxy(proxy), proxySource())
	proxyAddr := proxy.Host
	if proxy.Port() == "" {
		port := "80"
		if proxy.Scheme == "https" {
			port = "443"
		}
		proxyAddr = net.JoinHostPort(proxy.Hostname(), port)
	}
	conn, err := dialer.DialContext(ctx, "tcp", proxyAddr)
	if err != nil {
		return nil, fmt.Errorf("cannot reach %s: %v; check %s: is its address right, and does it run? (unset it if this network needs none)", where, err, proxySource())
	}
	if proxy.Scheme == "https" {
		secure := tls.Client(conn, &tls.Config{ServerName: proxy.Hostname(), MinVersion: tls.VersionTLS12})
		if err := secure.HandshakeContext(ctx); err != nil {
			_ = conn.Close()
			return nil, fmt.Errorf("the TLS handshake with %s failed: %v", where, err)
		}
		conn = secure
	}
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
		defer func() { _ = conn.SetDeadline(time.Time{}) }()
	}
	request := &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: addr}, Host: addr, Header: http.Header{}}
	if user := proxy.User; user != nil {
		password, _ := user.Password()
		request.Header.Set("Proxy-Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(user.Username()+":"+password)))
	}
	if err := request.Write(conn); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("%s cut the connection: %v", where, err)
	}
	reader := bufio.NewReader(conn)
	answer, err := http.ReadResponse(reader, request)
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("%s did not answer CONNECT %s: %v", where, addr, err)
	}
	_ = answer.Body.Close()
	if answer.StatusCode/100 != 2 {
		_ = conn.Close()
		// Squid answers a wrong password with 407 again; tinyproxy with 401.
		if proxy.User != nil && (answer.StatusCode == http.StatusProxyAuthRequired || answer.StatusCode == http.StatusUnauthorized) {
			return nil, fmt.Errorf("%s answered %s to CONNECT %s: it refused the user and password in %s; check them there (http://user:password@host:port, the password URL-encoded)", where, answer.Status, addr, proxySource())
		}
		if answer.StatusCode == http.StatusProxyAuthRequired {
			return nil, fmt.Errorf("%s answered %s to CONNECT %s: it wants a user and password; put them in %s as http://user:password@host:port (the password URL-encoded)", where, answer.Status, addr, proxySource())
		}
		return nil, fmt.Errorf("%s answered %s to CONNECT %s: it does not let this connection through; ask whoever runs the proxy to allow it, or add the host to NO_PROXY if it is reachable without the proxy", where, answer.Status, addr)
	}
	if reader.Buffered() > 0 {
		return &bufferedConn{Conn: conn, reader: reader}, nil
	}
	return conn, nil
}

// bufferedConn keeps what the proxy sent right after its answer (nothing, with proxies that
// follow the protocol) in front of the stream.
type bufferedConn struct {
	net.Conn
	reader *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.reader.Read(p) }
