package main

import (
	"net/http"
	"testing"
)

// A token waiting for its PIN (the broker answers 423) must not read as the server's failure.
func TestALockedTokenIsNotAnInternalError(t *testing.T) {
	if got := reasonFor(http.StatusLocked); got != "ServiceUnavailable" {
		t.Fatalf("reasonFor(423) = %q", got)
	}
	if got := reasonFor(http.StatusTeapot); got != "InternalError" {
		t.Fatalf("reasonFor(418) = %q", got)
	}
}
