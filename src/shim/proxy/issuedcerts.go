package main

import (
	"crypto/sha256"
	"sync"
	"time"
)

// maxIssuedPerProfile bounds what a profile's record can hold: far more than kubectl runs in a
// certificate's lifetime, and a few hundred kilobytes at most.
const maxIssuedPerProfile = 4096

// issuedCerts is the record of the client certificates this process issued, by profile.
// A listener admits only these, and only until they end: the local CA's key sits in the
// keychain, where any program of the user can read it and mint certificates the CA would
// vouch for. The record lives in memory only, so lock and logout (revoke) and a restart of the
// proxy end every certificate issued before them.
type issuedCerts struct {
	mu        sync.Mutex
	byProfile map[string]map[[sha256.Size]byte]*issuedEntry
}

// issuedEntry is one certificate: when it ends, and why it was revoked, if it was. A revoked
// one still completes the local handshake, so kubectl is told why in words, not a TLS alert.
type issuedEntry struct {
	ends    time.Time
	revoked string
}

func newIssuedCerts() *issuedCerts {
	return &issuedCerts{byProfile: map[string]map[[sha256.Size]byte]*issuedEntry{}}
}

func (c *issuedCerts) remember(profile string, der []byte, notAfter time.Time, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	issued := c.byProfile[profile]
	if issued == nil {
		issued = map[[sha256.Size]byte]*issuedEntry{}
		c.byProfile[profile] = issued
	}
	for digest, entry := range issued {
		if !now.Before(entry.ends) {
			delete(issued, digest)
		}
	}
	// Past the bound, the oldest-ending go first: their kubectl runs are the likeliest done.
	for len(issued) >= maxIssuedPerProfile {
		var oldest [sha256.Size]byte
		var oldestEnd time.Time
		for digest, entry := range issued {
			if oldestEnd.IsZero() || entry.ends.Before(oldestEnd) {
				oldest, oldestEnd = digest, entry.ends
			}
		}
		delete(issued, oldest)
	}
	issued[sha256.Sum256(der)] = &issuedEntry{ends: notAfter}
}

// admits reports whether this exact certificate was issued for the profile and has not ended.
func (c *issuedCerts) admits(profile string, der []byte, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	entry, ok := c.byProfile[profile][sha256.Sum256(der)]
	return ok && now.Before(entry.ends)
}

// revokedWhy is why the certificate may serve nothing more, or "" while it may.
func (c *issuedCerts) revokedWhy(profile string, der []byte) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if entry, ok := c.byProfile[profile][sha256.Sum256(der)]; ok {
		return entry.revoked
	}
	return "not issued by this kubecred-proxy"
}

// revoke ends every certificate issued for the profile so far; kubectl is told `reason`.
func (c *issuedCerts) revoke(profile, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, entry := range c.byProfile[profile] {
		entry.revoked = reason
	}
}

// forget ends every certificate issued for the profile.
func (c *issuedCerts) forget(profile string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byProfile, profile)
}
