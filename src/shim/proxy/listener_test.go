package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestTheClusterSeesTheTokenIdentityAndConfiguredHeadersOnly(t *testing.T) {
	e := newEnv(t, "rsa")
	port := e.listen("a", map[string]any{"x-team": "infra"})
	cert := e.issue("a")
	code, body := e.get(e.client(&cert), local(port, "/whoami?watch=1"), http.Header{
		"Authorization":       {"Bearer stolen-token"},
		"Proxy-Authorization": {"Basic c2VjcmV0"},
		"X-Team":              {"mine", "also mine"},
	})
	var seen struct {
		User, Proto, Path, Query, Host, SNI   string
		Auth, ProxyAuth, Team, AcceptEncoding []string
		Forwarded                             []string
	}
	if err := json.Unmarshal([]byte(body), &seen); code != 200 || err != nil {
		t.Fatalf("%d %s", code, body)
	}
	if seen.User != "token-user-rsa" {
		t.Errorf("the cluster saw %q, not the token's certificate", seen.User)
	}
	if len(seen.Auth) != 0 || len(seen.ProxyAuth) != 0 {
		t.Errorf("kubectl's credentials reached the cluster: %v %v", seen.Auth, seen.ProxyAuth)
	}
	if len(seen.Team) != 1 || seen.Team[0] != "infra" {
		t.Errorf("X-Team %v: the configured header must replace kubectl's, once", seen.Team)
	}
	upstreamHost := strings.TrimPrefix(e.c.server.URL, "https://")
	if seen.Proto != "HTTP/2.0" || seen.Path != "/base/whoami" || seen.Query != "watch=1" || seen.Host != upstreamHost {
		t.Errorf("proto %s path %s query %s host %s", seen.Proto, seen.Path, seen.Query, seen.Host)
	}
	if len(seen.AcceptEncoding) != 0 || len(seen.Forwarded) != 0 {
		t.Errorf("the proxy added Accept-Encoding %v or X-Forwarded-For %v", seen.AcceptEncoding, seen.Forwarded)
	}

	waitFor(t, "the audit record", func() bool { return len(e.b.auditLog()) == 1 })
	record := e.b.auditLog()[0]
	block, _ := pem.Decode([]byte(cert.certPEM))
	leaf, _ := x509.ParseCertificate(block.Bytes)
	want := map[string]any{"type": "audit", "profile": "a", "caller": nil, "certificate": leaf.SerialNumber.Text(16), "method": "GET", "path": "/whoami", "status": float64(200)}
	for k, v := range want {
		if record[k] != v {
			t.Errorf("audit %s = %v, want %v", k, record[k], v)
		}
	}
	if _, ok := record["ms"].(float64); !ok || len(record) != len(want)+1 {
		t.Errorf("audit record %v", record)
	}
	if strings.Contains(fmt.Sprint(record), "stolen") || strings.Contains(fmt.Sprint(record), "watch=1") {
		t.Error("the audit record carries a header or the query")
	}
}

func TestATLS12ProfileSignsTheTranscriptWithPKCS1(t *testing.T) {
	for _, kind := range []string{"rsa", "p256"} {
		t.Run(kind, func(t *testing.T) {
			e := newEnv(t, kind)
			reply := e.b.mustCall("listen", map[string]any{"profile": "a", "port": 0, "upstream": e.upstream(map[string]any{"tlsVersion": "1.2"}), "headers": nil})
			cert := e.issue("a")
			code, body := e.get(e.client(&cert), local(int(reply["port"].(float64)), "/whoami"), nil)
			if code != 200 || !strings.Contains(body, fmt.Sprintf(`"tlsVersion":%d`, tls.VersionTLS12)) {
				t.Fatalf("%d %s", code, body)
			}
			want := map[string]string{"rsa": "rsa_pkcs1_sha256", "p256": "ecdsa_sha256"}[kind]
			if schemes := e.b.schemes; len(schemes) != 1 || schemes[0] != want {
				t.Errorf("signed %v, want one %s", schemes, want)
			}
		})
	}
}

func TestAnUnknownTLSVersionIsRefusedWithTheSettingToFix(t *testing.T) {
	e := newEnv(t, "rsa")
	reply := e.b.call("listen", map[string]any{"profile": "a", "port": 0, "upstream": e.upstream(map[string]any{"tlsVersion": "1.1"}), "headers": nil})
	if !strings.Contains(fmt.Sprint(reply), "proxy.tlsVersion") {
		t.Fatalf("reply %v", reply)
	}
}

func TestAnUntrustedClusterCertificateNamesTheSettingToFix(t *testing.T) {
	e := newEnv(t, "p256")
	other := newCluster(t, "p256") // another CA: the profile's caPem does not vouch for e's cluster
	reply := e.b.mustCall("listen", map[string]any{"profile": "a", "port": 0, "upstream": e.upstream(map[string]any{"caPem": other.caPEM}), "headers": nil})
	port := int(reply["port"].(float64))
	cert := e.issue("a")
	code, body := e.get(e.client(&cert), local(port, "/whoami"), nil)
	s := decodeStatus(t, body)
	if code != http.StatusBadGateway || !strings.Contains(s.Message, "does not trust the certificate of") ||
		!strings.Contains(s.Message, "proxy.caFile") || !strings.Contains(s.Message, "kubecred enroll") {
		t.Fatalf("%d %s", code, s.Message)
	}
}

// The profile's own proxy, handed over on listen with its kept password: the cluster, known by a
// name only the proxy resolves, answers through the tunnel. When the cluster's certificate ends
// at a root the profile does not trust, kubectl is told the proxy may be inspecting TLS, which
// the cluster's mTLS connection must pass uninspected.
func TestTheProfilesProxyCarriesTheClusterAndAnUnknownRootNamesIt(t *testing.T) {
	e := newEnv(t, "p256")
	proxy := startConnectProxy(t, map[string]string{"kube.internal": "127.0.0.1"})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(e.c.server.URL, "https://"))
	server := "https://kube.internal:" + port + "/base"
	viaProxy := map[string]any{"url": "http://alice@" + proxy.listener.Addr().String(), "password": keptPassword}
	reply := e.b.mustCall("listen", map[string]any{"profile": "a", "port": 0, "upstream": e.upstream(map[string]any{"server": server, "proxy": viaProxy}), "headers": nil})
	listening := int(reply["port"].(float64))
	cert := e.issue("a")
	if code, body := e.get(e.client(&cert), local(listening, "/whoami"), nil); code != http.StatusOK {
		t.Fatalf("through the profile's proxy: %d %s", code, body)
	}
	proxy.mu.Lock()
	seen := strings.Join(proxy.seen, "\n")
	proxy.mu.Unlock()
	if !strings.HasPrefix(seen, "kube.internal:"+port+" Basic ") {
		t.Fatalf("the proxy saw %q", seen)
	}

	other := newCluster(t, "p256") // another CA: as if a proxy re-signed the cluster's certificate
	reply = e.b.mustCall("listen", map[string]any{"profile": "b", "port": 0, "upstream": e.upstream(map[string]any{"server": server, "proxy": viaProxy, "caPem": other.caPEM}), "headers": nil})
	listening = int(reply["port"].(float64))
	cert = e.issue("b")
	code, body := e.get(e.client(&cert), local(listening, "/whoami"), nil)
	s := decodeStatus(t, body)
	for _, want := range []string{
		"kubecred-proxy does not trust the certificate of " + server,
		"through the proxy http://" + proxy.listener.Addr().String() + ` (from proxyUrl of profile "b"), kube.internal showed a certificate signed by a root this profile does not trust`,
		"a TLS-inspecting proxy may be re-signing it",
		"the cluster's connection (mTLS to the API server) must pass the proxy uninspected",
		"ask whoever runs the proxy to pass kube.internal uninspected",
	} {
		if code != http.StatusBadGateway || !strings.Contains(s.Message, want) {
			t.Fatalf("%d %s\nwants %q", code, s.Message, want)
		}
	}
	if strings.Contains(s.Message, keptPassword) {
		t.Fatalf("the password in %q", s.Message)
	}
	t.Log(s.Message)
}

func TestTLSServerNameIsSentAsSNI(t *testing.T) {
	e := newEnv(t, "p256")
	reply := e.b.mustCall("listen", map[string]any{"profile": "a", "port": 0, "upstream": e.upstream(map[string]any{"tlsServerName": "kube.internal"}), "headers": nil})
	port := int(reply["port"].(float64))
	cert := e.issue("a")
	_, body := e.get(e.client(&cert), local(port, "/whoami"), nil)
	if !strings.Contains(body, `"sni":"kube.internal"`) {
		t.Fatalf("the cluster got another server name: %s", body)
	}
}

func TestAHandshakeNeedsACurrentCertificateOfThisProfile(t *testing.T) {
	e := newEnv(t, "p256")
	portA := e.listen("a", nil)
	portB := e.listen("b", nil)
	certA := e.issue("a")
	if code, _ := e.get(e.client(&certA), local(portA, "/whoami"), nil); code != 200 {
		t.Fatalf("profile a's own certificate: %d", code)
	}
	expect := func(what string, config *tls.Config, port int) {
		t.Helper()
		conn, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port), config)
		if err == nil {
			// TLS 1.3: a refused client certificate shows on the first read.
			_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
			_, _ = fmt.Fprintf(conn, "GET /whoami HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", port)
			_, err = conn.Read(make([]byte, 1))
			conn.Close()
		}
		if err == nil {
			t.Errorf("%s got through", what)
		}
	}
	expect("a client without a certificate", e.tlsConfig(nil), portA)
	expect("profile a's certificate on b's listener", e.tlsConfig(&certA), portB)
	for _, version := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		config := e.tlsConfig(&certA)
		config.MinVersion, config.MaxVersion = version, version
		expect(fmt.Sprintf("profile a's certificate on b's listener (TLS %x)", version), config, portB)
	}

	// An expired certificate of the right profile, from the right CA.
	ca := e.b.caOf(t)
	stale, err := ca.issueClient("a", time.Now().Add(-time.Hour), time.Now().Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	expect("an expired certificate", e.tlsConfig(&issued{certPEM: stale.certPEM, keyPEM: stale.keyPEM}), portA)

	// The right profile from another CA.
	stranger, _ := newLocalCA()
	forged, _ := stranger.issueClient("a", time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	expect("another CA's certificate", e.tlsConfig(&issued{certPEM: forged.certPEM, keyPEM: forged.keyPEM}), portA)

	// Security review 3, C3 (i): a program that read the local CA's key from the keychain mints
	// a current certificate of the right profile; the CA vouches for it, the proxy never issued it.
	minted, _ := ca.issueClient("a", time.Now().Add(-time.Minute), time.Now().Add(365*24*time.Hour))
	expect("a certificate minted with the stored CA key", e.tlsConfig(&issued{certPEM: minted.certPEM, keyPEM: minted.keyPEM}), portA)

	// TLS 1.2 stays open for old kubectl builds.
	old := e.tlsConfig(&certA)
	old.MaxVersion = tls.VersionTLS12
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: old}}
	if code, _ := e.get(client, local(portA, "/whoami"), nil); code != 200 {
		t.Fatalf("TLS 1.2 client: %d", code)
	}

	// Security review 3, C8: lock (a revoke of the certificates) ends those issued before it,
	// telling kubectl why.
	e.b.mustCall("revoke", map[string]any{"profile": "a", "certificates": true, "reason": "Kubecred was locked"})
	if code, body := e.get(e.client(&certA), local(portA, "/whoami"), nil); code != http.StatusServiceUnavailable || !strings.Contains(body, "Kubecred was locked") {
		t.Fatalf("a certificate issued before the lock: %d %s", code, body)
	}
	certAfter := e.issue("a")
	if code, _ := e.get(e.client(&certAfter), local(portA, "/whoami"), nil); code != 200 {
		t.Fatalf("a certificate issued after the revoke: %d", code)
	}
}

func TestAForeignHostIsRefusedWithAStatus(t *testing.T) {
	e := newEnv(t, "p256")
	port := e.listen("a", nil)
	cert := e.issue("a")
	client := e.client(&cert)
	request, _ := http.NewRequest("GET", local(port, "/whoami"), nil)
	request.Host = "rebound.example:443"
	response, err := client.Do(request)
	if err != nil {
		t.Fatal(err)
	}
	defer response.Body.Close()
	var s status
	if err := json.NewDecoder(response.Body).Decode(&s); err != nil {
		t.Fatal(err)
	}
	if response.StatusCode != 421 || response.Header.Get("Content-Type") != "application/json" || s.Kind != "Status" || s.Code != 421 ||
		s.Message != "refused: Host header rebound.example:443 is not this proxy" || e.c.full.Load() != 0 {
		t.Fatalf("%d %+v (upstream handshakes %d)", response.StatusCode, s, e.c.full.Load())
	}
	for _, host := range []string{"localhost", "LOCALHOST", "[::1]"} {
		request, _ := http.NewRequest("GET", local(port, "/whoami"), nil)
		request.Host = fmt.Sprintf("%s:%d", host, port)
		response, err := client.Do(request)
		if err != nil {
			t.Fatal(err)
		}
		response.Body.Close()
		if response.StatusCode != 200 {
			t.Errorf("Host %s: %d", request.Host, response.StatusCode)
		}
	}
}

func TestListenAgainReplacesSettingsOrMovesAndCloseFreesThePort(t *testing.T) {
	e := newEnv(t, "p256")
	port := e.listen("a", map[string]any{"X-Team": "infra"})
	cert := e.issue("a")
	client := e.client(&cert)
	if _, body := e.get(client, local(port, "/whoami"), nil); !strings.Contains(body, `"team":["infra"]`) {
		t.Fatal(body)
	}
	signs := e.b.signs.Load()
	e.b.mustCall("listen", map[string]any{"profile": "a", "port": port, "upstream": e.upstream(nil), "headers": map[string]any{"X-Team": "infra"}})
	if _, body := e.get(client, local(port, "/whoami"), nil); !strings.Contains(body, `"team":["infra"]`) || e.b.signs.Load() != signs {
		t.Fatalf("the same settings again cost %d signatures: %s", e.b.signs.Load()-signs, body)
	}
	reply := e.b.mustCall("listen", map[string]any{"profile": "a", "port": port, "upstream": e.upstream(nil), "headers": map[string]any{"X-Team": "ops"}})
	if int(reply["port"].(float64)) != port {
		t.Fatalf("same port: moved to %v", reply["port"])
	}
	if _, body := e.get(client, local(port, "/whoami"), nil); !strings.Contains(body, `"team":["ops"]`) {
		t.Fatalf("the new settings were not used: %s", body)
	}

	free, _ := net.Listen("tcp", "127.0.0.1:0")
	newPort := free.Addr().(*net.TCPAddr).Port
	free.Close()
	reply = e.b.mustCall("listen", map[string]any{"profile": "a", "port": newPort, "upstream": e.upstream(nil), "headers": nil})
	if int(reply["port"].(float64)) != newPort {
		t.Fatalf("moved to %v, not %d", reply["port"], newPort)
	}
	if code, _ := e.get(e.client(&cert), local(newPort, "/whoami"), nil); code != 200 {
		t.Fatalf("the moved listener: %d", code)
	}
	assertFree(t, port)

	e.b.mustCall("close", map[string]any{"profile": "a"})
	assertFree(t, newPort)
	if reply := e.b.call("close", map[string]any{"profile": "a"}); reply["ok"] != true {
		t.Fatalf("closing twice: %v", reply)
	}
}

func TestATakenPortGetsTheExactError(t *testing.T) {
	e := newEnv(t, "p256")
	taken, _ := net.Listen("tcp", "127.0.0.1:0")
	defer taken.Close()
	port := taken.Addr().(*net.TCPAddr).Port
	reply := e.b.call("listen", map[string]any{"profile": "prod", "port": port, "upstream": e.upstream(nil), "headers": nil})
	want := fmt.Sprintf("127.0.0.1:%d is in use by another program: choose another proxy port for profile prod in config.yaml", port)
	if reply["ok"] != false || reply["error"] != want {
		t.Fatalf("%v\nwant %q", reply, want)
	}
	// Our own profile's port is named as such.
	portA := e.listen("a", nil)
	reply = e.b.call("listen", map[string]any{"profile": "b", "port": portA, "upstream": e.upstream(nil), "headers": nil})
	if reply["ok"] != false || !strings.Contains(reply["error"].(string), "already the proxy port of profile a") {
		t.Fatalf("%v", reply)
	}
}

func TestListenRefusesBadSettings(t *testing.T) {
	e := newEnv(t, "p256")
	for name, fields := range map[string]map[string]any{
		"http server":    {"server": "http://127.0.0.1:6443"},
		"no chain":       {"certificateChainPem": "none"},
		"wrong key type": {"keyType": "rsa"},
		"bad CA":         {"caPem": "junk"},
	} {
		reply := e.b.call("listen", map[string]any{"profile": "a", "port": 0, "upstream": e.upstream(fields), "headers": nil})
		if reply["ok"] != false {
			t.Errorf("%s: %v", name, reply)
		}
	}
	for _, header := range []string{"Host", "Bad Name", "Transfer-Encoding"} {
		reply := e.b.call("listen", map[string]any{"profile": "a", "port": 0, "upstream": e.upstream(nil), "headers": map[string]any{header: "x"}})
		if reply["ok"] != false {
			t.Errorf("header %q was accepted", header)
		}
	}
	reply := e.b.call("listen", map[string]any{"profile": "a", "port": 0, "upstream": e.upstream(nil), "headers": map[string]any{"X-Evil": "a\r\nInjected: 1"}})
	if reply["ok"] != false {
		t.Error("a header value with CRLF was accepted")
	}
}

// A connection from anywhere but loopback is closed before TLS.
func TestOnlyLoopbackPeersAreAccepted(t *testing.T) {
	remote := &fakeListener{conns: make(chan net.Conn, 2)}
	outside, outsidePeer := net.Pipe()
	inside, _ := net.Pipe()
	g := newGuardedListener(remote, &tls.Config{}, quietLog(), defaultGuardLimits)
	defer g.Close()
	if !g.allowedPeer(addrConn{inside, &net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 5556}}) {
		t.Fatal("a loopback peer was refused")
	}
	remote.conns <- addrConn{outside, &net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 5555}}
	_ = outsidePeer.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := outsidePeer.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("the outside connection was not closed: %v", err)
	}
}

type addrConn struct {
	net.Conn
	remote net.Addr
}

func (c addrConn) RemoteAddr() net.Addr { return c.remote }

type fakeListener struct{ conns chan net.Conn }

func (l *fakeListener) Accept() (net.Conn, error) { return <-l.conns, nil }
func (l *fakeListener) Close() error              { return nil }
func (l *fakeListener) Addr() net.Addr            { return &net.TCPAddr{} }

func assertFree(t *testing.T, port int) {
	t.Helper()
	socket, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatalf("port %d is still held: %v", port, err)
	}
	socket.Close()
}

// caOf reads the proxy's CA through its own init reply (idempotent), to issue odd certificates.
func (b *fakeBroker) caOf(t *testing.T) *localCA {
	t.Helper()
	pair := b.mustCall("init", map[string]any{"ca": nil})["ca"].(map[string]any)
	ca, err := loadLocalCA(pair["certPem"].(string), pair["keyPem"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return ca
}
