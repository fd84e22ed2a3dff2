package main

import (
	"testing"
	"time"
)

func TestIssuedCertsAdmitOnlyWhatWasIssuedUntilItEndsOrIsForgotten(t *testing.T) {
	c := newIssuedCerts()
	now := time.Now()
	c.remember("a", []byte("cert one"), now.Add(time.Minute), now)
	if !c.admits("a", []byte("cert one"), now) {
		t.Fatal("an issued certificate was refused")
	}
	for what, ok := range map[string]bool{
		"another certificate":        c.admits("a", []byte("cert two"), now),
		"the same one for b":         c.admits("b", []byte("cert one"), now),
		"the same one after it ends": c.admits("a", []byte("cert one"), now.Add(time.Minute)),
	} {
		if ok {
			t.Errorf("%s was admitted", what)
		}
	}
	c.forget("a")
	if c.admits("a", []byte("cert one"), now) {
		t.Error("a forgotten certificate was admitted")
	}
}

func TestIssuedCertsStayBounded(t *testing.T) {
	c := newIssuedCerts()
	now := time.Now()
	for i := 0; i < maxIssuedPerProfile+50; i++ {
		c.remember("a", []byte{byte(i), byte(i >> 8)}, now.Add(time.Duration(i+1)*time.Second), now)
	}
	if n := len(c.byProfile["a"]); n > maxIssuedPerProfile {
		t.Fatalf("%d certificates kept, more than %d", n, maxIssuedPerProfile)
	}
	last := maxIssuedPerProfile + 49
	if !c.admits("a", []byte{byte(last), byte(last >> 8)}, now) {
		t.Fatal("the newest certificate was dropped instead of the oldest")
	}
}
