package handshakelog

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"math/big"
	"net"
	"testing"
	"time"
)

func selfSigned(t *testing.T, name string) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// handshake runs a TLS 1.3 handshake with client authentication over a pipe, with the client's
// side recorded, and returns the evidence as it stood when the client signed.
func handshake(t *testing.T) (evidence map[string]string, client tls.Certificate, after *Log) {
	t.Helper()
	server, clientCert := selfSigned(t, "server.test"), selfSigned(t, "client")
	serverEnd, clientEnd := net.Pipe()
	log := New(clientEnd)
	go func() {
		conn := tls.Server(serverEnd, &tls.Config{Certificates: []tls.Certificate{server}, ClientAuth: tls.RequireAnyClientCert, MinVersion: tls.VersionTLS13})
		_ = conn.Handshake()
		_, _ = conn.Write([]byte("after the handshake"))
	}()
	config := &tls.Config{
		InsecureSkipVerify: true, MinVersion: tls.VersionTLS13, KeyLogWriter: log.KeyLog(),
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			evidence = log.Evidence(clientCert.Certificate)
			return &clientCert, nil
		},
	}
	conn := tls.Client(log, config)
	if err := conn.Handshake(); err != nil {
		t.Fatal(err)
	}
	log.Stop()
	if _, err := conn.Read(make([]byte, 64)); err != nil {
		t.Fatal(err)
	}
	return evidence, clientCert, log
}

func decoded(t *testing.T, evidence map[string]string, field string) []byte {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(evidence[field])
	if err != nil {
		t.Fatalf("%s: %v", field, err)
	}
	return raw
}

func TestEvidenceHoldsBothDirectionsAndOnlyTheServerHandshakeSecret(t *testing.T) {
	evidence, client, log := handshake(t)
	sent := decoded(t, evidence, "sent")
	if len(sent) < 5 || sent[0] != 22 || sent[5] != 1 {
		t.Fatalf("sent does not start with a ClientHello record: % x", sent[:min(len(sent), 8)])
	}
	if received := decoded(t, evidence, "received"); len(received) < 100 || received[0] != 22 {
		t.Fatalf("received does not start with the ServerHello record: %d bytes", len(received))
	}
	if secret := decoded(t, evidence, "serverSecret"); len(secret) != 32 && len(secret) != 48 {
		t.Fatalf("server handshake secret of %d bytes", len(secret))
	}
	want := CertificateMessage(client.Certificate)
	if got := decoded(t, evidence, "clientCertificate"); !bytes.Equal(got, want) || got[0] != 11 || len(got) != 4+1+3+3+len(client.Certificate[0])+2 {
		t.Fatalf("client Certificate message of %d bytes", len(got))
	}
	// Stopped: nothing more is kept, and what was kept is forgotten.
	if after := log.Evidence(nil); after["sent"] != "" || after["received"] != "" || after["serverSecret"] != "" {
		t.Fatalf("evidence after Stop: %v", after)
	}
}

func TestTheApplicationTrafficSecretsAreNeverKept(t *testing.T) {
	log := New(nil)
	w := log.KeyLog()
	for _, label := range []string{"CLIENT_HANDSHAKE_TRAFFIC_SECRET", "CLIENT_TRAFFIC_SECRET_0", "SERVER_TRAFFIC_SECRET_0", "EXPORTER_SECRET"} {
		_, _ = w.Write([]byte(label + " 0101 aaaa\n"))
	}
	_, _ = w.Write([]byte("SERVER_HANDSHAKE_TRAFFIC_SECRET 0101 zz\n")) // not hex
	if log.serverSecret != nil {
		t.Fatalf("kept % x", log.serverSecret)
	}
	_, _ = w.Write([]byte("SERVER_HANDSHAKE_TRAFFIC_SECRET 0101 bbbb\n"))
	if !bytes.Equal(log.serverSecret, []byte{0xbb, 0xbb}) {
		t.Fatalf("kept % x", log.serverSecret)
	}
}

func TestAServerThatSendsTooMuchLeavesNoEvidence(t *testing.T) {
	log := New(nil)
	log.keep(&log.received, make([]byte, maxBytes-10))
	log.keep(&log.received, make([]byte, 20))
	log.keep(&log.sent, []byte{1})
	if len(log.received) != 0 || len(log.sent) != 0 {
		t.Fatalf("kept %d and %d bytes past the bound", len(log.received), len(log.sent))
	}
}
