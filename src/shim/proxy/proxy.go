package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// proxy is the state the broker drives: the local CA and one listener per profile.
type proxy struct {
	ctl       *controller
	mu        sync.Mutex
	ca        *localCA
	listeners map[string]*listener
}

// run serves the broker until its end of the control channel closes, then frees every port.
func run(_ context.Context, in io.Reader, out, diag io.Writer) error {
	p := &proxy{ctl: newController(out, diag), listeners: map[string]*listener{}}
	p.ctl.serve(in, p.handle)
	p.mu.Lock()
	defer p.mu.Unlock()
	for name, l := range p.listeners {
		l.close()
		delete(p.listeners, name)
	}
	return nil
}

type caPair struct {
	CertPem string `json:"certPem"`
	KeyPem  string `json:"keyPem"`
}

type request struct {
	CA         *caPair           `json:"ca"`
	Profile    string            `json:"profile"`
	Port       int               `json:"port"`
	Upstream   upstreamSettings  `json:"upstream"`
	Headers    map[string]string `json:"headers"`
	TTLSeconds int               `json:"ttlSeconds"`
}

func (p *proxy) handle(kind string, raw json.RawMessage) (map[string]any, error) {
	var r request
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("a malformed %s request: %v", kind, err)
	}
	if kind == "init" {
		return p.init(r.CA)
	}
	p.mu.Lock()
	ca := p.ca
	p.mu.Unlock()
	if ca == nil {
		return nil, errors.New("not initialised: send init first")
	}
	switch kind {
	case "listen":
		return p.listen(ca, r)
	case "close":
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
			return nil, errors.New("ttlSeconds must be between 1 and 86400")
		}
		certPEM, keyPEM, notAfter, err := ca.issueClient(r.Profile, time.Duration(r.TTLSeconds)*time.Second)
		if err != nil {
			return nil, err
		}
		return map[string]any{"certPem": certPEM, "keyPem": keyPEM, "notAfter": notAfter.UTC().Format(time.RFC3339)}, nil
	case "revoke":
		p.mu.Lock()
		l := p.listeners[r.Profile]
		p.mu.Unlock()
		if l != nil {
			if err := l.revoke(); err != nil {
				return nil, err
			}
		}
		return map[string]any{}, nil
	}
	return nil, fmt.Errorf("kubecred-proxy has no request %q", kind)
}

func (p *proxy) init(stored *caPair) (map[string]any, error) {
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
	p.mu.Lock()
	p.ca = ca
	p.mu.Unlock()
	return map[string]any{"ca": caPair{CertPem: ca.certPEM, KeyPem: ca.keyPEM}}, nil
}

func (p *proxy) listen(ca *localCA, r request) (map[string]any, error) {
	ask := askBroker(p.ctl)
	remake := func() (*upstream, error) { return newUpstream(r.Profile, r.Upstream, ask) }
	up, err := remake()
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", r.Profile, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.listeners[r.Profile]
	if l != nil && r.Port != 0 && l.port != r.Port {
		l.close()
		l = nil
	}
	if l == nil {
		l, err = startListener(ca, r.Profile, r.Port, func(event map[string]any) { p.ctl.send(event) })
		if err != nil {
			return nil, err
		}
		p.listeners[r.Profile] = l
	}
	l.configure(up, r.Headers, remake)
	return map[string]any{"port": l.port}, nil
}
