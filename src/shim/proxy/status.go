package main

import (
	"encoding/json"
	"net/http"
)

// status is a Kubernetes Status: kubectl prints its message as the reason a request failed;
// any other body would reach the user as a generic "an error on the server" line.
type status struct {
	Kind       string         `json:"kind"`
	APIVersion string         `json:"apiVersion"`
	Metadata   map[string]any `json:"metadata"`
	Status     string         `json:"status"`
	Message    string         `json:"message"`
	Reason     string         `json:"reason"`
	Code       int            `json:"code"`
}

// reasonFor picks the Kubernetes StatusReason client-go recognises for a code, so
// errors.IsServiceUnavailable and friends work on our answers too.
func reasonFor(code int) string {
	switch code {
	case http.StatusBadRequest, http.StatusMisdirectedRequest:
		return "BadRequest"
	case http.StatusUnauthorized:
		return "Unauthorized"
	case http.StatusForbidden:
		return "Forbidden"
	case http.StatusNotFound:
		return "NotFound"
	case http.StatusTooManyRequests:
		return "TooManyRequests"
	case http.StatusGatewayTimeout:
		return "Timeout"
	case http.StatusBadGateway, http.StatusServiceUnavailable:
		return "ServiceUnavailable"
	case http.StatusLocked:
		// The token waits for its PIN (kubecred token login): not the server's fault, as
		// InternalError would say, and not 401, on which client-go would rerun the plugin.
		return "ServiceUnavailable"
	}
	return "InternalError"
}

func writeStatus(w http.ResponseWriter, code int, message string) {
	body, _ := json.Marshal(status{Kind: "Status", APIVersion: "v1", Metadata: map[string]any{}, Status: "Failure", Message: message, Reason: reasonFor(code), Code: code})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write(append(body, '\n'))
}
