package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
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
		return proxyChoiceOf("prod", nil, "", func(*url.URL) (*url.URL, error) { return proxyURL, nil })
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
	if _, err := dialUpstream(ctx, dialer, "tcp", addr, target, func(*url.URL) (*proxyRoute, error) { return nil, nil }); err == nil {
		t.Fatal("dialled a name only the proxy resolves without the proxy")
	}
}

// The password the tests keep in the keychain: it goes to the proxy, and into no message.
const keptPassword = "p@ss:w"

// A profile's own proxy (proxyUrl, naming its user only) with the password its keychain keeps:
// the tunnel opens with both; without the password, or with a wrong one, the message names the
// profile's proxyUrl and the command that keeps the password. NO_PROXY does not apply to it.
func TestAProfilesOwnProxyTakesThePasswordKeptForIt(t *testing.T) {
	proxy := startConnectProxy(t, map[string]string{"api.kubecred.test": "127.0.0.1"})
	server := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer server.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(server.URL, "https://"))
	addr := "api.kubecred.test:" + port
	target, _ := url.Parse("https://" + addr)
	own, err := parseProfileProxy("prod", "http://alice@"+proxy.listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	// An environment that would send the host direct (NO_PROXY covers it): not asked.
	direct := func(*url.URL) (*url.URL, error) { return nil, nil }
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	conn, err := dialUpstream(ctx, dialer, "tcp", addr, target, proxyChoiceOf("prod", own, keptPassword, direct))
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.Close()
	proxy.mu.Lock()
	seen := proxy.seen[len(proxy.seen)-1]
	proxy.mu.Unlock()
	if seen != addr+" Basic "+base64.StdEncoding.EncodeToString([]byte("alice:"+keptPassword)) {
		t.Fatalf("the proxy saw %q", seen)
	}

	_, err = dialUpstream(ctx, dialer, "tcp", addr, target, proxyChoiceOf("prod", own, "", direct))
	want := `the proxy http://` + proxy.listener.Addr().String() + ` (from proxyUrl of profile "prod") answered 401 Unauthorized to CONNECT ` + addr + `: it wants the password of the user in proxyUrl of profile "prod"; keep the proxy's password in the keychain: kubecred secret set prod proxy-password`
	if err == nil || err.Error() != want {
		t.Fatalf("no password kept:\n got %v\nwant %s", err, want)
	}
	_, err = dialUpstream(ctx, dialer, "tcp", addr, target, proxyChoiceOf("prod", own, "not-it-7f3", direct))
	if err == nil || !strings.Contains(err.Error(), `it refused the user in proxyUrl of profile "prod" with the password kept for it`) ||
		!strings.Contains(err.Error(), "kubecred secret set prod proxy-password") || strings.Contains(err.Error(), "not-it-7f3") {
		t.Fatalf("a wrong password kept: %v", err)
	}
	noUser, _ := parseProfileProxy("prod", "http://"+proxy.listener.Addr().String())
	_, err = dialUpstream(ctx, dialer, "tcp", addr, target, proxyChoiceOf("prod", noUser, keptPassword, direct))
	if err == nil || !strings.Contains(err.Error(), `name the user in proxyUrl of profile "prod" (http://user@host:port) and keep the password with kubecred secret set prod proxy-password`) {
		t.Fatalf("no user in the profile's proxyUrl: %v", err)
	}
	_, err = dialUpstream(ctx, dialer, "tcp", "elsewhere.test:443", target, proxyChoiceOf("prod", own, keptPassword, direct))
	if err == nil || !strings.Contains(err.Error(), "take proxyUrl out of the profile") || strings.Contains(err.Error(), "NO_PROXY") {
		t.Fatalf("refused by the profile's proxy: %v", err)
	}
}

// The environment's proxy URL names a user only: the password kept for the route goes with it;
// NO_PROXY (the environment's choice of none) still sends a host direct.
func TestTheEnvironmentsUserOnlyProxyTakesThePasswordKeptForTheRoute(t *testing.T) {
	envProxy, _ := url.Parse("http://alice@proxy.corp:3128")
	choose := proxyChoiceOf("prod", nil, keptPassword, func(*url.URL) (*url.URL, error) { return envProxy, nil })
	route, err := choose(&url.URL{Scheme: "https", Host: "api.kubecred.test"})
	if err != nil || route == nil || !route.userOnly || route.storedPassword != keptPassword || route.profiles || route.source != proxySource() {
		t.Fatalf("route %+v, %v", route, err)
	}
	withPassword, _ := url.Parse("http://alice:inline@proxy.corp:3128")
	route, _ = proxyChoiceOf("prod", nil, keptPassword, func(*url.URL) (*url.URL, error) { return withPassword, nil })(envProxy)
	if route.userOnly || route.storedPassword != "" {
		t.Fatalf("a URL with its own password took the kept one: %+v", route)
	}
	route, err = proxyChoiceOf("prod", nil, keptPassword, func(*url.URL) (*url.URL, error) { return nil, nil })(envProxy)
	if route != nil || err != nil {
		t.Fatalf("NO_PROXY's direct became %+v, %v", route, err)
	}
}

// A password never reaches a message: not the kept one, not one put in a proxyUrl by mistake,
// not one in an unusable HTTPS_PROXY; in no form (as given, URL-encoded).
func TestNoErrorTextHoldsAProxyPassword(t *testing.T) {
	const secret = "s3cr%t:pw"
	forms := []string{secret, url.QueryEscape(secret), url.PathEscape(secret), "s3cr"}
	var messages []string
	note := func(err error) {
		if err == nil {
			t.Fatal("no error where one was due")
		}
		messages = append(messages, err.Error())
	}
	_, err := parseProfileProxy("prod", "http://alice:"+url.QueryEscape(secret)+"@proxy.corp:3128")
	note(err)
	_, err = parseProfileProxy("prod", "http://alice:"+secret+"@proxy.corp:3128")
	note(err)
	_, err = parseRoute("prod", upstreamSettings{Server: "https://api.kubecred.test:6443", Auth: authCredential, Proxy: &upstreamProxy{URL: "http://alice:" + secret + "@proxy.corp:3128"}}, nil)
	note(err)
	_, err = proxyChoiceOf("prod", nil, secret, func(*url.URL) (*url.URL, error) {
		return nil, errors.New(`invalid proxy address "http://alice:` + secret + `@x:y:z"`)
	})(&url.URL{Scheme: "https", Host: "api.kubecred.test"})
	note(err)

	proxy := startConnectProxy(t, map[string]string{"api.kubecred.test": "127.0.0.1"})
	own, _ := url.Parse("http://alice@" + proxy.listener.Addr().String())
	down, _ := url.Parse("http://alice@127.0.0.1:9")
	target, _ := url.Parse("https://api.kubecred.test:443")
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, choose := range []proxyChoice{
		proxyChoiceOf("prod", own, secret, nil),  // refused: not the password it takes
		proxyChoiceOf("prod", down, secret, nil), // a proxy that is down
	} {
		_, err := dialUpstream(ctx, dialer, "tcp", "api.kubecred.test:443", target, choose)
		note(err)
	}
	for _, message := range messages {
		for _, form := range forms {
			if strings.Contains(message, form) {
				t.Errorf("%q holds the password (%q)", message, form)
			}
		}
	}
	t.Logf("%d messages, none with the password:\n%s", len(messages), strings.Join(messages, "\n"))
}
