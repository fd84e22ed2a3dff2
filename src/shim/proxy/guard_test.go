package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net"
	"strings"
	"testing"
	"time"
)

// guardWorld is a guarded listener with small caps, its CA, and what it logged.
type guardWorld struct {
	t        *testing.T
	g        *guardedListener
	ca       *localCA
	accepted chan net.Conn
	logged   *lockedBuffer
}

// refuse: every certificate of the CA is refused as another profile's.
func newGuardWorld(t *testing.T, limits guardLimits, refuse bool) *guardWorld {
	t.Helper()
	ca, err := newLocalCA()
	if err != nil {
		t.Fatal(err)
	}
	server, err := ca.serverCertificate(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	clients := x509.NewCertPool()
	clients.AddCert(ca.cert)
	socket, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	config := &tls.Config{
		Certificates: []tls.Certificate{*server},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    clients,
	}
	if refuse {
		config.VerifyConnection = func(tls.ConnectionState) error {
			return certificateRefused{"the client certificate is not for profile p"}
		}
	}
	w := &guardWorld{t: t, ca: ca, accepted: make(chan net.Conn, 16), logged: &lockedBuffer{}}
	w.g = newGuardedListener(socket, config, log.New(w.logged, "", 0), limits)
	t.Cleanup(func() { _ = w.g.Close() })
	go func() {
		for {
			c, err := w.g.Accept()
			if err != nil {
				return
			}
			w.accepted <- c
		}
	}()
	return w
}

func (w *guardWorld) dial() net.Conn {
	w.t.Helper()
	c, err := net.Dial("tcp", w.g.Addr().String())
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { _ = c.Close() })
	return c
}

// closedAtOnce: the guard closed the connection without waiting for it to speak.
func closedAtOnce(c net.Conn) bool {
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	_, err := c.Read(make([]byte, 1))
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || strings.Contains(fmtErr(err), "reset")
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// C6 of the third security review: 5,000 idle connections to a proxy port cost 5,000
// descriptors and 57 MB. Handshakes in progress are capped; beyond that, closed at once.
func TestIdlePeersBeyondTheHandshakeCapAreClosedAtOnce(t *testing.T) {
	w := newGuardWorld(t, guardLimits{conns: 100, handshakes: 3, timeout: 10 * time.Second}, false)
	for i := 0; i < 3; i++ {
		_, _ = w.dial().Write([]byte{0x16, 0x03, 0x01}) // a TLS record header, then nothing
	}
	waitFor(t, "three handshakes in progress", func() bool { return len(w.g.handshakes) == 3 })
	for i := 0; i < 5; i++ {
		if !closedAtOnce(w.dial()) {
			t.Fatalf("connection %d beyond the handshake cap was held", i)
		}
	}
}

// The total cap counts connections until they close, whoever closes them.
func TestTheTotalCapCountsLiveConnectionsUntilTheyClose(t *testing.T) {
	w := newGuardWorld(t, guardLimits{conns: 2, handshakes: 2, timeout: 10 * time.Second}, false)
	w.tlsDial()
	w.tlsDial()
	waitFor(t, "two live connections", func() bool { return w.g.live.Load() == 2 })
	if !closedAtOnce(w.dial()) {
		t.Fatal("a connection beyond the total cap was held")
	}
	(<-w.accepted).Close()
	waitFor(t, "a slot given back", func() bool { return w.g.live.Load() == 1 })
	w.tlsDial()
}

// Handshake failures of unauthenticated peers are no log line; a refused certificate of our CA is.
func TestOnlyARefusedCertificateOfOurCAIsLogged(t *testing.T) {
	w := newGuardWorld(t, guardLimits{conns: 100, handshakes: 10, timeout: 300 * time.Millisecond}, true)
	_, _ = w.dial().Write([]byte("GET / HTTP/1.1\r\n\r\n")) // not TLS
	_ = w.dial()                                            // stalls until the deadline: i/o timeout
	stranger, _ := newLocalCA()
	forged, _ := stranger.issueClient("p", time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	_, _ = w.clientHandshake(forged) // unknown authority
	time.Sleep(600 * time.Millisecond)
	if got := w.logged.String(); got != "" {
		t.Fatalf("noise was logged: %q", got)
	}
	ours, _ := w.ca.issueClient("p", time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	_, _ = w.clientHandshake(ours)
	waitFor(t, "the refusal logged", func() bool { return strings.Contains(w.logged.String(), "not for profile p") })
}

func TestProbeNoiseCoversTimeoutsAndForeignCertificates(t *testing.T) {
	for _, line := range []string{
		"http: TLS handshake error from 127.0.0.1:5555: read tcp 127.0.0.1:1->127.0.0.1:5555: i/o timeout",
		"http: TLS handshake error from 127.0.0.1:5555: tls: failed to verify certificate: x509: certificate signed by unknown authority",
		"http: TLS handshake error from 127.0.0.1:5555: EOF",
	} {
		if !probeNoise(line) {
			t.Errorf("logged: %s", line)
		}
	}
	if probeNoise("http: TLS handshake error from 127.0.0.1:5555: the client certificate is not for profile a") {
		t.Error("a refused certificate of our CA was dropped")
	}
}

// tlsDial completes a handshake with a certificate the guard's config accepts at the TLS layer.
func (w *guardWorld) tlsDial() net.Conn {
	w.t.Helper()
	cert, err := w.ca.issueClient("p", time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	if err != nil {
		w.t.Fatal(err)
	}
	c, err := w.clientHandshake(cert)
	if err != nil {
		w.t.Fatalf("handshake: %v", err)
	}
	return c
}

func (w *guardWorld) clientHandshake(cert issuedCert) (net.Conn, error) {
	pair, err := tls.X509KeyPair([]byte(cert.certPEM), []byte(cert.keyPEM))
	if err != nil {
		w.t.Fatal(err)
	}
	c := tls.Client(w.dial(), &tls.Config{InsecureSkipVerify: true, Certificates: []tls.Certificate{pair}, MaxVersion: tls.VersionTLS12})
	_ = c.SetDeadline(time.Now().Add(3 * time.Second))
	return c, c.Handshake()
}
