package main

import (
	"context"
	"crypto/tls"
	"errors"
	"log"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// kubectl opens a few connections per profile; a thousand is far beyond any real use and
	// far below the proxy's descriptor limit.
	maxProxyConns = 1024
	// A handshake in progress is a peer not yet known to hold a certificate: few of them at a
	// time, so idle strangers cannot hold descriptors and memory (5,000 cost 57 MB).
	maxPendingHandshakes = 64
	peerHandshakeTimeout = 10 * time.Second
)

// guardLimits are the caps of one listener (tests use small ones).
type guardLimits struct {
	conns, handshakes int
	timeout           time.Duration
}

var defaultGuardLimits = guardLimits{conns: maxProxyConns, handshakes: maxPendingHandshakes, timeout: peerHandshakeTimeout}

// guardedListener admits a connection only from loopback and, where the OS names it, from
// this user; it does the TLS handshake itself under a cap, so the HTTP server only ever sees
// peers that showed a certificate of this listener's profile.
type guardedListener struct {
	raw        net.Listener
	config     *tls.Config
	diag       *log.Logger
	limits     guardLimits
	uid        uint32
	live       atomic.Int64
	handshakes chan struct{}
	ready      chan net.Conn
	done       chan struct{}
	closeOnce  sync.Once
}

func newGuardedListener(raw net.Listener, config *tls.Config, diag *log.Logger, limits guardLimits) *guardedListener {
	g := &guardedListener{
		raw:        raw,
		config:     config,
		diag:       diag,
		limits:     limits,
		uid:        uint32(os.Getuid()),
		handshakes: make(chan struct{}, limits.handshakes),
		ready:      make(chan net.Conn),
		done:       make(chan struct{}),
	}
	go g.acceptLoop()
	return g
}

func (g *guardedListener) Accept() (net.Conn, error) {
	select {
	case c := <-g.ready:
		return c, nil
	case <-g.done:
		return nil, net.ErrClosed
	}
}

func (g *guardedListener) Close() error {
	var err error
	g.closeOnce.Do(func() {
		close(g.done)
		err = g.raw.Close()
	})
	return err
}

func (g *guardedListener) Addr() net.Addr { return g.raw.Addr() }

func (g *guardedListener) acceptLoop() {
	for {
		c, err := g.raw.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors, say: wait a little rather than spin.
			select {
			case <-g.done:
				return
			case <-time.After(50 * time.Millisecond):
			}
			continue
		}
		g.admit(c)
	}
}

// admit closes at once what may not stay, before it costs a handshake or a slot.
func (g *guardedListener) admit(c net.Conn) {
	if !g.allowedPeer(c) || g.live.Load() >= int64(g.limits.conns) {
		_ = c.Close()
		return
	}
	select {
	case g.handshakes <- struct{}{}:
	default:
		_ = c.Close()
		return
	}
	g.live.Add(1)
	go g.handshake(tls.Server(&countedConn{Conn: c, live: &g.live}, g.config))
}

// allowedPeer: loopback only (the socket is bound to 127.0.0.1, so a second lock on the same
// door), and another user's connection is dropped where the kernel says whose it is.
func (g *guardedListener) allowedPeer(c net.Conn) bool {
	addr, ok := c.RemoteAddr().(*net.TCPAddr)
	if !ok || !addr.IP.IsLoopback() {
		return false
	}
	uid, known := peerUID(c)
	return !known || uid == g.uid
}

func (g *guardedListener) handshake(c *tls.Conn) {
	_ = c.SetDeadline(time.Now().Add(g.limits.timeout))
	ctx, cancel := context.WithTimeout(context.Background(), g.limits.timeout)
	err := c.HandshakeContext(ctx)
	cancel()
	<-g.handshakes
	if err != nil {
		// Scanners, probes and other users' junk are no news; a certificate of our CA
		// refused (another profile's, say) is.
		var refused certificateRefused
		if errors.As(err, &refused) {
			g.diag.Printf("TLS handshake error from %s: %v", c.RemoteAddr(), err)
		}
		_ = c.Close()
		return
	}
	_ = c.SetDeadline(time.Time{})
	select {
	case g.ready <- c:
	case <-g.done:
		_ = c.Close()
	}
}

// countedConn gives its slot back once, when closed by whoever ends it (the HTTP server, a
// hijacked stream's end, a revoke).
type countedConn struct {
	net.Conn
	live *atomic.Int64
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.live.Add(-1) })
	return c.Conn.Close()
}

// certificateRefused is verifyClient's refusal of a certificate our CA signed: the one
// handshake failure worth a log line.
type certificateRefused struct{ reason string }

func (r certificateRefused) Error() string { return r.reason }
