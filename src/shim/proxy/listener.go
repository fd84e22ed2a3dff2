package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"strings"
	"sync"
	"time"
)

var errRevoked = errors.New("revoked")

// listener is one profile's loopback TLS port: kubectl's local certificate in, the cluster's
// mTLS out.
type listener struct {
	profile string
	port    int
	server  *http.Server
	audit   func(event map[string]any)

	mu       sync.Mutex
	up       *upstream
	headers  map[string]string
	proxy    *httputil.ReverseProxy
	inFlight map[*struct{}]context.CancelCauseFunc
	make     func() (*upstream, error)
}

func startListener(ca *localCA, profile string, port int, audit func(map[string]any)) (*listener, error) {
	socket, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		if strings.Contains(err.Error(), "address already in use") || strings.Contains(err.Error(), "Only one usage") {
			return nil, fmt.Errorf("127.0.0.1:%d is in use by another program: choose another proxy port for profile %s in config.yaml", port, profile)
		}
		return nil, fmt.Errorf("cannot listen on 127.0.0.1:%d: %w", port, err)
	}
	serverCert, err := ca.serverCertificate()
	if err != nil {
		socket.Close()
		return nil, err
	}
	clients := x509.NewCertPool()
	clients.AddCert(ca.cert)
	want := profileUnit(profile)
	l := &listener{profile: profile, port: socket.Addr().(*net.TCPAddr).Port, audit: audit, inFlight: map[*struct{}]context.CancelCauseFunc{}}
	l.server = &http.Server{
		Handler:           l,
		ReadHeaderTimeout: 10 * time.Second,
		// Refused handshakes (no certificate, another profile's) are the point, not news.
		ErrorLog: log.New(io.Discard, "", 0),
		TLSConfig: &tls.Config{
			MinVersion:   tls.VersionTLS12,
			Certificates: []tls.Certificate{serverCert},
			ClientAuth:   tls.RequireAndVerifyClientCert,
			ClientCAs:    clients,
			NextProtos:   []string{"h2", "http/1.1"},
			VerifyConnection: func(state tls.ConnectionState) error {
				if len(state.PeerCertificates) > 0 {
					for _, unit := range state.PeerCertificates[0].Subject.OrganizationalUnit {
						if unit == want {
							return nil
						}
					}
				}
				return fmt.Errorf("this certificate is not for profile %s", profile)
			},
		},
	}
	go func() { _ = l.server.ServeTLS(socket, "", "") }()
	return l, nil
}

// configure sets (or replaces) where requests go; connections made before keep their upstream.
func (l *listener) configure(up *upstream, headers map[string]string, remake func() (*upstream, error)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	old := l.up
	l.up, l.headers, l.make = up, headers, remake
	l.proxy = l.reverseProxy(up, headers)
	if old != nil {
		old.closeIdle()
	}
}

func (l *listener) reverseProxy(up *upstream, headers map[string]string) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(request *httputil.ProxyRequest) {
			request.SetURL(up.target)
			// kubectl's own credentials never reach the cluster: the token's certificate speaks.
			request.Out.Header.Del("Authorization")
			request.Out.Header.Del("Proxy-Authorization")
			for name, value := range headers {
				request.Out.Header.Set(name, value)
			}
		},
		Transport:     up,
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
		ErrorHandler: func(w http.ResponseWriter, request *http.Request, err error) {
			if errors.Is(context.Cause(request.Context()), errRevoked) {
				writeStatus(w, http.StatusServiceUnavailable, fmt.Sprintf("kubecred-proxy ended this connection: the key of profile %s is no longer available", l.profile))
				return
			}
			if refusal := up.lastRefusal.Swap(nil); refusal != nil {
				code := refusal.status
				if code == 0 {
					code = http.StatusServiceUnavailable
				}
				writeStatus(w, code, refusal.message)
				return
			}
			writeStatus(w, http.StatusBadGateway, fmt.Sprintf("kubecred-proxy could not reach %s: %v", up.target.Host, err))
		},
	}
}

func (l *listener) ServeHTTP(w http.ResponseWriter, request *http.Request) {
	started := time.Now()
	recorder := &statusRecorder{ResponseWriter: w}
	defer func() {
		l.audit(map[string]any{"type": "audit", "profile": l.profile, "caller": nil, "certificate": certificateSerial(request), "method": request.Method, "path": request.URL.Path, "status": recorder.code(), "ms": time.Since(started).Milliseconds()})
	}()
	if !l.ownHost(request.Host) {
		writeStatus(recorder, http.StatusMisdirectedRequest, fmt.Sprintf("refused: Host header %q is not this proxy", request.Host))
		return
	}
	ctx, cancel := context.WithCancelCause(request.Context())
	token := &struct{}{}
	l.mu.Lock()
	l.inFlight[token] = cancel
	proxy := l.proxy
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		delete(l.inFlight, token)
		l.mu.Unlock()
		cancel(nil)
	}()
	proxy.ServeHTTP(recorder, request.WithContext(ctx))
}

// ownHost: like kubectl proxy's --accept-hosts, a page that rebinds a name to 127.0.0.1
// cannot use this port.
func (l *listener) ownHost(host string) bool {
	for _, name := range []string{"127.0.0.1", "localhost", "[::1]"} {
		if host == fmt.Sprintf("%s:%d", name, l.port) {
			return true
		}
	}
	return false
}

// revoke ends every request and connection of the profile: the next one needs a new
// handshake, so a new signature from the token.
func (l *listener) revoke() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, cancel := range l.inFlight {
		cancel(errRevoked)
	}
	if l.make == nil {
		return nil
	}
	fresh, err := l.make()
	if err != nil {
		return err
	}
	old := l.up
	l.up, l.proxy = fresh, l.reverseProxy(fresh, l.headers)
	old.cutAll()
	return nil
}

func (l *listener) close() {
	l.mu.Lock()
	for _, cancel := range l.inFlight {
		cancel(errRevoked)
	}
	up := l.up
	l.mu.Unlock()
	_ = l.server.Close()
	if up != nil {
		up.cutAll()
	}
}

func certificateSerial(request *http.Request) any {
	if request.TLS == nil || len(request.TLS.PeerCertificates) == 0 {
		return nil
	}
	return request.TLS.PeerCertificates[0].SerialNumber.Text(16)
}

// statusRecorder remembers the status for the audit record; Unwrap lets ReverseProxy reach
// the real writer's Flush and Hijack (streams and upgrades).
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(body []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(body)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *statusRecorder) code() int {
	if r.status == 0 {
		return http.StatusSwitchingProtocols
	}
	return r.status
}
