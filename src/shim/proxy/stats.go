package main

import (
	"os"
	"runtime"
)

// stats is what a leak shows in: goroutines and open files, which a proxy that has served
// its requests and streams should give back. The benchmark reads it before and after load.
func (p *proxy) stats() map[string]any {
	p.mu.Lock()
	listeners := len(p.listeners)
	p.mu.Unlock()
	openFiles := -1 // where /proc is not there (macOS, Windows)
	if entries, err := os.ReadDir("/proc/self/fd"); err == nil {
		openFiles = len(entries)
	}
	return map[string]any{"goroutines": runtime.NumGoroutine(), "openFiles": openFiles, "listeners": listeners}
}
