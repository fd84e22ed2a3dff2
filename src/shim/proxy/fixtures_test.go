package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeBroker drives run() through pipes as the broker does, and signs with an in-memory
// "token" key, checking what it signs the way the real broker does (src/main/proxy/planSignature.ts).
type fakeBroker struct {
	t       *testing.T
	toProxy *io.PipeWriter
	done    chan struct{}
	stderr  *lockedBuffer

	mu      sync.Mutex
	nextID  int64
	replies map[int64]chan map[string]any
	audits  []map[string]any
	key     crypto.Signer
	schemes []string

	signs  atomic.Int64
	refuse atomic.Pointer[refusal]
	hold   atomic.Pointer[chan struct{}] // when set, sign replies wait for it to close

	// The broker's side of credential mode and of the request guard: what the proxy asked,
	// and how the test answers (the fields of an ok reply, or "ok": false with error/status).
	credentialAsks   []string // reasons, in order
	credentialAnswer func(profile, reason string) map[string]any
	confirms         []map[string]any
	confirmAnswer    func(request map[string]any) map[string]any
}

type refusal struct {
	message string
	status  int
	delay   time.Duration
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func startFakeBroker(t *testing.T, key crypto.Signer) *fakeBroker {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	b := &fakeBroker{t: t, toProxy: inW, done: make(chan struct{}), stderr: &lockedBuffer{}, replies: map[int64]chan map[string]any{}, key: key}
	go func() {
		if err := run(context.Background(), inR, outW, b.stderr); err != nil {
			t.Errorf("run: %v", err)
		}
		_ = outW.Close()
		close(b.done)
	}()
	go b.read(outR)
	t.Cleanup(func() {
		_ = inW.Close()
		select {
		case <-b.done:
		case <-time.After(5 * time.Second):
			t.Error("run() did not return after the test closed its stdin")
		}
		if t.Failed() {
			t.Logf("kubecred-proxy stderr:\n%s", b.stderr.String())
		}
	})
	return b
}

func (b *fakeBroker) write(message map[string]any) {
	line, _ := json.Marshal(message)
	_, _ = b.toProxy.Write(append(line, '\n'))
}

func (b *fakeBroker) read(out io.Reader) {
	scanner := bufio.NewScanner(out)
	scanner.Buffer(make([]byte, 64<<10), 1<<20)
	for scanner.Scan() {
		var message map[string]any
		if err := json.Unmarshal(scanner.Bytes(), &message); err != nil {
			b.t.Errorf("the proxy wrote a line that is not JSON: %q", scanner.Text())
			continue
		}
		id, hasID := message["id"].(float64)
		switch {
		case message["reply"] == true:
			b.mu.Lock()
			answer := b.replies[int64(id)]
			b.mu.Unlock()
			if answer == nil {
				b.t.Errorf("a reply to no request: %v", message)
				continue
			}
			answer <- message
		case message["type"] == "sign" && hasID:
			go b.sign(int64(id), message)
		case message["type"] == "credential" && hasID:
			go b.credential(int64(id), message)
		case message["type"] == "confirm" && hasID:
			go b.confirm(int64(id), message)
		case message["type"] == "audit" && !hasID:
			b.mu.Lock()
			b.audits = append(b.audits, message)
			b.mu.Unlock()
		default:
			b.t.Errorf("an unexpected line from the proxy: %v", message)
		}
	}
}

// answer replies to the proxy's call id with fields; ok unless fields say otherwise.
func (b *fakeBroker) answer(id int64, fields map[string]any) {
	reply := map[string]any{"ok": true}
	for k, v := range fields {
		reply[k] = v
	}
	reply["id"], reply["reply"] = id, true
	b.write(reply)
}

func (b *fakeBroker) credential(id int64, message map[string]any) {
	profile, _ := message["profile"].(string)
	reason, _ := message["reason"].(string)
	b.mu.Lock()
	b.credentialAsks = append(b.credentialAsks, reason)
	answer := b.credentialAnswer
	b.mu.Unlock()
	if answer == nil {
		b.answer(id, map[string]any{"ok": false, "error": "the fake broker has no credential"})
		return
	}
	b.answer(id, answer(profile, reason))
}

func (b *fakeBroker) confirm(id int64, message map[string]any) {
	b.mu.Lock()
	b.confirms = append(b.confirms, message)
	answer := b.confirmAnswer
	b.mu.Unlock()
	if answer == nil {
		b.answer(id, map[string]any{"allow": false, "reason": "nobody set an answer"})
		return
	}
	b.answer(id, answer(message))
}

// answerCredentials sets how the broker answers credential calls.
func (b *fakeBroker) answerCredentials(answer func(profile, reason string) map[string]any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.credentialAnswer = answer
}

func (b *fakeBroker) answerConfirms(answer func(request map[string]any) map[string]any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.confirmAnswer = answer
}

func (b *fakeBroker) asked() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.credentialAsks...)
}

func (b *fakeBroker) confirmed() []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]map[string]any(nil), b.confirms...)
}

var clientVerifyPrefix = append(bytes.Repeat([]byte{0x20}, 64), []byte("TLS 1.3, client CertificateVerify\x00")...)

func (b *fakeBroker) sign(id int64, message map[string]any) {
	b.signs.Add(1)
	if hold := b.hold.Load(); hold != nil {
		<-*hold
	}
	if r := b.refuse.Load(); r != nil {
		time.Sleep(r.delay)
		reply := map[string]any{"id": id, "reply": true, "ok": false, "error": r.message}
		if r.status != 0 {
			reply["status"] = r.status
		}
		b.write(reply)
		return
	}
	scheme, _ := message["scheme"].(string)
	b.mu.Lock()
	b.schemes = append(b.schemes, scheme)
	b.mu.Unlock()
	data, err := base64.StdEncoding.DecodeString(fmt.Sprint(message["message"]))
	if err != nil || message["profile"] == nil {
		b.t.Errorf("a malformed sign request: %v", message)
	}
	signature, err := tokenSign(b.key, scheme, data)
	if err != nil {
		b.t.Errorf("sign: %v", err)
		b.write(map[string]any{"id": id, "reply": true, "ok": false, "error": err.Error()})
		return
	}
	b.write(map[string]any{"id": id, "reply": true, "ok": true, "signature": base64.StdEncoding.EncodeToString(signature)})
}

// tokenSign is what PKCS#11 returns for the scheme: RSA-PSS with salt = hash length, PKCS#1
// v1.5, or ECDSA as raw r||s. Like the broker, it signs only a TLS 1.3 client
// CertificateVerify or a TLS 1.2 handshake transcript (which starts with the ClientHello).
func tokenSign(key crypto.Signer, scheme string, message []byte) ([]byte, error) {
	tls12 := len(message) > 4 && message[0] == 1
	if !tls12 && (!bytes.HasPrefix(message, clientVerifyPrefix) || (len(message)-len(clientVerifyPrefix) != 32 && len(message)-len(clientVerifyPrefix) != 48)) {
		return nil, fmt.Errorf("not a TLS 1.3 client CertificateVerify (%d bytes)", len(message))
	}
	hashes := map[string]crypto.Hash{"sha256": crypto.SHA256, "sha384": crypto.SHA384, "sha512": crypto.SHA512}
	family, hashName, _ := strings.Cut(strings.Replace(scheme, "rsa_", "rsa-", 1), "_")
	hash, ok := hashes[hashName]
	if !ok {
		return nil, fmt.Errorf("scheme %q", scheme)
	}
	h := hash.New()
	h.Write(message)
	digest := h.Sum(nil)
	switch k := key.(type) {
	case *rsa.PrivateKey:
		if family == "rsa-pkcs1" && tls12 {
			return rsa.SignPKCS1v15(rand.Reader, k, hash, digest)
		}
		if family != "rsa-pss" {
			return nil, fmt.Errorf("scheme %q for an RSA key in TLS 1.3", scheme)
		}
		return rsa.SignPSS(rand.Reader, k, hash, digest, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash})
	case *ecdsa.PrivateKey:
		if family != "ecdsa" {
			return nil, fmt.Errorf("scheme %q for an EC key", scheme)
		}
		return rawECDSA(k, digest)
	}
	return nil, fmt.Errorf("key %T", key)
}

func rawECDSA(key *ecdsa.PrivateKey, digest []byte) ([]byte, error) {
	r, s, err := ecdsa.Sign(rand.Reader, key, digest)
	if err != nil {
		return nil, err
	}
	size := (key.Curve.Params().BitSize + 7) / 8
	raw := make([]byte, 2*size)
	r.FillBytes(raw[:size])
	s.FillBytes(raw[size:])
	return raw, nil
}

// call sends a request and returns the reply, whether ok or not.
func (b *fakeBroker) call(kind string, fields map[string]any) map[string]any {
	b.t.Helper()
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	answer := make(chan map[string]any, 1)
	b.replies[id] = answer
	b.mu.Unlock()
	message := map[string]any{"id": id, "type": kind}
	for k, v := range fields {
		message[k] = v
	}
	b.write(message)
	select {
	case reply := <-answer:
		return reply
	case <-time.After(10 * time.Second):
		b.t.Fatalf("no reply to %s", kind)
		return nil
	}
}

func (b *fakeBroker) mustCall(kind string, fields map[string]any) map[string]any {
	b.t.Helper()
	reply := b.call(kind, fields)
	if reply["ok"] != true {
		b.t.Fatalf("%s: %v", kind, reply)
	}
	return reply
}

func (b *fakeBroker) auditLog() []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]map[string]any(nil), b.audits...)
}

// cluster is the upstream: it requires the token's certificate, as a kube-apiserver does,
// and reports what it saw.
type cluster struct {
	server       *httptest.Server
	caPEM        string
	tokenCertPEM string
	tokenKey     crypto.Signer
	caCert       *x509.Certificate // signs software client certificates too (credential mode)
	caKey        crypto.Signer
	release      chan struct{} // ends /base/stream
	full, resume atomic.Int64  // handshakes the cluster saw
}

func newCluster(t *testing.T, keyKind string) *cluster {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	now := time.Now()
	caTemplate := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cluster CA"}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, _ := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	caCert, _ := x509.ParseCertificate(caDER)
	var tokenKey crypto.Signer
	switch keyKind {
	case "rsa":
		tokenKey, _ = rsa.GenerateKey(rand.Reader, 2048)
	case "p256":
		tokenKey, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "p384":
		tokenKey, _ = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	default:
		t.Fatalf("key kind %q", keyKind)
	}
	clientDER, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "token-user-" + keyKind, Organization: []string{"system:masters"}}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, caCert, tokenKey.Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	serverKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	serverDER, _ := x509.CreateCertificate(rand.Reader, &x509.Certificate{SerialNumber: big.NewInt(3), NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"kube.internal"}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, caCert, &serverKey.PublicKey, caKey)
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	c := &cluster{tokenKey: tokenKey, release: make(chan struct{}), caCert: caCert, caKey: caKey}
	mux := http.NewServeMux()
	// The API itself: every API request is answered with what the cluster saw of it.
	for _, prefix := range []string{"/base/api/", "/base/apis/"} {
		mux.HandleFunc(prefix, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"user": r.TLS.PeerCertificates[0].Subject.CommonName, "method": r.Method, "path": r.URL.Path})
		})
	}
	mux.HandleFunc("/base/whoami", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"user": r.TLS.PeerCertificates[0].Subject.CommonName, "auth": r.Header.Values("Authorization"), "proxyAuth": r.Header.Values("Proxy-Authorization"),
			"team": r.Header.Values("X-Team"), "proto": r.Proto, "path": r.URL.Path, "query": r.URL.RawQuery, "host": r.Host, "sni": r.TLS.ServerName,
			"acceptEncoding": r.Header.Values("Accept-Encoding"), "forwarded": r.Header.Values("X-Forwarded-For"), "tlsVersion": r.TLS.Version,
		})
	})
	mux.HandleFunc("/base/stream", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "first event")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-c.release:
		}
		fmt.Fprintln(w, "last event")
	})
	mux.HandleFunc("/base/upgrade", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "SPDY/3.1" || r.ProtoMajor != 1 {
			http.Error(w, fmt.Sprintf("want an HTTP/1.1 SPDY/3.1 upgrade, got %s Upgrade=%q", r.Proto, r.Header.Get("Upgrade")), http.StatusBadRequest)
			return
		}
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		fmt.Fprintf(rw, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n")
		_ = rw.Flush()
		// The tiny protocol: every line comes back prefixed, until the client closes.
		for {
			line, err := rw.ReadString('\n')
			if err != nil {
				return
			}
			fmt.Fprintf(rw, "echo %s", line)
			if rw.Flush() != nil {
				return
			}
		}
	})
	c.server = httptest.NewUnstartedServer(mux)
	c.server.EnableHTTP2 = true
	c.server.Config.ErrorLog = quietLog()
	c.server.TLS = &tls.Config{
		// As kube-apiserver: 1.2 and 1.3, so the proxy's own setting decides.
		MinVersion:   tls.VersionTLS12,
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    pool,
		Certificates: []tls.Certificate{{Certificate: [][]byte{serverDER}, PrivateKey: serverKey}},
		VerifyConnection: func(state tls.ConnectionState) error {
			if state.DidResume {
				c.resume.Add(1)
			} else {
				c.full.Add(1)
			}
			return nil
		},
	}
	c.server.StartTLS()
	t.Cleanup(c.server.Close)
	c.caPEM = pemCert(caDER)
	c.tokenCertPEM = pemCert(clientDER)
	return c
}

// clientPEM issues a software client certificate of the cluster's CA, its key PEM-encoded as
// keyFormat says: "pkcs1" (RSA), "sec1" (EC) or "pkcs8" (EC).
func (c *cluster) clientPEM(t *testing.T, commonName, keyFormat string) (certPEM, keyPEM string) {
	t.Helper()
	var key crypto.Signer
	var block *pem.Block
	switch keyFormat {
	case "pkcs1":
		rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
		key, block = rsaKey, &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)}
	case "sec1":
		ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		der, _ := x509.MarshalECPrivateKey(ecKey)
		key, block = ecKey, &pem.Block{Type: "EC PRIVATE KEY", Bytes: der}
	case "pkcs8":
		ecKey, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
		der, _ := x509.MarshalPKCS8PrivateKey(ecKey)
		key, block = ecKey, &pem.Block{Type: "PRIVATE KEY", Bytes: der}
	default:
		t.Fatalf("key format %q", keyFormat)
	}
	now := time.Now()
	der, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{SerialNumber: big.NewInt(now.UnixNano()), Subject: pkix.Name{CommonName: commonName}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, c.caCert, key.Public(), c.caKey)
	if err != nil {
		t.Fatal(err)
	}
	return pemCert(der), string(pem.EncodeToMemory(block))
}

// bearerCluster is a cluster that takes bearer tokens (no client certificate), as managed
// clusters do: it answers 401 to any token but the valid ones, and reports what it saw.
type bearerCluster struct {
	server *httptest.Server
	caPEM  string
	mu     sync.Mutex
	valid  map[string]bool
}

func newBearerCluster(t *testing.T, valid ...string) *bearerCluster {
	t.Helper()
	c := &bearerCluster{valid: map[string]bool{}}
	c.accept(valid...)
	c.server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Values("Authorization")
		c.mu.Lock()
		ok := len(auth) == 1 && strings.HasPrefix(auth[0], "Bearer ") && c.valid[strings.TrimPrefix(auth[0], "Bearer ")]
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if !ok {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"auth": auth, "path": r.URL.Path, "method": r.Method, "proto": r.Proto})
	}))
	c.server.EnableHTTP2 = true
	c.server.Config.ErrorLog = quietLog()
	c.server.StartTLS()
	t.Cleanup(c.server.Close)
	c.caPEM = pemCert(c.server.Certificate().Raw)
	return c
}

// accept makes tokens valid, reject makes them invalid: the issuer rotated them.
func (c *bearerCluster) accept(tokens ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, token := range tokens {
		c.valid[token] = true
	}
}

func (c *bearerCluster) reject(tokens ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, token := range tokens {
		delete(c.valid, token)
	}
}

// listenCredential opens profile's listener in credential mode toward server.
func (e *env) listenCredential(profile, server, caPEM string, fields map[string]any) int {
	e.t.Helper()
	request := map[string]any{"profile": profile, "port": 0, "upstream": map[string]any{"server": server, "caPem": caPEM, "tlsServerName": nil, "auth": "credential"}, "headers": nil}
	for k, v := range fields {
		request[k] = v
	}
	reply := e.b.mustCall("listen", request)
	return int(reply["port"].(float64))
}

// do sends one request as kubectl would and returns the code and body.
func (e *env) do(client *http.Client, method, url string, header http.Header) (int, string) {
	e.t.Helper()
	request, _ := http.NewRequest(method, url, nil)
	for k, v := range header {
		request.Header[k] = v
	}
	response, err := client.Do(request)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, url, err)
	}
	defer response.Body.Close()
	body, _ := io.ReadAll(response.Body)
	return response.StatusCode, string(body)
}

func pemCert(der []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// env is a proxy with its fake broker in front of a cluster, and profile "a" listening.
type env struct {
	t       *testing.T
	b       *fakeBroker
	c       *cluster
	caPEM   string
	keyType string
}

func newEnv(t *testing.T, keyKind string) *env {
	t.Helper()
	c := newCluster(t, keyKind)
	b := startFakeBroker(t, c.tokenKey)
	e := &env{t: t, b: b, c: c, keyType: "rsa"}
	if keyKind != "rsa" {
		e.keyType = "ecdsa"
	}
	e.caPEM = b.mustCall("init", map[string]any{"ca": nil})["ca"].(map[string]any)["certPem"].(string)
	return e
}

func (e *env) upstream(changes map[string]any) map[string]any {
	up := map[string]any{"server": e.c.server.URL + "/base", "caPem": e.c.caPEM, "tlsServerName": nil, "certificateChainPem": e.c.tokenCertPEM, "keyType": e.keyType}
	for k, v := range changes {
		up[k] = v
	}
	return up
}

// listen opens profile's listener on a free port and returns the port.
func (e *env) listen(profile string, headers map[string]any) int {
	e.t.Helper()
	reply := e.b.mustCall("listen", map[string]any{"profile": profile, "port": 0, "upstream": e.upstream(nil), "headers": headers})
	return int(reply["port"].(float64))
}

type issued struct {
	certPEM, keyPEM string
	notAfter        time.Time
}

func (e *env) issue(profile string) issued {
	e.t.Helper()
	reply := e.b.mustCall("issue", map[string]any{"profile": profile, "ttlSeconds": 600, "caller": "kubectl (pid 42)"})
	notAfter, err := time.Parse(time.RFC3339, reply["notAfter"].(string))
	if err != nil {
		e.t.Fatal(err)
	}
	return issued{certPEM: reply["certPem"].(string), keyPEM: reply["keyPem"].(string), notAfter: notAfter}
}

func (e *env) tlsConfig(cert *issued) *tls.Config {
	e.t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(e.caPEM)) {
		e.t.Fatal("the local CA is not PEM")
	}
	config := &tls.Config{RootCAs: pool}
	if cert != nil {
		pair, err := tls.X509KeyPair([]byte(cert.certPEM), []byte(cert.keyPEM))
		if err != nil {
			e.t.Fatal(err)
		}
		config.Certificates = []tls.Certificate{pair}
	}
	return config
}

// client is kubectl: it trusts the local CA and shows the issued certificate (or none).
func (e *env) client(cert *issued) *http.Client {
	// DisableCompression: what reaches the cluster is what kubectl sent, nothing added.
	transport := &http.Transport{TLSClientConfig: e.tlsConfig(cert), ForceAttemptHTTP2: true, DisableCompression: true}
	e.t.Cleanup(transport.CloseIdleConnections)
	return &http.Client{Transport: transport, Timeout: 10 * time.Second}
}

func (e *env) get(client *http.Client, url string, header http.Header) (int, string) {
	e.t.Helper()
	request, _ := http.NewRequest("GET", url, nil)
	for k, v := range header {
		request.Header[k] = v
	}
	response, err := client.Do(request)
	if err != nil {
		e.t.Fatalf("GET %s: %v", url, err)
	}
	defer response.Body.Close()
	body, _ := io.ReadAll(response.Body)
	return response.StatusCode, string(body)
}

func local(port int, path string) string { return fmt.Sprintf("https://127.0.0.1:%d%s", port, path) }

// decodeStatus parses a Kubernetes Status answer, failing the test if it is not one.
func decodeStatus(t *testing.T, body string) status {
	t.Helper()
	var s status
	if err := json.Unmarshal([]byte(body), &s); err != nil || s.Kind != "Status" || s.APIVersion != "v1" || s.Status != "Failure" {
		t.Fatalf("not a Kubernetes Status: %s", body)
	}
	return s
}

// waitFor polls cond for up to 2 s (an audit line arrives just after the response).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func quietLog() *log.Logger { return log.New(io.Discard, "", 0) }
