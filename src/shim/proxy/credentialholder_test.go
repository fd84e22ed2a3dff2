package main

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// holderWorld is a credential holder whose broker and clock the test drives.
type holderWorld struct {
	h       *credentialHolder
	mu      sync.Mutex
	now     time.Time
	reasons []string
	answer  func(reason string) (*upstreamCredential, error)
	renewed int
}

func newHolderWorld(t *testing.T) *holderWorld {
	w := &holderWorld{now: time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)}
	ask := func(_ context.Context, reason string) (*upstreamCredential, error) {
		w.mu.Lock()
		w.reasons = append(w.reasons, reason)
		answer := w.answer
		w.mu.Unlock()
		return answer(reason)
	}
	w.h = newCredentialHolder(ask, func() { w.mu.Lock(); w.renewed++; w.mu.Unlock() }, t.Logf)
	w.h.now = func() time.Time { w.mu.Lock(); defer w.mu.Unlock(); return w.now }
	t.Cleanup(w.h.close)
	return w
}

func (w *holderWorld) advance(d time.Duration) { w.mu.Lock(); w.now = w.now.Add(d); w.mu.Unlock() }

func (w *holderWorld) asked() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.reasons...)
}

func (w *holderWorld) get(t *testing.T) (*upstreamCredential, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return w.h.credential(ctx)
}

func token(value string, expiresAt time.Time) *upstreamCredential {
	return &upstreamCredential{token: value, expiresAt: expiresAt}
}

func TestConcurrentRequestsShareOneCredentialAsk(t *testing.T) {
	w := newHolderWorld(t)
	release := make(chan struct{})
	w.answer = func(string) (*upstreamCredential, error) { <-release; return token("t1", time.Time{}), nil }
	var wg sync.WaitGroup
	got := make(chan *upstreamCredential, 50)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := w.get(t)
			if err != nil {
				t.Error(err)
			}
			got <- c
		}()
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	close(got)
	for c := range got {
		if c == nil || c.token != "t1" {
			t.Fatalf("a request got %+v", c)
		}
	}
	if reasons := w.asked(); len(reasons) != 1 || reasons[0] != reasonMissing {
		t.Fatalf("asks %v, want one missing", reasons)
	}
}

func TestAnExpiringCredentialIsAskedForAgainAndStillUsedIfTheBrokerCannot(t *testing.T) {
	w := newHolderWorld(t)
	w.answer = func(string) (*upstreamCredential, error) { return token("t1", w.now.Add(90*time.Second)), nil }
	if c, _ := w.get(t); c.token != "t1" {
		t.Fatal(c)
	}
	w.advance(40 * time.Second) // 50 s left
	w.answer = func(string) (*upstreamCredential, error) {
		return nil, &brokerError{message: "the issuer is down", status: 503}
	}
	if c, err := w.get(t); err != nil || c.token != "t1" {
		t.Fatalf("a still valid credential after a refused renewal: %+v %v", c, err)
	}
	// Not again at once: the broker just said it cannot.
	if c, err := w.get(t); err != nil || c.token != "t1" || len(w.asked()) != 2 {
		t.Fatalf("%+v %v, asks %v", c, err, w.asked())
	}
	w.advance(credentialAskInterval)
	w.answer = func(string) (*upstreamCredential, error) { return token("t2", w.now.Add(time.Hour)), nil }
	if c, err := w.get(t); err != nil || c.token != "t2" {
		t.Fatalf("renewed: %+v %v", c, err)
	}
	if want := []string{reasonMissing, reasonExpiring, reasonExpiring}; !slices.Equal(w.asked(), want) {
		t.Fatalf("asks %v, want %v", w.asked(), want)
	}
	// Ended, and the broker cannot: the request gets the broker's words.
	w.advance(2 * time.Hour)
	w.answer = func(string) (*upstreamCredential, error) {
		return nil, &brokerError{message: "log in again", status: 401}
	}
	var refusal *brokerError
	if _, err := w.get(t); !errors.As(err, &refusal) || refusal.status != 401 {
		t.Fatalf("an ended credential: %v", err)
	}
}

func TestARejectedCredentialIsAskedForAtMostOncePerInterval(t *testing.T) {
	w := newHolderWorld(t)
	n := 0
	w.answer = func(string) (*upstreamCredential, error) {
		n++
		return token("t"+string(rune('0'+n)), time.Time{}), nil
	}
	first, _ := w.get(t)
	w.h.rejectedByCluster(first)
	second, _ := w.get(t)
	if second.token != "t2" {
		t.Fatalf("after a 401: %+v", second)
	}
	w.h.rejectedByCluster(first) // a late 401 to the old one says nothing about t2
	w.h.rejectedByCluster(second)
	if c, _ := w.get(t); c != second {
		t.Fatalf("within the interval the held one is used: %+v", c)
	}
	w.advance(credentialAskInterval)
	if c, _ := w.get(t); c.token != "t3" {
		t.Fatalf("after the interval: %+v", c)
	}
	if want := []string{reasonMissing, reasonRejected, reasonRejected}; !slices.Equal(w.asked(), want) {
		t.Fatalf("asks %v, want %v", w.asked(), want)
	}
}

func TestForgetDropsTheCredentialAndAnAskOnItsWay(t *testing.T) {
	w := newHolderWorld(t)
	release := make(chan struct{})
	w.answer = func(string) (*upstreamCredential, error) { <-release; return token("before", time.Time{}), nil }
	done := make(chan error, 1)
	go func() { _, err := w.get(t); done <- err }()
	for len(w.asked()) == 0 {
		time.Sleep(time.Millisecond)
	}
	w.h.forget()
	close(release)
	if err := <-done; !errors.Is(err, errRevoked) {
		t.Fatalf("the ask from before the revoke: %v", err)
	}
	w.answer = func(string) (*upstreamCredential, error) { return token("after", time.Time{}), nil }
	if c, _ := w.get(t); c.token != "after" {
		t.Fatalf("%+v", c)
	}
	if want := []string{reasonMissing, reasonMissing}; !slices.Equal(w.asked(), want) {
		t.Fatalf("asks %v", w.asked())
	}
}
