package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// proxy is the state the broker drives: the local CA and one listener per profile.
type proxy struct {
	ctl       *controller
	mu        sync.Mutex
	ca        *localCA
	listeners map[string]*listener
	closed    bool
}

func newProxy(ctl *controller) *proxy {
	return &proxy{ctl: ctl, listeners: map[string]*listener{}}
}

type caPair struct {
	CertPem string `json:"certPem"`
	KeyPem  string `json:"keyPem"`
}

type initRequest struct {
	CA *caPair `json:"ca"`
}

type listenRequest struct {
	Profile  string            `json:"profile"`
	Port     int               `json:"port"`
	Upstream upstreamSettings  `json:"upstream"`
	Headers  map[string]string `json:"headers"`
	// Guard, when given, replaces the request guard; absent, the listener keeps the one it has.
	Guard *guardSettings `json:"guard"`
}

type guardRequest struct {
	Profile string `json:"profile"`
	guardSettings
}

type credentialRequest struct {
	Profile    string              `json:"profile"`
	Credential *credentialSettings `json:"credential"`
}

type profileRequest struct {
	Profile    string  `json:"profile"`
	TTLSeconds int     `json:"ttlSeconds"`
	Caller     *string `json:"caller"`
	Reason     string  `json:"reason"` // revoke: why, in words for kubectl's user
	// revoke: the local certificates issued so far serve nothing more (a lock), not only the
	// upstream connections.
	Certificates bool `json:"certificates"`
}

// handle answers one broker request; its error is the reply's message, so it says what to do.
func (p *proxy) handle(kind string, raw json.RawMessage) (map[string]any, error) {
	switch kind {
	case "init":
		var r initRequest
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("a malformed init request: %v", err)
		}
		return p.init(r.CA)
	case "stats":
		return p.stats(), nil
	case "listen", "close", "issue", "revoke", "guard", "credential":
	default:
		return nil, fmt.Errorf("kubecred-proxy has no request %.40q: install the kubecred-proxy built with this broker", kind)
	}
	p.mu.Lock()
	ca := p.ca
	p.mu.Unlock()
	if ca == nil {
		return nil, errors.New("not initialised: send init (with the stored local CA, or null) first")
	}
	switch kind {
	case "listen":
		var r listenRequest
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("a malformed listen request: %v", err)
		}
		return p.listen(ca, r)
	case "guard":
		return p.setGuard(raw)
	case "credential":
		return p.setCredential(raw)
	}
	var r profileRequest
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("a malformed %s request: %v", kind, err)
	}
	if r.Profile == "" {
		return nil, fmt.Errorf("a %s request needs a profile", kind)
	}
	switch kind {
	case "close":
		ca.issued.forget(r.Profile)
		p.mu.Lock()
		l := p.listeners[r.Profile]
		delete(p.listeners, r.Profile)
		p.mu.Unlock()
		if l != nil {
			l.close()
		}
		return map[string]any{}, nil
	case "issue":
		if r.TTLSeconds <= 0 || r.TTLSeconds > 24*3600 {
			return nil, fmt.Errorf("ttlSeconds must be between 1 and 86400, not %d", r.TTLSeconds)
		}
		now := time.Now()
		issued, err := ca.issueClient(r.Profile, now.Add(-time.Minute), now.Add(time.Duration(r.TTLSeconds)*time.Second))
		if err != nil {
			return nil, err
		}
		return map[string]any{"certPem": issued.certPEM, "keyPem": issued.keyPEM, "notAfter": issued.notAfter.UTC().Format(time.RFC3339)}, nil
	default: // revoke
		if r.Certificates {
			ca.issued.revoke(r.Profile, r.Reason)
		}
		p.mu.Lock()
		l := p.listeners[r.Profile]
		p.mu.Unlock()
		if l != nil {
			// A lock ends what the broker handed over too: the next request asks anew.
			if r.Certificates {
				l.credentials.forget()
			}
			l.revoke(r.Reason)
		}
		return map[string]any{}, nil
	}
}

// listenerOf is the profile's listener, or the error a guard or credential message gets
// before its listen.
func (p *proxy) listenerOf(kind, profile string) (*listener, error) {
	if profile == "" {
		return nil, fmt.Errorf("a %s request needs a profile", kind)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.listeners[profile]
	if l == nil {
		return nil, fmt.Errorf("profile %s has no listener: send its listen before its %s", profile, kind)
	}
	return l, nil
}

func (p *proxy) setGuard(raw json.RawMessage) (map[string]any, error) {
	var r guardRequest
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("a malformed guard request: %v", err)
	}
	l, err := p.listenerOf("guard", r.Profile)
	if err != nil {
		return nil, err
	}
	guard, err := compileGuard(r.guardSettings)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", r.Profile, err)
	}
	l.setGuard(guard)
	return map[string]any{}, nil
}

func (p *proxy) setCredential(raw json.RawMessage) (map[string]any, error) {
	var r credentialRequest
	// The decoder's error is left out: it could quote the line, which holds the secret.
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, errors.New("a malformed credential request: not the protocol's shape")
	}
	l, err := p.listenerOf("credential", r.Profile)
	if err != nil {
		return nil, err
	}
	if !l.credentialMode() {
		return nil, fmt.Errorf(`profile %s signs with its token key: a credential is for a listener whose upstream.auth is "credential"`, r.Profile)
	}
	if r.Credential == nil {
		return nil, fmt.Errorf("profile %s: the credential request has no credential", r.Profile)
	}
	credential, err := parseCredential(*r.Credential)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", r.Profile, err)
	}
	l.credentials.set(credential)
	return map[string]any{}, nil
}

// init sets the local CA once. The same CA again (a retried init) is answered as before; a
// different one is refused, since listeners already serve certificates from the first.
func (p *proxy) init(stored *caPair) (map[string]any, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ca != nil {
		if stored != nil && stored.CertPem != p.ca.certPEM {
			return nil, errors.New("already initialised with another local CA: restart kubecred-proxy to change it")
		}
		return map[string]any{"ca": caPair{CertPem: p.ca.certPEM, KeyPem: p.ca.keyPEM}}, nil
	}
	var ca *localCA
	var err error
	if stored == nil {
		ca, err = newLocalCA()
	} else {
		ca, err = loadLocalCA(stored.CertPem, stored.KeyPem)
	}
	if err != nil {
		return nil, fmt.Errorf("the local CA: %w", err)
	}
	p.ca = ca
	return map[string]any{"ca": caPair{CertPem: ca.certPEM, KeyPem: ca.keyPEM}}, nil
}

func (p *proxy) listen(ca *localCA, r listenRequest) (map[string]any, error) {
	if r.Profile == "" {
		return nil, errors.New("a listen request needs a profile")
	}
	if r.Port < 0 || r.Port > 65535 {
		return nil, fmt.Errorf("port %d of profile %s is not a TCP port: choose one from 1024 to 65535 in config.yaml", r.Port, r.Profile)
	}
	target, err := parseRoute(r.Profile, r.Upstream, r.Headers)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", r.Profile, err)
	}
	var guard *requestGuard
	if r.Guard != nil {
		if guard, err = compileGuard(*r.Guard); err != nil {
			return nil, fmt.Errorf("profile %s: %w", r.Profile, err)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errBrokerGone
	}
	current := p.listeners[r.Profile]
	if current != nil && (r.Port == 0 || r.Port == current.port) {
		// The guard is not part of the route: a guard change keeps the generation and its
		// connections.
		current.configure(target)
		if r.Guard != nil {
			current.setGuard(guard)
		}
		return map[string]any{"port": current.port}, nil
	}
	for name, other := range p.listeners {
		if r.Port != 0 && other.port == r.Port && name != r.Profile {
			return nil, fmt.Errorf("127.0.0.1:%d is already the proxy port of profile %s: choose another proxy port for profile %s in config.yaml", r.Port, name, r.Profile)
		}
	}
	// A move opens the new port before closing the old, so a taken port changes nothing.
	if r.Guard == nil && current != nil {
		guard = current.guard.Load() // a move keeps the guard the listen did not change
	}
	moved, err := startListener(ca, r.Profile, r.Port, p.ctl, target, guard)
	if err != nil {
		return nil, err
	}
	if current != nil {
		current.close()
	}
	p.listeners[r.Profile] = moved
	return map[string]any{"port": moved.port}, nil
}

// closeAll ends every listener for good; a listen still in flight is refused afterwards.
func (p *proxy) closeAll() {
	p.mu.Lock()
	p.closed = true
	listeners := p.listeners
	p.listeners = map[string]*listener{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, l := range listeners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.close()
		}()
	}
	wg.Wait()
}
