package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"kubecred.dev/shim/handshakelog"
)

// upstreamSettings is the real cluster of a profile, and how the proxy authenticates to it:
// the token certificate (the broker signs each handshake), or with auth "credential" a
// credential the broker hands over (a bearer token, a software client certificate).
type upstreamSettings struct {
	Server              string  `json:"server"`
	CaPem               *string `json:"caPem"`
	TLSServerName       *string `json:"tlsServerName"`
	CertificateChainPem string  `json:"certificateChainPem"`
	KeyType             string  `json:"keyType"`
	Auth                string  `json:"auth,omitempty"`
	// TLSVersion "1.2" holds the upstream handshake to TLS 1.2 (and RSA keys to PKCS#1 v1.5):
	// for tokens without RSA-PSS, which TLS 1.3 requires. Empty: TLS 1.3 for the token key;
	// 1.2 or 1.3 for a credential, as kubectl would (nothing is signed by the broker then).
	TLSVersion string `json:"tlsVersion,omitempty"`
	// Proxy: the profile's own proxy, and a proxy password from its keychain; absent, the
	// environment's proxy alone (HTTPS_PROXY, NO_PROXY).
	Proxy *upstreamProxy `json:"proxy,omitempty"`
}

// route is one listen request's upstream settings, checked and parsed once.
type route struct {
	server     string // as configured, for messages
	target     *url.URL
	chain      [][]byte
	leaf       *x509.Certificate
	roots      *x509.CertPool // nil: the system's
	serverName string
	tls12      bool
	tls13      bool // "1.3" given: a credential-mode route then refuses 1.2 too
	credential bool // upstream.auth "credential": no token key, the held credential speaks
	headers    http.Header
	proxy      proxyChoice // the proxy a connection to the cluster goes through, if any
	key        string      // the settings as given: a listen that changes nothing keeps the sessions
}

// authCredential is upstream.auth for a listener that shows the cluster a credential the
// broker hands over; absent, the token key signs the handshake.
const authCredential = "credential"

// Headers a profile may not set: net/http owns them, or they would break the framing.
var reservedHeaders = map[string]bool{"Host": true, "Connection": true, "Upgrade": true, "Transfer-Encoding": true, "Content-Length": true, "Te": true, "Trailer": true, "Keep-Alive": true, "Proxy-Connection": true}

func parseRoute(profile string, s upstreamSettings, headers map[string]string) (*route, error) {
	target, err := url.Parse(s.Server)
	if err != nil || target.Scheme != "https" || target.Host == "" || target.User != nil {
		return nil, fmt.Errorf("the cluster's server %q is not an https://host:port URL: fix proxy.server in config.yaml", s.Server)
	}
	var chain [][]byte
	var leaf *x509.Certificate
	switch s.Auth {
	case "":
		if chain, leaf, err = tokenCertificate(s); err != nil {
			return nil, err
		}
	case authCredential:
		if s.CertificateChainPem != "" || s.KeyType != "" {
			return nil, errors.New(`upstream.auth "credential" takes no certificateChainPem or keyType: the broker hands the credential over`)
		}
	default:
		return nil, fmt.Errorf(`upstream.auth %.20q: use "credential", or leave it out for the token key`, s.Auth)
	}
	key, _ := json.Marshal([]any{s, headers}) // map keys are sorted, so equal settings give equal keys
	if s.TLSVersion != "" && s.TLSVersion != "1.2" && s.TLSVersion != "1.3" {
		return nil, fmt.Errorf("proxy.tlsVersion %.10q: use 1.2 or 1.3 in config.yaml", s.TLSVersion)
	}
	r := &route{server: s.Server, target: target, chain: chain, leaf: leaf, serverName: target.Hostname(), tls12: s.TLSVersion == "1.2", tls13: s.TLSVersion == "1.3", credential: s.Auth == authCredential, headers: http.Header{}, key: string(key)}
	var ownProxy *url.URL
	var storedPassword string
	if s.Proxy != nil {
		if s.Proxy.URL != "" {
			if ownProxy, err = parseProfileProxy(profile, s.Proxy.URL); err != nil {
				return nil, err
			}
		}
		storedPassword = s.Proxy.Password
	}
	r.proxy = proxyChoiceOf(profile, ownProxy, storedPassword, environmentProxy)
	if s.CaPem != nil {
		r.roots = x509.NewCertPool()
		if !r.roots.AppendCertsFromPEM([]byte(*s.CaPem)) {
			return nil, errors.New("the cluster's CA is not a PEM certificate: fix proxy.caFile in config.yaml")
		}
	}
	if s.TLSServerName != nil && *s.TLSServerName != "" {
		r.serverName = *s.TLSServerName
	}
	for name, value := range headers {
		canonical := textproto.CanonicalMIMEHeaderKey(name)
		if !validHeaderName(name) || reservedHeaders[canonical] || strings.ContainsAny(value, "\r\n\x00") {
			return nil, fmt.Errorf("proxy header %.60q cannot be set: fix proxy.headers in config.yaml", name)
		}
		r.headers.Set(canonical, value)
	}
	return r, nil
}

// tokenCertificate is the token's certificate chain, checked against the key type the broker
// signs with.
func tokenCertificate(s upstreamSettings) ([][]byte, *x509.Certificate, error) {
	chain := pemCertificates([]byte(s.CertificateChainPem))
	if len(chain) == 0 {
		return nil, nil, errors.New("the token's certificate chain has no PEM certificate")
	}
	leaf, err := x509.ParseCertificate(chain[0])
	if err != nil {
		return nil, nil, fmt.Errorf("the token's certificate: %w", err)
	}
	switch leaf.PublicKey.(type) {
	case *rsa.PublicKey:
		if s.KeyType != "rsa" {
			return nil, nil, fmt.Errorf("the token's certificate has an RSA key, but keyType is %q", s.KeyType)
		}
	case *ecdsa.PublicKey:
		if s.KeyType != "ecdsa" {
			return nil, nil, fmt.Errorf("the token's certificate has an ECDSA key, but keyType is %q", s.KeyType)
		}
	default:
		return nil, nil, fmt.Errorf("the token's certificate has a %T key: only RSA and ECDSA keys can sign", leaf.PublicKey)
	}
	return chain, leaf, nil
}

func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if c > 0x7e || c <= ' ' || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", c) {
			return false
		}
	}
	return true
}

// errRevoked is the cause of every request and handshake a revoke (or close) ended.
var errRevoked = errors.New("revoked")

// revocation is a revoke's cause with the broker's words for it ("the key of token "hsm"
// went away ..."), so kubectl is told which token and what to do; it is errRevoked to errors.Is.
type revocation struct{ reason string }

func (r *revocation) Error() string        { return "revoked: " + r.reason }
func (r *revocation) Is(target error) bool { return target == errRevoked }

// revokedBy is the cause a revoke gives: errRevoked itself when the broker gave no reason.
func revokedBy(reason string) error {
	if reason == "" {
		return errRevoked
	}
	return &revocation{reason: reason}
}

// upstream is one generation of a profile's way to the cluster: its settings, its TLS session
// cache and its connections' transports. A revoke starts a new generation, so nothing from
// before (a session ticket, an idle connection) lets a request skip a new token signature.
//
// Two transports: HTTP/2 for plain requests (one connection carries everything, so one
// signature serves many requests), and HTTP/1.1 for Upgrade requests (SPDY/3.1 cannot be
// carried over HTTP/2: net/http answers "invalid Upgrade request header").
type upstream struct {
	profile string
	route   *route
	ask     askFunc
	conns   *connSet
	diag    *log.Logger
	// credentials is the listener's held credential, in credential mode (route.credential).
	credentials *credentialHolder

	ctx    context.Context // ends when the generation is revoked
	cancel context.CancelCauseFunc
	tls    *tls.Config
	cache  *sessionCache // nil: no resumption
	flight *handshakeGate

	plain, upgrade *http.Transport
	proxy          *httputil.ReverseProxy
}

func newUpstream(profile string, r *route, ask askFunc, conns *connSet, diag *log.Logger, cacheSize int) *upstream {
	u := &upstream{profile: profile, route: r, ask: ask, conns: conns, diag: diag, flight: newHandshakeGate()}
	u.ctx, u.cancel = context.WithCancelCause(context.Background())
	u.tls = &tls.Config{
		// The broker signs what it can check: a TLS 1.3 CertificateVerify, or for a profile set
		// to TLS 1.2 the 1.2 handshake transcript. No downgrade from one to the other.
		MinVersion:           tls.VersionTLS13,
		RootCAs:              r.roots,
		ServerName:           r.serverName,
		GetClientCertificate: u.clientCertificate,
	}
	switch {
	case r.tls12:
		u.tls.MinVersion, u.tls.MaxVersion = tls.VersionTLS12, tls.VersionTLS12
	case r.credential && !r.tls13:
		// No broker signature to keep to one TLS version: as kubectl itself would.
		u.tls.MinVersion = tls.VersionTLS12
	}
	if cacheSize > 0 {
		u.cache = newSessionCache(cacheSize)
		u.tls.ClientSessionCache = u.cache
	}
	u.plain = &http.Transport{
		DialTLSContext:        u.dialTLS([]string{"h2", "http/1.1"}),
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
		// A watch on a connection whose peer vanished (laptop sleep, VPN drop) would hang
		// forever; pings find it dead, as client-go does on its own connections.
		HTTP2: &http.HTTP2Config{SendPingTimeout: 30 * time.Second, PingTimeout: 15 * time.Second},
		// kubectl asks for compression itself when it wants it; the proxy passes bytes through.
		DisableCompression: true,
	}
	u.upgrade = &http.Transport{
		DialTLSContext:     u.dialTLS([]string{"http/1.1"}),
		TLSNextProto:       map[string]func(string, *tls.Conn) http.RoundTripper{},
		ForceAttemptHTTP2:  false,
		IdleConnTimeout:    30 * time.Second,
		DisableCompression: true,
	}
	u.proxy = &httputil.ReverseProxy{
		Rewrite:        u.rewrite,
		Transport:      u,
		FlushInterval:  -1, // watches and logs -f: every chunk as it comes
		ErrorLog:       diag,
		ErrorHandler:   u.fail,
		ModifyResponse: u.noteRejection,
	}
	return u
}

func (u *upstream) clientCertificate(info *tls.CertificateRequestInfo) (*tls.Certificate, error) {
	if u.route.credential {
		if u.credentials == nil {
			return &tls.Certificate{}, nil
		}
		return u.credentials.certificate(), nil
	}
	signer := &remoteSigner{ctx: info.Context(), public: u.route.leaf.PublicKey, ask: u.ask}
	if a, ok := info.Context().Value(attemptKey{}).(*attempt); ok {
		signer.refusal = &a.refusal
		if a.log != nil {
			signer.handshake = func() map[string]string { return a.log.Evidence(u.route.chain) }
		}
	}
	certificate := &tls.Certificate{Certificate: u.route.chain, Leaf: u.route.leaf, PrivateKey: signer}
	if _, rsaKey := u.route.leaf.PublicKey.(*rsa.PublicKey); rsaKey && u.route.tls12 {
		// The reason for TLS 1.2 is a token without RSA-PSS: never offer to sign with it.
		certificate.SupportedSignatureAlgorithms = []tls.SignatureScheme{tls.PKCS1WithSHA256, tls.PKCS1WithSHA384, tls.PKCS1WithSHA512}
	}
	return certificate, nil
}

// attempt carries one handshake's record to the signer, and the broker's refusal back to the dialer.
type attempt struct {
	refusal atomic.Pointer[brokerError]
	log     *handshakelog.Log // TLS 1.3 only
}
type attemptKey struct{}

func (u *upstream) rewrite(r *httputil.ProxyRequest) {
	r.SetURL(u.route.target) // scheme, host (and Host header), base path joined with kubectl's
	// kubectl's own credentials never reach the cluster: the token's certificate speaks.
	r.Out.Header.Del("Authorization")
	r.Out.Header.Del("Proxy-Authorization")
	for name, values := range u.route.headers {
		r.Out.Header[name] = append([]string(nil), values...)
	}
	// After the profile's headers: the held credential's token is the one that speaks.
	if held, ok := r.In.Context().Value(credentialKey{}).(*upstreamCredential); ok && held.token != "" {
		r.Out.Header.Set("Authorization", "Bearer "+held.token)
	}
}

// credentialKey carries the credential a request was sent with, so its 401 can be pinned on it.
type credentialKey struct{}

// noteRejection marks the held credential rejected on the cluster's 401, which itself goes to
// kubectl unchanged: client-go then runs the exec plugin again, and the broker can log in.
func (u *upstream) noteRejection(response *http.Response) error {
	if response.StatusCode != http.StatusUnauthorized || u.credentials == nil {
		return nil
	}
	if used, ok := response.Request.Context().Value(credentialKey{}).(*upstreamCredential); ok {
		u.credentials.rejectedByCluster(used)
	}
	return nil
}

func (u *upstream) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("Upgrade") != "" {
		return u.upgrade.RoundTrip(r)
	}
	return u.plain.RoundTrip(r)
}

// fail answers kubectl with a Status that says what went wrong upstream.
func (u *upstream) fail(w http.ResponseWriter, r *http.Request, err error) {
	var refusal *brokerError
	switch {
	case errors.Is(context.Cause(r.Context()), errRevoked) || errors.Is(err, errRevoked):
		var why *revocation
		if errors.As(context.Cause(r.Context()), &why) || errors.As(err, &why) {
			writeStatus(w, http.StatusServiceUnavailable, fmt.Sprintf("kubecred-proxy ended this request: %.300s", why.reason))
			return
		}
		if u.route.credential {
			writeStatus(w, http.StatusServiceUnavailable, fmt.Sprintf("kubecred-proxy ended this request: the upstream credential of profile %s was revoked; run the command again", u.profile))
			return
		}
		writeStatus(w, http.StatusServiceUnavailable, fmt.Sprintf("kubecred-proxy ended this request: the token key of profile %s was locked or removed; unlock or insert it and run the command again", u.profile))
	case errors.As(err, &refusal) && refusal.status != 0:
		writeStatus(w, refusal.status, refusal.message)
	case errors.As(err, &refusal):
		writeStatus(w, http.StatusBadGateway, fmt.Sprintf("kubecred-proxy could not reach %s: %s", u.route.server, refusal.message))
	case untrustedServer(err) && u.inspectedBy(err) != nil:
		via := u.inspectedBy(err)
		host := u.route.target.Hostname()
		writeStatus(w, http.StatusBadGateway, fmt.Sprintf("kubecred-proxy does not trust the certificate of %s (%v): through the proxy %s (from %s), %s showed a certificate signed by a root this profile does not trust; a TLS-inspecting proxy may be re-signing it with its own root, and the cluster's connection (mTLS to the API server) must pass the proxy uninspected: ask whoever runs the proxy to pass %s uninspected (if the proxy does not inspect TLS, profile %s needs the cluster's CA as proxy.caFile in config.yaml)", u.route.server, err, shownProxy(via.proxy), via.source, host, host, u.profile))
	case untrustedServer(err):
		writeStatus(w, http.StatusBadGateway, fmt.Sprintf("kubecred-proxy does not trust the certificate of %s (%v): profile %s needs the cluster's CA as proxy.caFile in config.yaml; kubecred enroll and turning the proxy on in the window take it from the kubeconfig", u.route.server, err, u.profile))
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		// kubectl went away (Ctrl-C); nobody reads this answer.
		writeStatus(w, http.StatusBadGateway, "the request was canceled")
	default:
		writeStatus(w, http.StatusBadGateway, fmt.Sprintf("kubecred-proxy could not reach %s: %v", u.route.server, err))
	}
}

// inspectedBy is the proxy the cluster's connection went through when its certificate was
// signed by an unknown root: behind a proxy, usually one that inspects TLS and re-signs with its
// own root. nil when no proxy was used or the certificate failed otherwise.
func (u *upstream) inspectedBy(err error) *proxyRoute {
	var unknown x509.UnknownAuthorityError
	if !errors.As(err, &unknown) {
		return nil
	}
	// The environment is read once per process and the target is the route's, so this is the
	// proxy the failed dial used.
	via, choiceErr := u.route.proxy(u.route.target)
	if choiceErr != nil {
		return nil
	}
	return via
}

// untrustedServer: the cluster's certificate failed verification, which a CA in the profile fixes.
func untrustedServer(err error) bool {
	var unknown x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	var host x509.HostnameError
	var verify *tls.CertificateVerificationError
	return errors.As(err, &unknown) || errors.As(err, &invalid) || errors.As(err, &host) || errors.As(err, &verify)
}

// retire ends the generation: handshakes waiting for a signature give up, idle connections
// close. Connections in use are closed by the listener's connSet.
func (u *upstream) retire(cause error) {
	u.cancel(cause)
	u.closeIdle()
}

func (u *upstream) closeIdle() {
	u.plain.CloseIdleConnections()
	u.upgrade.CloseIdleConnections()
}
