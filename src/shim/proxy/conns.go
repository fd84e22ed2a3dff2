package main

import (
	"context"
	"net"
	"sync"
)

// connSet is every upstream connection of one profile, whatever its generation, so that a
// revoke can close them all: idle, busy, streaming a watch, or carrying an exec session.
type connSet struct {
	mu   sync.Mutex
	live map[*trackedConn]struct{}
}

func newConnSet() *connSet { return &connSet{live: map[*trackedConn]struct{}{}} }

// track registers a fresh TCP connection, unless its generation has already been revoked:
// checked under the lock that closeAll takes after revoking, so none slips through.
func (s *connSet) track(c net.Conn, generation context.Context) (net.Conn, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if generation.Err() != nil {
		return nil, false
	}
	t := &trackedConn{Conn: c, set: s}
	s.live[t] = struct{}{}
	return t, true
}

func (s *connSet) closeAll() {
	s.mu.Lock()
	live := s.live
	s.live = map[*trackedConn]struct{}{}
	s.mu.Unlock()
	for c := range live {
		_ = c.Conn.Close()
	}
}

func (s *connSet) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.live)
}

// trackedConn is the TCP connection under a tls.Conn (net/http needs the *tls.Conn itself to
// negotiate HTTP/2, so the wrapper sits below it); closing it forgets it.
type trackedConn struct {
	net.Conn
	set  *connSet
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.set.mu.Lock()
		delete(c.set.live, c)
		c.set.mu.Unlock()
	})
	return c.Conn.Close()
}
