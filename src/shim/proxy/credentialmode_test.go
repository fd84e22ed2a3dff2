package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// tokenAnswer is the broker's ok reply with a bearer token (expiresAt nil when zero).
func tokenAnswer(token string, expiresAt time.Time) map[string]any {
	var end any
	if !expiresAt.IsZero() {
		end = expiresAt.UTC().Format(time.RFC3339)
	}
	return map[string]any{"credential": map[string]any{"token": token, "expiresAt": end}}
}

// bearerRequest sends a request through the proxy to the bearer cluster and returns the
// Authorization headers and path the cluster saw, failing on anything but a 200.
func (e *env) bearerRequest(client *http.Client, method, url string, header http.Header) (auth []string, path string) {
	e.t.Helper()
	code, body := e.do(client, method, url, header)
	var seen struct {
		Auth []string
		Path string
	}
	if err := json.Unmarshal([]byte(body), &seen); code != 200 || err != nil {
		e.t.Fatalf("%d %s", code, body)
	}
	return seen.Auth, seen.Path
}

func TestBearerModeSendsTheHeldTokenInsteadOfKubectls(t *testing.T) {
	e := newEnv(t, "p256")
	bc := newBearerCluster(t, "token-one-secret")
	e.b.answerCredentials(func(profile, reason string) map[string]any {
		if profile != "a" {
			t.Errorf("asked for profile %q", profile)
		}
		return tokenAnswer("token-one-secret", time.Time{})
	})
	port := e.listenCredential("a", bc.server.URL+"/base", bc.caPEM, nil)
	cert := e.issue("a")
	client := e.client(&cert)
	for i := 0; i < 3; i++ {
		auth, path := e.bearerRequest(client, "GET", local(port, "/api/v1/namespaces/default/pods"), http.Header{"Authorization": {"Bearer stolen"}})
		if !slices.Equal(auth, []string{"Bearer token-one-secret"}) || path != "/base/api/v1/namespaces/default/pods" {
			t.Fatalf("the cluster saw Authorization %v on %s", auth, path)
		}
	}
	if asks := e.b.asked(); !slices.Equal(asks, []string{"missing"}) {
		t.Fatalf("credential asks %v, want one missing (on the first request)", asks)
	}
	if e.b.signs.Load() != 0 {
		t.Fatalf("%d token signatures in credential mode", e.b.signs.Load())
	}
	waitFor(t, "the audit records", func() bool { return len(e.b.auditLog()) == 3 })
	if strings.Contains(fmt.Sprint(e.b.auditLog()), "token-one") || strings.Contains(e.b.stderr.String(), "token-one") {
		t.Fatal("the token reached the audit log or stderr")
	}
}

func TestWithoutACredentialKubectlGetsTheBrokersWordsAndStatus(t *testing.T) {
	e := newEnv(t, "p256")
	bc := newBearerCluster(t)
	port := e.listenCredential("a", bc.server.URL, bc.caPEM, nil)
	cert := e.issue("a")
	client := e.client(&cert)
	e.b.answerCredentials(func(string, string) map[string]any {
		return map[string]any{"ok": false, "error": "log in to cluster a in Kubecred", "status": 401}
	})
	code, body := e.get(client, local(port, "/api/v1/pods"), nil)
	if s := decodeStatus(t, body); code != 401 || s.Code != 401 || s.Reason != "Unauthorized" || s.Message != "log in to cluster a in Kubecred" {
		t.Fatalf("%d %+v", code, s)
	}
	e.b.answerCredentials(func(string, string) map[string]any {
		return map[string]any{"ok": false, "error": "the issuer is unreachable"}
	})
	code, body = e.get(client, local(port, "/api/v1/pods"), nil)
	if s := decodeStatus(t, body); code != 502 || s.Message != "the issuer is unreachable" {
		t.Fatalf("without a status: %d %+v", code, s)
	}
	if asks := e.b.asked(); !slices.Equal(asks, []string{"missing", "missing"}) {
		t.Fatalf("asks %v", asks)
	}
}

func TestAnExpiringCredentialIsPulledAgain(t *testing.T) {
	e := newEnv(t, "p256")
	bc := newBearerCluster(t, "short-lived", "fresh")
	e.b.answerCredentials(func(_, reason string) map[string]any {
		if reason == "missing" {
			return tokenAnswer("short-lived", time.Now().Add(30*time.Second))
		}
		return tokenAnswer("fresh", time.Now().Add(time.Hour))
	})
	port := e.listenCredential("a", bc.server.URL, bc.caPEM, nil)
	cert := e.issue("a")
	client := e.client(&cert)
	if auth, _ := e.bearerRequest(client, "GET", local(port, "/api/v1/pods"), nil); !slices.Equal(auth, []string{"Bearer short-lived"}) {
		t.Fatalf("first: %v", auth)
	}
	if auth, _ := e.bearerRequest(client, "GET", local(port, "/api/v1/pods"), nil); !slices.Equal(auth, []string{"Bearer fresh"}) {
		t.Fatalf("second: %v", auth)
	}
	if asks := e.b.asked(); !slices.Equal(asks, []string{"missing", "expiring"}) {
		t.Fatalf("asks %v", asks)
	}
}

func TestA401MarksTheCredentialRejectedAndTheNextRequestAsksOnce(t *testing.T) {
	e := newEnv(t, "p256")
	bc := newBearerCluster(t, "first")
	e.b.answerCredentials(func(_, reason string) map[string]any {
		if reason == "missing" {
			return tokenAnswer("first", time.Time{})
		}
		return tokenAnswer("second", time.Time{})
	})
	port := e.listenCredential("a", bc.server.URL, bc.caPEM, nil)
	cert := e.issue("a")
	client := e.client(&cert)
	e.bearerRequest(client, "GET", local(port, "/api/v1/pods"), nil)

	bc.reject("first") // revoked at the issuer
	code, body := e.get(client, local(port, "/api/v1/pods"), nil)
	if s := decodeStatus(t, body); code != 401 || s.Message != "Unauthorized" {
		t.Fatalf("the cluster's 401 must reach kubectl unchanged: %d %s", code, body)
	}
	bc.accept("second")
	if auth, _ := e.bearerRequest(client, "GET", local(port, "/api/v1/pods"), nil); !slices.Equal(auth, []string{"Bearer second"}) {
		t.Fatalf("after the 401: %v", auth)
	}
	// Another 401 at once: no storm of asks, the held one goes on (and gets its 401).
	bc.reject("second")
	for i := 0; i < 3; i++ {
		if code, _ := e.get(client, local(port, "/api/v1/pods"), nil); code != 401 {
			t.Fatalf("request %d: %d", i, code)
		}
	}
	if asks := e.b.asked(); !slices.Equal(asks, []string{"missing", "rejected"}) {
		t.Fatalf("asks %v, want missing then one rejected", asks)
	}
}

func TestACertificateCredentialIsShownToAClusterThatRequiresOne(t *testing.T) {
	e := newEnv(t, "p256")
	certPEM, keyPEM := e.c.clientPEM(t, "software-user", "pkcs8")
	e.b.answerCredentials(func(string, string) map[string]any {
		return map[string]any{"credential": map[string]any{"certificatePem": certPEM, "keyPem": keyPEM, "expiresAt": nil}}
	})
	port := e.listenCredential("a", e.c.server.URL+"/base", e.c.caPEM, nil)
	cert := e.issue("a")
	client := e.client(&cert)
	whoami := func() (user string, auth []string) {
		t.Helper()
		code, body := e.get(client, local(port, "/whoami"), http.Header{"Authorization": {"Bearer stolen"}})
		var seen struct {
			User string
			Auth []string
		}
		if err := json.Unmarshal([]byte(body), &seen); code != 200 || err != nil {
			t.Fatalf("%d %s", code, body)
		}
		return seen.User, seen.Auth
	}
	if user, auth := whoami(); user != "software-user" || len(auth) != 0 {
		t.Fatalf("the cluster saw %q with Authorization %v", user, auth)
	}
	if e.b.signs.Load() != 0 {
		t.Fatalf("%d token signatures", e.b.signs.Load())
	}

	// The broker hands over a new certificate: new connections show it.
	rotatedCert, rotatedKey := e.c.clientPEM(t, "rotated-user", "sec1")
	e.b.mustCall("credential", map[string]any{"profile": "a", "credential": map[string]any{"certificatePem": rotatedCert, "keyPem": rotatedKey, "expiresAt": nil}})
	if user, _ := whoami(); user != "rotated-user" {
		t.Fatalf("after the new certificate the cluster saw %q", user)
	}
	// Both: the certificate shown and the token sent.
	e.b.mustCall("credential", map[string]any{"profile": "a", "credential": map[string]any{"token": "both-token", "certificatePem": rotatedCert, "keyPem": rotatedKey, "expiresAt": nil}})
	if user, auth := whoami(); user != "rotated-user" || !slices.Equal(auth, []string{"Bearer both-token"}) {
		t.Fatalf("both: %q %v", user, auth)
	}
	if asks := e.b.asked(); !slices.Equal(asks, []string{"missing"}) {
		t.Fatalf("asks %v", asks)
	}
}

func TestTheCredentialMessageIsCheckedAndNeverQuotesTheSecret(t *testing.T) {
	e := newEnv(t, "p256")
	e.listen("token", nil)
	bc := newBearerCluster(t)
	e.listenCredential("cred", bc.server.URL, bc.caPEM, nil)
	certPEM, _ := e.c.clientPEM(t, "u", "sec1")
	for _, c := range []struct {
		fields map[string]any
		want   string
	}{
		{map[string]any{"profile": "nobody", "credential": map[string]any{"token": "x"}}, "profile nobody has no listener"},
		{map[string]any{"profile": "token", "credential": map[string]any{"token": "x"}}, "profile token signs with its token key"},
		{map[string]any{"profile": "cred", "credential": map[string]any{"certificatePem": certPEM, "keyPem": "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleS1ieXRlcw==\n-----END PRIVATE KEY-----\n"}}, "profile cred: the credential's keyPem"},
		{map[string]any{"profile": "cred", "credential": map[string]any{"token": "secret with space"}}, "profile cred: the credential's token"},
	} {
		reply := e.b.call("credential", c.fields)
		message, _ := reply["error"].(string)
		if reply["ok"] != false || !strings.Contains(message, c.want) {
			t.Errorf("%v: %v, want an error with %q", c.fields["profile"], reply, c.want)
		}
		if strings.Contains(message, "c2VjcmV0") || strings.Contains(message, "secret") {
			t.Errorf("the error quotes the credential: %s", message)
		}
	}
	if reply := e.b.call("listen", map[string]any{"profile": "x", "port": 0, "upstream": map[string]any{"server": bc.server.URL, "auth": "credential", "certificateChainPem": e.c.tokenCertPEM, "keyType": "ecdsa"}}); reply["ok"] != false {
		t.Errorf("a credential listen with a token certificate was accepted: %v", reply)
	}
	if reply := e.b.call("listen", map[string]any{"profile": "x", "port": 0, "upstream": map[string]any{"server": bc.server.URL, "auth": "password"}}); reply["ok"] != false {
		t.Errorf("an unknown auth was accepted: %v", reply)
	}
}

func TestRevokeWithCertificatesForgetsTheCredential(t *testing.T) {
	e := newEnv(t, "p256")
	bc := newBearerCluster(t, "held")
	e.b.answerCredentials(func(string, string) map[string]any { return tokenAnswer("held", time.Time{}) })
	port := e.listenCredential("a", bc.server.URL, bc.caPEM, nil)
	cert := e.issue("a")
	e.bearerRequest(e.client(&cert), "GET", local(port, "/api/v1/pods"), nil)

	// A revoke of the connections only keeps the credential.
	e.b.mustCall("revoke", map[string]any{"profile": "a"})
	e.bearerRequest(e.client(&cert), "GET", local(port, "/api/v1/pods"), nil)
	if asks := e.b.asked(); !slices.Equal(asks, []string{"missing"}) {
		t.Fatalf("after a revoke of the connections: asks %v", asks)
	}

	// A lock forgets it: the next request asks anew.
	e.b.mustCall("revoke", map[string]any{"profile": "a", "certificates": true, "reason": "Kubecred was locked"})
	after := e.issue("a")
	e.bearerRequest(e.client(&after), "GET", local(port, "/api/v1/pods"), nil)
	if asks := e.b.asked(); !slices.Equal(asks, []string{"missing", "missing"}) {
		t.Fatalf("after a revoke of the certificates: asks %v", asks)
	}
}
