package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// upstreamSettings is the real cluster of a profile, and the token certificate to show it.
type upstreamSettings struct {
	Server              string  `json:"server"`
	CaPem               *string `json:"caPem"`
	TLSServerName       *string `json:"tlsServerName"`
	CertificateChainPem string  `json:"certificateChainPem"`
	KeyType             string  `json:"keyType"`
}

// upstream is one profile's way to the cluster. Two transports: HTTP/2 for plain requests
// (one connection carries everything, so one signature serves many requests), and HTTP/1.1
// for Upgrade requests (a SPDY upgrade fails over HTTP/2). Both share a TLS session cache,
// and handshakes run one at a time, so concurrent cold requests resume the first session
// instead of each asking the token to sign.
type upstream struct {
	target      *url.URL
	plain       *http.Transport
	upgrade     *http.Transport
	handshakeMu sync.Mutex
	// Every connection made, so a revoke can cut them: a canceled request context does not
	// abort a response body already streaming over HTTP/2.
	connsMu     sync.Mutex
	conns       []*tls.Conn
	lastRefusal atomic.Pointer[brokerError]
	settings    upstreamSettings
}

func newUpstream(profile string, settings upstreamSettings, ask func(ctx context.Context, profile, scheme string, message []byte) ([]byte, error)) (*upstream, error) {
	target, err := url.Parse(settings.Server)
	if err != nil || target.Scheme != "https" || target.Host == "" {
		return nil, fmt.Errorf("the cluster's server %q is not an https:// URL", settings.Server)
	}
	var chain [][]byte
	rest := []byte(settings.CertificateChainPem)
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type == "CERTIFICATE" {
			chain = append(chain, block.Bytes)
		}
	}
	if len(chain) == 0 {
		return nil, errors.New("the token's certificate is not PEM")
	}
	leaf, err := x509.ParseCertificate(chain[0])
	if err != nil {
		return nil, fmt.Errorf("the token's certificate: %w", err)
	}
	up := &upstream{target: target, settings: settings}
	signer := &remoteSigner{public: leaf.PublicKey, profile: profile, ask: ask, failed: func(err error) {
		var refusal *brokerError
		if errors.As(err, &refusal) {
			up.lastRefusal.Store(refusal)
		}
	}}
	certificate := &tls.Certificate{Certificate: chain, Leaf: leaf, PrivateKey: signer}
	config := &tls.Config{
		// The broker signs TLS 1.3 CertificateVerify messages only; TLS 1.2 (for tokens
		// without RSA-PSS) would need it to check a whole handshake transcript.
		MinVersion:           tls.VersionTLS13,
		ClientSessionCache:   tls.NewLRUClientSessionCache(64),
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return certificate, nil },
	}
	if settings.CaPem != nil {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(*settings.CaPem)) {
			return nil, errors.New("the cluster's CA is not PEM")
		}
		config.RootCAs = pool
	}
	if settings.TLSServerName != nil {
		config.ServerName = *settings.TLSServerName
	} else {
		config.ServerName = target.Hostname()
	}
	up.plain = &http.Transport{DialTLSContext: up.dialer(config, []string{"h2", "http/1.1"}), ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 16, IdleConnTimeout: 90 * time.Second}
	up.upgrade = &http.Transport{DialTLSContext: up.dialer(config, []string{"http/1.1"}), TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}, IdleConnTimeout: 30 * time.Second}
	return up, nil
}

func (up *upstream) dialer(config *tls.Config, protocols []string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	dialer := &net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		up.handshakeMu.Lock()
		defer up.handshakeMu.Unlock()
		raw, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		perConn := config.Clone()
		perConn.NextProtos = protocols
		conn := tls.Client(raw, perConn)
		if err := conn.HandshakeContext(ctx); err != nil {
			raw.Close()
			return nil, err
		}
		up.connsMu.Lock()
		up.conns = append(up.conns, conn)
		up.connsMu.Unlock()
		return conn, nil
	}
}

func (up *upstream) RoundTrip(request *http.Request) (*http.Response, error) {
	if request.Header.Get("Upgrade") != "" {
		return up.upgrade.RoundTrip(request)
	}
	return up.plain.RoundTrip(request)
}

// cutAll closes every connection this upstream made, in use or not.
func (up *upstream) cutAll() {
	up.connsMu.Lock()
	conns := up.conns
	up.conns = nil
	up.connsMu.Unlock()
	for _, conn := range conns {
		_ = conn.Close()
	}
	up.closeIdle()
}

func (up *upstream) closeIdle() {
	up.plain.CloseIdleConnections()
	up.upgrade.CloseIdleConnections()
}
