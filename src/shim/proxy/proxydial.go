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
	"time"
)

// dialUpstream opens TCP to addr, through the proxy's CONNECT tunnel when the person's tools
// would use one: the proxy sees the host and port only, the TLS handshake (and any token
// signature) runs end to end inside the tunnel.
func dialUpstream(ctx context.Context, dialer *net.Dialer, network, addr string, target *url.URL, choose proxyChoice) (net.Conn, error) {
	route, err := choose(target)
	if err != nil {
		return nil, err
	}
	if route == nil {
		return dialer.DialContext(ctx, network, addr)
	}
	proxy := route.proxy
	where := fmt.Sprintf("the proxy %s (from %s)", shownProxy(proxy), route.source)
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
		return nil, fmt.Errorf("cannot reach %s: %v; check %s: is its address right, and does it run? (%s)", where, err, route.source, route.withoutIt())
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
		password, inURL := user.Password()
		if !inURL {
			password = route.storedPassword
		}
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
		return nil, route.refused(where, addr, answer)
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

// refused says why the proxy did not open the tunnel, and what to change, in the words of the
// broker's own tunnels (refused in src/main/platform/proxyTunnel.ts). Never the password.
func (p *proxyRoute) refused(where, addr string, answer *http.Response) error {
	answered := fmt.Sprintf("%s answered %s to CONNECT %s", where, answer.Status, addr)
	// Some proxies (tinyproxy) answer a wrong password with 401, not 407.
	wantsCredentials := answer.StatusCode == http.StatusProxyAuthRequired ||
		(answer.StatusCode == http.StatusUnauthorized && p.proxy.User != nil)
	switch {
	case wantsCredentials && p.userOnly && p.storedPassword != "":
		return fmt.Errorf("%s: it refused the user in %s with the password kept for it; keep the proxy's password in the keychain: %s", answered, p.source, p.passwordSetting())
	case wantsCredentials && p.userOnly:
		return fmt.Errorf("%s: it wants the password of the user in %s; keep the proxy's password in the keychain: %s", answered, p.source, p.passwordSetting())
	case wantsCredentials && p.proxy.User != nil:
		return fmt.Errorf("%s: it refused the user and password in %s; check them there (http://user:password@host:port, the password URL-encoded)", answered, p.source)
	case wantsCredentials && p.profiles:
		// config.yaml keeps no password: the user goes in the URL, the password in the keychain.
		return fmt.Errorf("%s: it wants a user and password; name the user in %s (http://user@host:port) and keep the password with %s", answered, p.source, p.passwordSetting())
	case wantsCredentials:
		return fmt.Errorf("%s: it wants a user and password; put them in %s as http://user:password@host:port (the password URL-encoded)", answered, p.source)
	case p.profiles:
		return fmt.Errorf("%s: it does not let this connection through; ask whoever runs the proxy to allow it, or take proxyUrl out of the profile if the host is reachable without the proxy", answered)
	}
	return fmt.Errorf("%s: it does not let this connection through; ask whoever runs the proxy to allow it, or add the host to NO_PROXY if it is reachable without the proxy", answered)
}

// withoutIt is how a person does without the proxy, for a message about one that is down.
func (p *proxyRoute) withoutIt() string {
	if p.profiles {
		return "take it out of the profile if this network needs none"
	}
	return "unset it if this network needs none"
}
