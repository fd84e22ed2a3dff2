// Package handshakelog keeps what a TLS 1.3 client saw of its handshake until it signs its
// CertificateVerify, so the broker can check whom the signature is for before the token signs.
//
// TLS 1.3 encrypts the server's certificate, and the signature covers only a hash of the
// transcript: a hash proves nothing about the server. So the client hands over the raw bytes
// both ways and the server's handshake traffic secret; the broker decrypts the server's
// messages, checks the certificate against the profile, and hashes the transcript itself. The
// secret opens the handshake only (the certificates), never the requests that follow.
package handshakelog

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net"
	"sync"
)

// maxBytes bounds what one handshake keeps: a server's chain is a few KiB, so a server that
// sends more before its Finished is not one the broker would sign for anyway.
const maxBytes = 256 << 10

// Log wraps a connection for one client handshake. Use Conn as the TLS client's transport and
// Log as its tls.Config.KeyLogWriter; call Stop once the handshake is over.
type Log struct {
	net.Conn
	mu           sync.Mutex
	recording    bool
	sent         []byte
	received     []byte
	serverSecret []byte
}

// New starts recording on conn.
func New(conn net.Conn) *Log { return &Log{Conn: conn, recording: true} }

func (l *Log) Read(p []byte) (int, error) {
	n, err := l.Conn.Read(p)
	l.keep(&l.received, p[:n])
	return n, err
}

func (l *Log) Write(p []byte) (int, error) {
	l.keep(&l.sent, p)
	return l.Conn.Write(p)
}

func (l *Log) keep(into *[]byte, p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.recording {
		return
	}
	if len(l.sent)+len(l.received)+len(p) > maxBytes {
		l.recording = false // the evidence is incomplete now; the broker will refuse it
		l.sent, l.received = nil, nil
		return
	}
	*into = append(*into, p...)
}

// KeyLog is the tls.Config.KeyLogWriter of the handshake. Of its lines (NSS key log format)
// only the server's handshake traffic secret is kept; the application traffic secrets are
// dropped as they come.
func (l *Log) KeyLog() io.Writer { return keyLog{l} }

type keyLog struct{ l *Log }

func (k keyLog) Write(line []byte) (int, error) {
	k.l.keepSecret(line)
	return len(line), nil
}

func (l *Log) keepSecret(line []byte) {
	fields := bytes.Fields(line)
	if len(fields) != 3 || string(fields[0]) != "SERVER_HANDSHAKE_TRAFFIC_SECRET" {
		return
	}
	secret := make([]byte, hex.DecodedLen(len(fields[2])))
	if _, err := hex.Decode(secret, fields[2]); err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.serverSecret = secret
}

// Stop ends recording and forgets what was kept, secret included.
func (l *Log) Stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recording = false
	l.sent, l.received, l.serverSecret = nil, nil, nil
}

// Evidence is what the broker needs to check the handshake a CertificateVerify signs: the bytes
// each way so far, the server's handshake secret, and the client's Certificate message (still
// in crypto/tls's write buffer when it signs). chain is the client's certificates, leaf first.
func (l *Log) Evidence(chain [][]byte) map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	encode := base64.StdEncoding.EncodeToString
	return map[string]string{
		"sent":              encode(l.sent),
		"received":          encode(l.received),
		"serverSecret":      encode(l.serverSecret),
		"clientCertificate": encode(CertificateMessage(chain)),
	}
}

// CertificateMessage is the TLS 1.3 Certificate handshake message a client sends during the
// handshake (RFC 8446, 4.4.2), as crypto/tls writes it: an empty request context, each
// certificate with no extensions.
func CertificateMessage(chain [][]byte) []byte {
	var list []byte
	for _, der := range chain {
		list = append(list, u24(len(der))...)
		list = append(list, der...)
		list = append(list, 0, 0)
	}
	body := append([]byte{0}, u24(len(list))...)
	body = append(body, list...)
	return append(append([]byte{11}, u24(len(body))...), body...)
}

func u24(n int) []byte { return []byte{byte(n >> 16), byte(n >> 8), byte(n)} }
