package main

import (
	"encoding/json"
	"net/http"
)

// writeStatus answers kubectl with a Kubernetes Status, so it prints our message as the reason.
func writeStatus(w http.ResponseWriter, code int, message string) {
	body, _ := json.Marshal(map[string]any{
		"kind":       "Status",
		"apiVersion": "v1",
		"metadata":   map[string]any{},
		"status":     "Failure",
		"message":    message,
		"reason":     http.StatusText(code),
		"code":       code,
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}
