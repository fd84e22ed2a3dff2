package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

const (
	// credentialRenewal: a credential this close to its end is asked for again, so a request
	// never leaves with one that ends on the way.
	credentialRenewal = 60 * time.Second
	// credentialAskInterval bounds the asks a bad credential can cause: after a 401, or while
	// the broker cannot renew one that still works, at most one ask per interval.
	credentialAskInterval = 5 * time.Second
	// credentialTimeout: the broker may have to refresh a token with its issuer first.
	credentialTimeout = 2 * time.Minute
)

// Why the proxy asks the broker for a credential, as the protocol names it.
const (
	reasonMissing  = "missing"
	reasonExpiring = "expiring"
	reasonRejected = "rejected"
)

// credentialAsk is the proxy's credential call to the broker.
type credentialAsk func(ctx context.Context, reason string) (*upstreamCredential, error)

// credentialHolder keeps a credential-mode listener's upstream credential and pulls a fresh
// one from the broker when it has none, when it is about to end, or after the cluster
// refused it. Concurrent requests share one ask (single flight): a cold start of 50 kubectl
// commands is one broker call.
type credentialHolder struct {
	ask credentialAsk
	// certificateChanged starts new upstream connections, which show the new certificate.
	certificateChanged func()
	diag               func(format string, args ...any)
	now                func() time.Time

	life context.Context // ends with the listener
	stop context.CancelFunc

	mu            sync.Mutex
	held          *upstreamCredential
	rejected      bool   // the cluster answered 401 to a request made with held
	epoch         uint64 // forget() moves it on, so an ask already on its way is not kept
	flight        *credentialFlight
	lastRejected  time.Time // the last ask with reason rejected
	lastRenewFail time.Time // the last expiring ask that left held as it was
}

// credentialFlight is one ask, shared by every request waiting for it.
type credentialFlight struct {
	done       chan struct{}
	credential *upstreamCredential
	err        error
}

func newCredentialHolder(ask credentialAsk, certificateChanged func(), diag func(string, ...any)) *credentialHolder {
	h := &credentialHolder{ask: ask, certificateChanged: certificateChanged, diag: diag, now: time.Now}
	h.life, h.stop = context.WithCancel(context.Background())
	return h
}

// credential is the one a request should use, asked of the broker first if need be.
func (h *credentialHolder) credential(ctx context.Context) (*upstreamCredential, error) {
	h.mu.Lock()
	f := h.flight
	if f == nil {
		reason := h.reasonToAsk()
		if reason == "" {
			held := h.held
			h.mu.Unlock()
			return held, nil
		}
		f = &credentialFlight{done: make(chan struct{})}
		h.flight = f
		if reason == reasonRejected {
			h.lastRejected = h.now()
		}
		// Detached from the request: the ask serves every request waiting on it.
		go h.fly(f, reason, h.held, h.epoch)
	}
	h.mu.Unlock()
	select {
	case <-f.done:
		return f.credential, f.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// reasonToAsk is why the held credential will not do, or "" when it will. Called with mu held.
func (h *credentialHolder) reasonToAsk() string {
	now := h.now()
	switch {
	case h.held == nil:
		return reasonMissing
	case h.rejected && now.Sub(h.lastRejected) >= credentialAskInterval:
		return reasonRejected
	case h.held.expiresAt.IsZero() || h.held.expiresAt.Sub(now) >= credentialRenewal:
		// A rejected one within the interval is used again: the cluster's 401 reaches
		// kubectl, whose exec plugin lets the broker log in.
		return ""
	case !now.Before(h.held.expiresAt):
		return reasonExpiring // ended: nothing else to use
	case now.Sub(h.lastRenewFail) < credentialAskInterval:
		return "" // the broker could not renew it a moment ago; it still works
	}
	return reasonExpiring
}

func (h *credentialHolder) fly(f *credentialFlight, reason string, held *upstreamCredential, epoch uint64) {
	ctx, cancel := context.WithTimeout(h.life, credentialTimeout)
	fresh, err := h.ask(ctx, reason)
	cancel()
	changed := false
	h.mu.Lock()
	switch {
	case h.epoch != epoch:
		// A revoke of the certificates (a lock) came while the broker answered: what was
		// asked before it serves nothing after it.
		f.err = revokedBy("")
	case err == nil:
		changed = h.keep(fresh)
		f.credential = fresh
		if reason == reasonExpiring && fresh.expiresAt.Sub(h.now()) < credentialRenewal {
			h.lastRenewFail = h.now()
		}
	case reason == reasonExpiring && h.now().Before(held.expiresAt):
		h.lastRenewFail = h.now()
		f.credential = held
		h.diag("the broker could not renew the upstream credential (%v); the current one is used until %s", err, held.expiresAt.UTC().Format(time.RFC3339))
	default:
		f.err = err
	}
	if h.flight == f {
		h.flight = nil
	}
	h.mu.Unlock()
	// Before the waiters go on, so they take the generation that shows the new certificate.
	if changed {
		h.certificateChanged()
	}
	close(f.done)
}

// set is the broker's credential message: the new credential replaces the held one.
func (h *credentialHolder) set(fresh *upstreamCredential) {
	h.mu.Lock()
	changed := h.keep(fresh)
	h.mu.Unlock()
	if changed {
		h.certificateChanged()
	}
}

// keep holds fresh and says whether it shows another certificate. Called with mu held.
func (h *credentialHolder) keep(fresh *upstreamCredential) bool {
	changed := !fresh.sameCertificate(h.held)
	h.held, h.rejected = fresh, false
	return changed
}

// rejectedByCluster notes the cluster's 401 to a request made with used; a 401 to an older
// credential says nothing about the held one.
func (h *credentialHolder) rejectedByCluster(used *upstreamCredential) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if used != nil && used == h.held {
		h.rejected = true
	}
}

// forget drops the held credential (a revoke of the certificates, another cluster): the next
// request asks for one with reason missing.
func (h *credentialHolder) forget() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held, h.rejected = nil, false
	h.lastRejected, h.lastRenewFail = time.Time{}, time.Time{}
	h.epoch++
	h.flight = nil // a request arriving now asks afresh; the old ask's waiters get its end
}

// certificate is what a handshake shows the cluster: the held client certificate, or none.
func (h *credentialHolder) certificate() *tls.Certificate {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held == nil || h.held.certificate == nil {
		return &tls.Certificate{}
	}
	return h.held.certificate
}

func (h *credentialHolder) close() { h.stop() }

// brokerCredential is a profile's line to the broker's credential call.
func brokerCredential(ctl *controller, profile string) credentialAsk {
	return func(ctx context.Context, reason string) (*upstreamCredential, error) {
		raw, err := ctl.call(ctx, "credential", map[string]any{"profile": profile, "reason": reason})
		if err != nil {
			return nil, err
		}
		var answer struct {
			Credential *credentialSettings `json:"credential"`
		}
		// The decoder's error is left out: it could quote the reply, which holds the secret.
		if err := json.Unmarshal(raw, &answer); err != nil {
			return nil, errors.New("the broker's credential reply is not the protocol's shape")
		}
		if answer.Credential == nil {
			return nil, errors.New("the broker's credential reply has no credential")
		}
		credential, err := parseCredential(*answer.Credential)
		if err != nil {
			return nil, fmt.Errorf("the broker's credential reply: %w", err)
		}
		return credential, nil
	}
}
