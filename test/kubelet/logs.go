package main

import (
	"fmt"
	"net/http"
	"time"
)

// serveLogs writes numbered lines; with follow=true one more every 200 ms until the client
// goes, as a container's log that keeps growing.
func serveLogs(w http.ResponseWriter, r *http.Request, container string) {
	w.Header().Set("Content-Type", "text/plain")
	flusher, _ := w.(http.Flusher)
	for line := 1; ; line++ {
		if _, err := fmt.Fprintf(w, "log line %d of %s\n", line, container); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
		if line >= 3 && r.URL.Query().Get("follow") != "true" {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
}
