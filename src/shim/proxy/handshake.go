package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"kubecred.dev/shim/handshakelog"
)

// The signature budget. A token signature can cost a touch or a PIN prompt, and one C_Sign at
// a time per token session, so the proxy spends as few as it can:
//
//   - HTTP/2 upstream: one connection carries every plain request of the profile.
//   - A TLS session cache per profile (both transports): a TLS 1.3 resumption proves the
//     earlier handshake's key and needs no CertificateVerify, so no signature.
//   - Single flight: while the profile holds no session ticket, handshakes go through a
//     one-slot gate. The first does the full handshake (one signature) and keeps the slot
//     until the server's ticket arrives (TLS 1.3 sends it just after the handshake; the
//     transport reads it at once), or ticketWait passes. Those queued behind it then find a
//     ticket and resume, so 50 cold concurrent requests cost one signature, not 50.
//   - A failed handshake (the broker refused: token removed, wrong PIN) answers everyone who
//     was already waiting with the same error, instead of each asking the broker again.
//
// With a ticket on hand, handshakes run in parallel. A server that sends no tickets costs one
// signature per new connection; the first wait tells stderr so.

const (
	ticketWait       = time.Second
	handshakeTimeout = signTimeout + 30*time.Second
)

// sessionCache is the LRU cache, plus whether it holds a ticket and a signal when one comes.
type sessionCache struct {
	inner   tls.ClientSessionCache
	mu      sync.Mutex
	warm    bool
	arrived chan struct{} // closed at the next ticket
}

func newSessionCache(size int) *sessionCache {
	return &sessionCache{inner: tls.NewLRUClientSessionCache(size), arrived: make(chan struct{})}
}

func (c *sessionCache) Get(key string) (*tls.ClientSessionState, bool) { return c.inner.Get(key) }

func (c *sessionCache) Put(key string, session *tls.ClientSessionState) {
	c.inner.Put(key, session)
	c.mu.Lock()
	defer c.mu.Unlock()
	if session == nil { // crypto/tls dropped an expired or refused ticket
		c.warm = false
		return
	}
	c.warm = true
	close(c.arrived)
	c.arrived = make(chan struct{})
}

func (c *sessionCache) state() (warm bool, next <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.warm, c.arrived
}

// cool marks the cached ticket useless: the server did not take it (it restarted with new
// ticket keys), so handshakes must queue again until a fresh one arrives.
func (c *sessionCache) cool() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.warm = false
}

type handshakeGate struct {
	slot      chan struct{}
	mu        sync.Mutex
	failure   error
	failedAt  time.Time
	noTickets atomic.Bool
}

func newHandshakeGate() *handshakeGate { return &handshakeGate{slot: make(chan struct{}, 1)} }

func (g *handshakeGate) release() { <-g.slot }

func (g *handshakeGate) fail(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.failure, g.failedAt = err, time.Now()
}

// failedSince is the failure of a handshake that ended after a waiter began waiting for it.
func (g *handshakeGate) failedSince(t time.Time) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.failure != nil && g.failedAt.After(t) {
		return g.failure
	}
	return nil
}

func (u *upstream) warm() (bool, <-chan struct{}) {
	if u.cache == nil {
		return false, nil
	}
	return u.cache.state()
}

// dialTLS is a transport's DialTLSContext: TCP and the TLS handshake, through the gate.
func (u *upstream) dialTLS(protocols []string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		ctx, done := u.handshakeContext(ctx)
		defer done()
		// A held credential costs no signature, so its handshakes need no gate.
		if u.route.credential {
			return u.handshake(ctx, network, addr, protocols, false)
		}
		if warm, _ := u.warm(); warm {
			return u.handshake(ctx, network, addr, protocols, true)
		}
		asked := time.Now()
		select {
		case u.flight.slot <- struct{}{}:
		case <-ctx.Done():
			return nil, u.cause(ctx, ctx.Err())
		}
		if err := u.flight.failedSince(asked); err != nil {
			u.flight.release()
			return nil, err
		}
		warm, ticket := u.warm()
		if warm {
			u.flight.release()
			return u.handshake(ctx, network, addr, protocols, true)
		}
		conn, err := u.handshake(ctx, network, addr, protocols, false)
		if err != nil {
			u.flight.fail(err)
			u.flight.release()
			return nil, err
		}
		if u.cache == nil || conn.ConnectionState().DidResume || u.flight.noTickets.Load() {
			u.flight.release()
			return conn, nil
		}
		go u.releaseAfterTicket(ticket)
		return conn, nil
	}
}

func (u *upstream) releaseAfterTicket(ticket <-chan struct{}) {
	timer := time.NewTimer(ticketWait)
	defer timer.Stop()
	select {
	case <-ticket:
	case <-u.ctx.Done():
	case <-timer.C:
		if !u.flight.noTickets.Swap(true) {
			u.diag.Printf("profile %s: %s sent no TLS session ticket within %v, so every new upstream connection costs a token signature", u.profile, u.route.server, ticketWait)
		}
	}
	u.flight.release()
}

// handshakeContext bounds a dial: the transport's context (detached from the request, since a
// dial may serve later requests), the generation's (a revoke ends a wait for a signature) and
// a timeout long enough for a PIN prompt.
func (u *upstream) handshakeContext(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	stop := context.AfterFunc(u.ctx, func() { cancel(context.Cause(u.ctx)) })
	bounded, cancelTimeout := context.WithTimeout(ctx, handshakeTimeout)
	return bounded, func() {
		cancelTimeout()
		stop()
		cancel(nil)
	}
}

func (u *upstream) handshake(ctx context.Context, network, addr string, protocols []string, expectResume bool) (*tls.Conn, error) {
	dialer := &net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second}
	raw, err := dialUpstream(ctx, dialer, network, addr, u.route.target, u.route.proxy)
	if err != nil {
		return nil, u.cause(ctx, err)
	}
	tracked, ok := u.conns.track(raw, u.ctx)
	if !ok {
		_ = raw.Close()
		return nil, u.cause(u.ctx, errRevoked)
	}
	config := u.tls.Clone()
	config.NextProtos = protocols
	a := &attempt{}
	transport := tracked
	if !u.route.tls12 && !u.route.credential { // the record is the broker's evidence for a signature
		a.log = handshakelog.New(tracked)
		config.KeyLogWriter = a.log.KeyLog()
		transport = a.log
	}
	conn := tls.Client(transport, config)
	err = conn.HandshakeContext(context.WithValue(ctx, attemptKey{}, a))
	if a.log != nil {
		a.log.Stop()
	}
	if err != nil {
		_ = conn.Close()
		if refusal := a.refusal.Load(); refusal != nil {
			return nil, refusal
		}
		return nil, u.cause(ctx, err)
	}
	if expectResume && !conn.ConnectionState().DidResume {
		u.cache.cool()
	}
	return conn, nil
}

// cause prefers why the context ended (a revoke, a timeout) over the I/O error it provoked.
func (u *upstream) cause(ctx context.Context, err error) error {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, errRevoked):
		return cause // errRevoked, or a revocation with the broker's reason
	case errors.Is(cause, context.DeadlineExceeded):
		return fmt.Errorf("the TLS handshake took longer than %v (a PIN prompt left unanswered?)", handshakeTimeout)
	}
	return err
}
