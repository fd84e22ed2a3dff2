package main

import (
	"bufio"
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

// fakeBroker drives run() as the broker does, and signs with an in-memory "token" key.
type fakeBroker struct {
	t       *testing.T
	toProxy *io.PipeWriter
	done    chan struct{}
	mu      sync.Mutex
	nextID  int64
	replies map[int64]chan map[string]any
	signs   atomic.Int64
	refuse  atomic.Pointer[map[string]any]
	key     *rsa.PrivateKey
}

func startFakeBroker(t *testing.T, key *rsa.PrivateKey) *fakeBroker {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	b := &fakeBroker{t: t, toProxy: inW, done: make(chan struct{}), replies: map[int64]chan map[string]any{}, key: key}
	go func() {
		_ = run(context.Background(), inR, outW, io.Discard)
		outW.Close()
		close(b.done)
	}()
	go b.read(outR)
	t.Cleanup(func() { inW.Close() })
	return b
}

func (b *fakeBroker) write(message map[string]any) {
	line, _ := json.Marshal(message)
	_, _ = b.toProxy.Write(append(line, '\n'))
}

func (b *fakeBroker) read(out io.Reader) {
	scanner := bufio.NewScanner(out)
	for scanner.Scan() {
		var message map[string]any
		if json.Unmarshal(scanner.Bytes(), &message) != nil {
			continue
		}
		id, _ := message["id"].(float64)
		if message["reply"] == true {
			b.mu.Lock()
			answer := b.replies[int64(id)]
			b.mu.Unlock()
			answer <- message
			continue
		}
		if message["type"] == "sign" {
			go b.sign(int64(id), message)
		}
	}
}

func (b *fakeBroker) sign(id int64, message map[string]any) {
	b.signs.Add(1)
	if refusal := b.refuse.Load(); refusal != nil {
		b.write(map[string]any{"id": id, "reply": true, "ok": false, "error": (*refusal)["error"], "status": (*refusal)["status"]})
		return
	}
	data, _ := base64.StdEncoding.DecodeString(message["message"].(string))
	if message["scheme"] != "rsa_pss_sha256" || !strings.HasPrefix(string(data[64:]), "TLS 1.3, client CertificateVerify\x00") {
		b.write(map[string]any{"id": id, "reply": true, "ok": false, "error": fmt.Sprintf("refused %v", message["scheme"])})
		return
	}
	digest := crypto.SHA256.New()
	digest.Write(data)
	signature, err := rsa.SignPSS(rand.Reader, b.key, crypto.SHA256, digest.Sum(nil), &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash})
	if err != nil {
		b.t.Error(err)
	}
	b.write(map[string]any{"id": id, "reply": true, "ok": true, "signature": base64.StdEncoding.EncodeToString(signature)})
}

func (b *fakeBroker) call(kind string, fields map[string]any) map[string]any {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	answer := make(chan map[string]any, 1)
	b.replies[id] = answer
	b.mu.Unlock()
	fields["id"], fields["type"] = id, kind
	b.write(fields)
	select {
	case reply := <-answer:
		return reply
	case <-time.After(10 * time.Second):
		b.t.Fatalf("no reply to %s", kind)
		return nil
	}
}

// testCluster is the upstream: it requires the token's certificate, as a kube-apiserver does.
func testCluster(t *testing.T) (server *httptest.Server, caPEM, tokenCertPEM string, tokenKey *rsa.PrivateKey) {
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTemplate := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cluster CA"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, _ := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	caCert, _ := x509.ParseCertificate(caDER)
	tokenKey, _ = rsa.GenerateKey(rand.Reader, 2048)
	clientDER, _ := x509.CreateCertificate(rand.Reader, &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "token-user"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, caCert, &tokenKey.PublicKey, caKey)
	serverKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	serverDER, _ := x509.CreateCertificate(rand.Reader, &x509.Certificate{SerialNumber: big.NewInt(3), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, caCert, &serverKey.PublicKey, caKey)
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	mux := http.NewServeMux()
	mux.HandleFunc("/whoami", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "user=%s auth=%q team=%q", r.TLS.PeerCertificates[0].Subject.CommonName, r.Header.Get("Authorization"), r.Header.Values("X-Team"))
	})
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "first event")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	})
	mux.HandleFunc("/upgrade", func(w http.ResponseWriter, r *http.Request) {
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		fmt.Fprint(rw, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n")
		rw.Flush()
		_, _ = io.Copy(conn, rw)
	})
	server = httptest.NewUnstartedServer(mux)
	server.EnableHTTP2 = true
	server.TLS = &tls.Config{MinVersion: tls.VersionTLS13, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool, Certificates: []tls.Certificate{{Certificate: [][]byte{serverDER}, PrivateKey: serverKey}}}
	server.StartTLS()
	t.Cleanup(server.Close)
	pemOf := func(der []byte) string {
		return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	}
	return server, pemOf(caDER), pemOf(clientDER), tokenKey
}

func localClient(t *testing.T, caPEM string, issued map[string]any) *http.Client {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM([]byte(caPEM))
	config := &tls.Config{RootCAs: pool}
	if issued != nil {
		pair, err := tls.X509KeyPair([]byte(issued["certPem"].(string)), []byte(issued["keyPem"].(string)))
		if err != nil {
			t.Fatal(err)
		}
		config.Certificates = []tls.Certificate{pair}
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: config, ForceAttemptHTTP2: true}, Timeout: 10 * time.Second}
}

func TestProxy(t *testing.T) {
	cluster, clusterCA, tokenCert, tokenKey := testCluster(t)
	b := startFakeBroker(t, tokenKey)
	ca := b.call("init", map[string]any{"ca": nil})["ca"].(map[string]any)["certPem"].(string)
	upstreamOf := map[string]any{"server": cluster.URL, "caPem": clusterCA, "tlsServerName": nil, "certificateChainPem": tokenCert, "keyType": "rsa"}
	listen := func(profile string, port int, headers map[string]any) map[string]any {
		return b.call("listen", map[string]any{"profile": profile, "port": port, "upstream": upstreamOf, "headers": headers})
	}
	a := listen("a", 0, map[string]any{"X-Team": "infra"})
	other := listen("b", 0, nil)
	if a["ok"] != true || other["ok"] != true {
		t.Fatalf("listen: %v %v", a, other)
	}
	portA, portB := int(a["port"].(float64)), int(other["port"].(float64))
	issued := b.call("issue", map[string]any{"profile": "a", "ttlSeconds": 600})
	client := localClient(t, ca, issued)
	urlA := fmt.Sprintf("https://127.0.0.1:%d", portA)
	get := func(path string, header http.Header) (int, string) {
		request, _ := http.NewRequest("GET", urlA+path, nil)
		for k, v := range header {
			request.Header[k] = v
		}
		response, err := client.Do(request)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer response.Body.Close()
		body, _ := io.ReadAll(response.Body)
		return response.StatusCode, string(body)
	}

	t.Run("the cluster sees the token's identity, never kubectl's Authorization; a configured header replaces kubectl's", func(t *testing.T) {
		code, body := get("/whoami", http.Header{"Authorization": {"Bearer stolen"}, "X-Team": {"mine"}})
		if code != 200 || body != `user=token-user auth="" team=["infra"]` {
			t.Fatalf("%d %s", code, body)
		}
	})

	t.Run("50 concurrent requests after a warm one cost no new signature", func(t *testing.T) {
		before := b.signs.Load()
		var wg sync.WaitGroup
		for i := 0; i < 50; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if code, _ := get("/whoami", nil); code != 200 {
					t.Errorf("status %d", code)
				}
			}()
		}
		wg.Wait()
		t.Logf("signatures: %d for the warm-up and everything before, %d for 50 concurrent", before, b.signs.Load()-before)
		if b.signs.Load()-before > 1 {
			t.Fatalf("%d signatures for 50 warm requests", b.signs.Load()-before)
		}
	})

	t.Run("no local certificate, or profile a's on b's listener: the handshake fails", func(t *testing.T) {
		if _, err := localClient(t, ca, nil).Get(urlA + "/whoami"); err == nil {
			t.Fatal("a client without a certificate got through")
		}
		if _, err := client.Get(fmt.Sprintf("https://127.0.0.1:%d/whoami", portB)); err == nil {
			t.Fatal("profile a's certificate opened b's listener")
		}
	})

	t.Run("a foreign Host is refused with a Status", func(t *testing.T) {
		request, _ := http.NewRequest("GET", urlA+"/whoami", nil)
		request.Host = "rebound.example:443"
		response, err := client.Do(request)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(response.Body)
		response.Body.Close()
		if response.StatusCode != 421 || !strings.Contains(string(body), `"kind":"Status"`) {
			t.Fatalf("%d %s", response.StatusCode, body)
		}
	})

	t.Run("revoke ends a stream and an upgraded connection within 2 s; the next request signs anew", func(t *testing.T) {
		response, err := client.Get(urlA + "/stream")
		if err != nil {
			t.Fatal(err)
		}
		reader := bufio.NewReader(response.Body)
		if line, _ := reader.ReadString('\n'); line != "first event\n" {
			t.Fatalf("stream: %q", line)
		}
		pair, _ := tls.X509KeyPair([]byte(issued["certPem"].(string)), []byte(issued["keyPem"].(string)))
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM([]byte(ca))
		conn, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", portA), &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}, NextProtos: []string{"http/1.1"}})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "GET /upgrade HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n", portA)
		upgraded := bufio.NewReader(conn)
		if status, _ := upgraded.ReadString('\n'); !strings.HasPrefix(status, "HTTP/1.1 101") {
			t.Fatalf("upgrade: %q", status)
		}
		for line, _ := upgraded.ReadString('\n'); line != "\r\n" && line != ""; line, _ = upgraded.ReadString('\n') {
		}
		fmt.Fprint(conn, "ping\n")
		if echo, _ := upgraded.ReadString('\n'); echo != "ping\n" {
			t.Fatalf("echo: %q", echo)
		}
		before := b.signs.Load()
		revoked := time.Now()
		if reply := b.call("revoke", map[string]any{"profile": "a"}); reply["ok"] != true {
			t.Fatal(reply)
		}
		ended := make(chan string, 2)
		go func() { _, err := io.Copy(io.Discard, reader); ended <- fmt.Sprint("stream ", err) }()
		go func() { _, err := io.Copy(io.Discard, upgraded); ended <- fmt.Sprint("upgrade ", err) }()
		for i := 0; i < 2; i++ {
			select {
			case what := <-ended:
				t.Log(what)
			case <-time.After(2 * time.Second):
				t.Fatalf("a connection outlived the revoke by 2 s")
			}
		}
		t.Logf("both ended %v after the revoke", time.Since(revoked))
		if code, _ := get("/whoami", nil); code != 200 {
			t.Fatalf("after revoke: %d", code)
		}
		if b.signs.Load() == before {
			t.Fatal("the request after the revoke was served without a new signature")
		}
	})

	t.Run("a refused signature reaches kubectl as a Status with its code and message", func(t *testing.T) {
		b.refuse.Store(&map[string]any{"error": `token "card" was removed: insert it and retry`, "status": 503})
		defer b.refuse.Store(nil)
		b.call("revoke", map[string]any{"profile": "a"})
		code, body := get("/whoami", nil)
		if code != 503 || !strings.Contains(body, `token \"card\" was removed`) || !strings.Contains(body, `"kind":"Status"`) {
			t.Fatalf("%d %s", code, body)
		}
	})

	t.Run("a taken port gets the exact error", func(t *testing.T) {
		taken, _ := net.Listen("tcp", "127.0.0.1:0")
		defer taken.Close()
		port := taken.Addr().(*net.TCPAddr).Port
		reply := listen("c", port, nil)
		want := fmt.Sprintf("127.0.0.1:%d is in use by another program: choose another proxy port for profile c in config.yaml", port)
		if reply["ok"] != false || reply["error"] != want {
			t.Fatalf("%v", reply)
		}
	})

	t.Run("when the broker's pipe closes the proxy returns within 2 s and frees its ports", func(t *testing.T) {
		b.toProxy.Close()
		select {
		case <-b.done:
		case <-time.After(2 * time.Second):
			t.Fatal("still running 2 s after the broker went")
		}
		for _, port := range []int{portA, portB} {
			again, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				t.Fatalf("port %d still held: %v", port, err)
			}
			again.Close()
		}
	})
}
