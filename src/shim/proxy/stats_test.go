package main

import (
	"testing"
	"time"
)

// A proxy that served many short kubectl runs (a connection each) gives back every goroutine
// and file it took for them: the stats request says so, as the benchmark reads it.
func TestStatsShowNoGrowthAfterManyConnections(t *testing.T) {
	e := newEnv(t, "p256")
	port := e.listen("a", nil)
	cert := e.issue("a")
	run := func(n int) {
		for i := 0; i < n; i++ {
			client := e.client(&cert)
			if code, body := e.get(client, local(port, "/whoami"), nil); code != 200 {
				t.Fatalf("request %d: %d %s", i, code, body)
			}
			client.CloseIdleConnections()
		}
	}
	stat := func(name string) int { return int(e.b.mustCall("stats", nil)[name].(float64)) }
	run(20) // warm: the upstream connection and its goroutines are there to stay
	baseGoroutines, baseFiles := stat("goroutines"), stat("openFiles")
	if stat("listeners") != 1 {
		t.Fatalf("stats: %v", e.b.mustCall("stats", nil))
	}
	run(300)
	deadline := time.Now().Add(5 * time.Second)
	for {
		goroutines, files := stat("goroutines"), stat("openFiles")
		if goroutines <= baseGoroutines+4 && files <= baseFiles+2 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 300 connections: %d goroutines (from %d), %d open files (from %d)", goroutines, baseGoroutines, files, baseFiles)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
