package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

const (
	// Server certificates are renewed well before they end, so a proxy running for months
	// never shows kubectl an expired one.
	serverCertValidity = 30 * 24 * time.Hour
	serverCertRenewal  = 24 * time.Hour
	sessionCacheSize   = 64
)

// listener is one profile's loopback TLS port: kubectl's local certificate in, the cluster's
// mTLS out.
type listener struct {
	profile string
	port    int
	ctl     *controller
	server  *http.Server
	conns   *connSet
	diag    *log.Logger

	mu          sync.Mutex
	current     *upstream
	generations []*upstream // every generation since the last revoke; their streams may run
	inFlight    map[*http.Request]context.CancelCauseFunc

	guard       atomic.Pointer[requestGuard] // nil: no guard
	credentials *credentialHolder            // used in credential mode only

	certMu     sync.Mutex
	serverCert *tls.Certificate
	ca         *localCA
}

func startListener(ca *localCA, profile string, port int, ctl *controller, r *route, guard *requestGuard) (*listener, error) {
	socket, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		if addrInUse(err) {
			return nil, fmt.Errorf("127.0.0.1:%d is in use by another program: choose another proxy port for profile %s in config.yaml", port, profile)
		}
		return nil, fmt.Errorf("cannot listen on 127.0.0.1:%d for profile %s: %v", port, profile, err)
	}
	l := &listener{
		profile:  profile,
		port:     socket.Addr().(*net.TCPAddr).Port,
		ctl:      ctl,
		conns:    newConnSet(),
		diag:     log.New(diagWriter{ctl: ctl}, "profile "+profile+": ", 0),
		inFlight: map[*http.Request]context.CancelCauseFunc{},
		ca:       ca,
	}
	l.credentials = newCredentialHolder(brokerCredential(ctl, profile), l.renewGeneration, l.diag.Printf)
	if _, err := l.certificate(nil); err != nil {
		_ = socket.Close()
		return nil, err
	}
	clients := x509.NewCertPool()
	clients.AddCert(ca.cert)
	errorLog := log.New(diagWriter{ctl: ctl, quiet: probeNoise}, "profile "+profile+": ", 0)
	l.server = &http.Server{
		Handler:           l,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       10 * time.Minute,
		// No WriteTimeout: watches, logs -f and exec sessions last as long as the user wants.
		ErrorLog: errorLog,
		TLSConfig: &tls.Config{
			MinVersion:       tls.VersionTLS12, // kubectl builds from before TLS 1.3 was default
			GetCertificate:   l.certificate,
			ClientAuth:       tls.RequireAndVerifyClientCert,
			ClientCAs:        clients,
			NextProtos:       []string{"h2", "http/1.1"},
			VerifyConnection: l.verifyClient,
		},
	}
	l.configure(r)
	l.setGuard(guard) // before the first connection: no request slips past it
	// The guard hands the server finished handshakes only (*tls.Conn, so HTTP/2 still works).
	go func() {
		_ = l.server.Serve(newGuardedListener(socket, l.server.TLSConfig, errorLog, defaultGuardLimits))
	}()
	return l, nil
}

// addrInUse recognises a taken port on every OS (Windows' WSAEADDRINUSE is 10048, which
// syscall.EADDRINUSE does not match there).
func addrInUse(err error) bool {
	var errno syscall.Errno
	if errors.As(err, &errno) && (errno == syscall.EADDRINUSE || errno == 10048) {
		return true
	}
	return strings.Contains(err.Error(), "address already in use") || strings.Contains(err.Error(), "Only one usage of each socket address")
}

// verifyClient admits only a certificate of this listener's profile, so a program given
// profile A's certificate cannot use profile B's cluster identity.
func (l *listener) verifyClient(state tls.ConnectionState) error {
	if len(state.PeerCertificates) == 0 {
		return certificateRefused{"no client certificate: kubectl gets one from kubecred-shim (kubecred install --profile " + l.profile + ")"}
	}
	leaf := state.PeerCertificates[0]
	if now := time.Now(); now.After(leaf.NotAfter) || now.Before(leaf.NotBefore) {
		return certificateRefused{fmt.Sprintf("the client certificate is valid from %s to %s only", leaf.NotBefore.Format(time.RFC3339), leaf.NotAfter.Format(time.RFC3339))}
	}
	if !namesProfile(leaf, l.profile) {
		return certificateRefused{"the client certificate is not for profile " + l.profile}
	}
	if !l.ca.issued.admits(l.profile, leaf.Raw, time.Now()) {
		return certificateRefused{"the client certificate was not issued by this kubecred-proxy (a restart of the proxy ends those issued before): run kubectl again, and kubecred-shim gets a fresh one"}
	}
	return nil
}

// certificate serves the listener's certificate, renewing it before it ends.
func (l *listener) certificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	l.certMu.Lock()
	defer l.certMu.Unlock()
	if l.serverCert == nil || time.Until(l.serverCert.Leaf.NotAfter) < serverCertRenewal {
		fresh, err := l.ca.serverCertificate(serverCertValidity)
		if err != nil {
			return nil, fmt.Errorf("the listener's certificate: %w", err)
		}
		l.serverCert = fresh
	}
	return l.serverCert, nil
}

// configure sets (or replaces) where new requests go; requests already running keep theirs.
// The same settings again change nothing: a new session cache would cost a signature.
func (l *listener) configure(r *route) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.current != nil && l.current.route.key == r.key {
		return
	}
	if old := l.current; old != nil {
		// A credential is for the cluster it was asked for: never shown to another.
		if old.route.server != r.server || old.route.credential != r.credential {
			l.credentials.forget()
		}
		old.closeIdle()
	}
	fresh := l.newGeneration(r)
	l.current = fresh
	l.generations = append(l.generations, fresh)
}

// newGeneration is a fresh way to the cluster: new connections, new TLS sessions.
func (l *listener) newGeneration(r *route) *upstream {
	u := newUpstream(l.profile, r, brokerAsk(l.ctl, l.profile), l.conns, l.diag, sessionCacheSize)
	if r.credential {
		u.credentials = l.credentials
	}
	return u
}

// renewGeneration follows a new client certificate: a connection already open shows the
// cluster the one its handshake showed (HTTP/2 would carry new requests on it), so new
// requests go to new connections. Open streams keep theirs.
func (l *listener) renewGeneration() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, old := range l.generations {
		old.closeIdle()
	}
	fresh := l.newGeneration(l.current.route)
	l.current = fresh
	l.generations = append(l.generations, fresh)
}

// credentialMode: the listener shows the cluster a credential the broker hands over.
func (l *listener) credentialMode() bool { return l.currentGeneration().route.credential }

// setGuard replaces the request guard for requests to come; nil is none.
func (l *listener) setGuard(g *requestGuard) { l.guard.Store(g) }

func (l *listener) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &recorder{ResponseWriter: w, started: time.Now()}
	rec.audit = func(code int) { l.audit(r, rec, code) }
	defer rec.finish()
	if !l.ownHost(r.Host) {
		writeStatus(rec, http.StatusMisdirectedRequest, fmt.Sprintf("refused: Host header %s is not this proxy", r.Host))
		return
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		if why := l.ca.issued.revokedWhy(l.profile, r.TLS.PeerCertificates[0].Raw); why != "" {
			writeStatus(rec, http.StatusServiceUnavailable, "kubecred-proxy revoked this local certificate: "+why)
			return
		}
	}
	ctx, cancel := context.WithCancelCause(r.Context())
	l.mu.Lock()
	l.inFlight[r] = cancel
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		delete(l.inFlight, r)
		l.mu.Unlock()
		cancel(nil)
	}()
	r = r.WithContext(ctx)
	// The guard first: a refused request costs no credential and never leaves the machine.
	if guard := l.guard.Load(); guard != nil {
		body, unread := bodyTheGuardReads(r, l.profile)
		facts := factsOf(r, body)
		rec.facts = &facts
		rec.verdict = unread
		if unread == nil {
			rec.verdict = guard.decide(ctx, l.profile, facts, time.Now(), brokerConfirm(l.ctl, l.profile, r))
		}
		if rec.verdict.refused() {
			writeStatus(rec, rec.verdict.status, rec.verdict.message)
			return
		}
	}
	// Taken after the guard, which can wait minutes for a confirm: a revoke meanwhile has
	// ended ctx, and a listen meanwhile has made another generation current.
	up := l.currentGeneration()
	if up.route.credential {
		held, err := l.credentials.credential(ctx)
		if err != nil {
			l.failCredential(rec, r, up, err)
			return
		}
		r = r.WithContext(context.WithValue(ctx, credentialKey{}, held))
		up = l.currentGeneration() // a new certificate came with a new generation
	}
	up.proxy.ServeHTTP(rec, r)
}

func (l *listener) currentGeneration() *upstream {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.current
}

// failCredential answers a request that has no usable credential: the broker's words and
// status (401 when a login is needed, so client-go runs the exec plugin), else 502.
func (l *listener) failCredential(w http.ResponseWriter, r *http.Request, up *upstream, err error) {
	var refusal *brokerError
	switch {
	case errors.Is(err, errRevoked) || r.Context().Err() != nil:
		up.fail(w, r, err)
	case errors.As(err, &refusal):
		code := refusal.status
		if code == 0 {
			code = http.StatusBadGateway
		}
		writeStatus(w, code, refusal.message)
	default:
		writeStatus(w, http.StatusBadGateway, fmt.Sprintf("kubecred-proxy has no upstream credential for profile %s: %v", l.profile, err))
	}
}

// ownHost is kubectl proxy's --accept-hosts idea: a web page that rebinds its own name to
// 127.0.0.1 sends its own Host, and is refused.
func (l *listener) ownHost(host string) bool {
	for _, name := range []string{"127.0.0.1", "localhost", "[::1]"} {
		if strings.EqualFold(host, fmt.Sprintf("%s:%d", name, l.port)) {
			return true
		}
	}
	return false
}

func (l *listener) audit(r *http.Request, rec *recorder, code int) {
	var certificate any
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		certificate = r.TLS.PeerCertificates[0].SerialNumber.Text(16)
	}
	event := map[string]any{"type": "audit", "profile": l.profile, "caller": nil, "certificate": certificate, "method": r.Method, "path": r.URL.Path, "status": code, "ms": time.Since(rec.started).Milliseconds()}
	// What the guard decided, and about what, when a rule had a say (or the guard was off).
	if v := rec.verdict; v != nil {
		guard := map[string]any{"decision": v.decision}
		if v.rule != "" {
			guard["rule"] = v.rule
		}
		event["guard"] = guard
		f := rec.facts
		event["verb"] = f.verb
		for field, value := range map[string]string{"resource": f.qualifiedResource(), "namespace": f.namespace, "name": f.name} {
			if value != "" {
				event[field] = value
			}
		}
		if f.dryRun {
			event["dryRun"] = true // as the guard judged it: where the server reads it
		}
	}
	// Which stream protocol an exec or port-forward used (websocket, SPDY/3.1): the first thing
	// to ask when one kubectl build streams and another does not.
	if upgrade := r.Header.Get("Upgrade"); upgrade != "" {
		event["upgrade"] = upgrade
	}
	l.ctl.send(event)
}

// revoke ends every request and upstream connection of the profile and forgets its TLS
// sessions: the next request needs a new handshake, so a new signature from the token.
// Requests end through their contexts (an upgraded stream's backend closes with it), and the
// TCP connections close under them, which also stops a response already streaming. reason,
// when the broker gives one, is what kubectl is told (it names the token and the fix).
func (l *listener) revoke(reason string) {
	cause := revokedBy(reason)
	l.mu.Lock()
	for _, cancel := range l.inFlight {
		cancel(cause)
	}
	for _, g := range l.generations {
		g.retire(cause)
	}
	fresh := l.newGeneration(l.current.route)
	l.current, l.generations = fresh, []*upstream{fresh}
	l.mu.Unlock()
	// After the generations' contexts end, so no dial still in progress can register later.
	l.conns.closeAll()
}

// answerGrace: how long a closing listener lets requests that already have their answer
// (a refusal because the broker went while a confirm waited) write it, so kubectl prints
// why instead of "unexpected EOF".
const answerGrace = time.Second

// close stops the listener and ends everything it carried.
func (l *listener) close() {
	l.credentials.close()
	l.mu.Lock()
	for _, cancel := range l.inFlight {
		cancel(errRevoked) // hijacked (upgraded) connections end with their request
	}
	for _, g := range l.generations {
		g.retire(errRevoked) // and so do requests waiting on the cluster (a watch)
	}
	l.mu.Unlock()
	// What is left are answers being written (a refusal because the broker went while a
	// confirm waited): a moment for them, so kubectl prints why, not "unexpected EOF".
	grace, cancel := context.WithTimeout(context.Background(), answerGrace)
	_ = l.server.Shutdown(grace)
	cancel()
	_ = l.server.Close() // the port, and kubectl's connections (not hijacked ones)
	l.conns.closeAll()
}

// recorder notes the status for the audit record. Upgrades are audited when they are
// answered, since the stream can then last for hours. Unwrap lets ReverseProxy reach the real
// writer's Flush.
type recorder struct {
	http.ResponseWriter
	started time.Time
	status  int
	audit   func(code int)
	once    sync.Once
	// What the request guard saw and decided; verdict nil: no rule had a say.
	facts   *requestFacts
	verdict *guardVerdict
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 && code >= 200 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(body []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(body)
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Hijack is called by ReverseProxy only for a 101 from the cluster, which it then writes.
func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(r.ResponseWriter).Hijack()
	if err == nil {
		r.status = http.StatusSwitchingProtocols
		r.finish()
	}
	return conn, rw, err
}

func (r *recorder) finish() {
	r.once.Do(func() {
		code := r.status
		if code == 0 {
			code = http.StatusBadGateway // ended before any answer (a panic, a revoke)
		}
		r.audit(code)
	})
}

// diagWriter turns a log.Logger's output into diagnostic lines on the control channel's stderr.
type diagWriter struct {
	ctl   *controller
	quiet func(line string) bool
}

func (d diagWriter) Write(line []byte) (int, error) {
	text := strings.TrimRight(string(line), "\n")
	if d.quiet == nil || !d.quiet(text) {
		d.ctl.logf("%s", text)
	}
	return len(line), nil
}

// probeNoise: kubecred doctor and port scanners connect without a certificate, kubectl drops
// connections, and any local user can connect and stall or show a certificate of their own:
// those handshake errors are no news, and logging each would let a stranger fill the disk.
// A certificate of our CA refused is news (the guard logs only those).
func probeNoise(line string) bool {
	if !strings.Contains(line, "TLS handshake error") {
		return false
	}
	for _, noise := range []string{"EOF", "connection reset", "didn't provide a certificate", "bad certificate", "i/o timeout", "certificate signed by unknown authority"} {
		if strings.Contains(line, noise) {
			return true
		}
	}
	return false
}
