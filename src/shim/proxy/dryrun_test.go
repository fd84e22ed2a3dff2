package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A dry run counts only where the API server reads it and honours it (security review 4,
// D1 and D2).
func TestADryRunCountsOnlyWhereTheServerHonoursIt(t *testing.T) {
	for _, c := range []struct {
		what, method, target, contentType, body string
		want                                    bool
	}{
		{"a create", "POST", "/api/v1/namespaces/d/configmaps?dryRun=All", "", "", true},
		{"an apply", "PATCH", "/api/v1/namespaces/d/configmaps/c?dryRun=All&fieldManager=kubectl", "", "", true},
		{"a status update", "PUT", "/apis/apps/v1/namespaces/d/deployments/x/status?dryRun=All", "", "", true},
		{"a scale", "PATCH", "/apis/apps/v1/namespaces/d/deployments/x/scale?dryRun=All", "", "", true},
		{"an eviction", "POST", "/api/v1/namespaces/d/pods/web/eviction?dryRun=All", "", "", true},
		{"a TokenRequest mints a real token", "POST", "/api/v1/namespaces/d/serviceaccounts/deployer/token?dryRun=All", "", "", false},
		{"exec refuses dryRun", "POST", "/api/v1/namespaces/d/pods/web/exec?dryRun=All", "", "", false},
		{"a service proxy", "GET", "/api/v1/namespaces/d/services/web/proxy/x?dryRun=All", "", "", false},
		{"a delete with options in the query only", "DELETE", "/api/v1/namespaces/d/configmaps/keep?dryRun=All", "", "", true},
		{"a delete whose body has no dry run", "DELETE", "/api/v1/namespaces/d/configmaps/keep?dryRun=All", "application/json", `{"kind":"DeleteOptions","apiVersion":"v1"}`, false},
		{"a deletecollection whose body has no dry run", "DELETE", "/api/v1/namespaces/d/configmaps?labelSelector=app%3Dx&dryRun=All", "application/json", `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}`, false},
		{"kubectl delete --dry-run=server", "DELETE", "/api/v1/namespaces/d/configmaps/keep", "application/json", `{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]}`, true},
		{"a body with no media type is JSON", "DELETE", "/api/v1/namespaces/d/configmaps/keep", "", `{"dryRun":["All"]}`, true},
		{"JSON with a charset", "DELETE", "/api/v1/namespaces/d/configmaps/keep", "application/json; charset=utf-8", ` {"dryRun": ["All"]} `, true},
		{"an escaped key", "DELETE", "/api/v1/namespaces/d/configmaps/keep", "", `{"dry\u0052un":["All"]}`, true},
		{"a key in another case", "DELETE", "/api/v1/namespaces/d/configmaps/keep", "", `{"DryRun":["All"]}`, false},
		{"a key given twice", "DELETE", "/api/v1/namespaces/d/configmaps/keep", "", `{"dryRun":["All"],"dryRun":[]}`, false},
		{"another value", "DELETE", "/api/v1/namespaces/d/configmaps/keep", "", `{"dryRun":["All","x"]}`, false},
		{"an empty list", "DELETE", "/api/v1/namespaces/d/configmaps/keep?dryRun=All", "", `{"dryRun":[]}`, false},
		{"a string, not a list", "DELETE", "/api/v1/namespaces/d/configmaps/keep", "", `{"dryRun":"All"}`, false},
		{"trailing bytes", "DELETE", "/api/v1/namespaces/d/configmaps/keep", "", `{"dryRun":["All"]}{}`, false},
		{"YAML the guard does not read", "DELETE", "/api/v1/namespaces/d/configmaps/keep?dryRun=All", "application/yaml", "dryRun: [All]\n", false},
		{"protobuf the guard does not read", "DELETE", "/api/v1/namespaces/d/configmaps/keep?dryRun=All", "application/vnd.kubernetes.protobuf", "k8s\x00", false},
		{"null", "DELETE", "/api/v1/namespaces/d/configmaps/keep?dryRun=All", "", "null", false},
	} {
		r := httptest.NewRequest(c.method, c.target, strings.NewReader(c.body))
		if c.contentType != "" {
			r.Header.Set("Content-Type", c.contentType)
		}
		body, refused := bodyTheGuardReads(r, "p")
		if refused != nil {
			t.Fatalf("%s: %s", c.what, refused.message)
		}
		if got := factsOf(r, body).dryRun; got != c.want {
			t.Errorf("%s: %s %s %q: dry run %v, want %v", c.what, c.method, c.target, c.body, got, c.want)
		}
	}
}

func TestAnEncodedDeleteBodyIsNoDryRunAndTheRefusalSaysWhy(t *testing.T) {
	r := httptest.NewRequest("DELETE", "/api/v1/namespaces/d/configmaps/keep?dryRun=All", strings.NewReader(`{"dryRun":["All"]}`))
	r.Header.Set("Content-Encoding", "gzip")
	body, _ := bodyTheGuardReads(r, "p")
	f := factsOf(r, body)
	if f.dryRun {
		t.Fatal("a gzip body was read as a dry run")
	}
	if want := `delete configmaps "keep" in namespace "d" (its options are not in JSON or protobuf, so the guard sees no dry run in them)`; f.sentence() != want {
		t.Fatalf("%q\nwant %q", f.sentence(), want)
	}
}

// Under read-only the writes that are no dry run are refused, and a genuine one passes.
func TestReadOnlyJudgesTheDryRunTheServerWillRun(t *testing.T) {
	g, _ := compileGuard(guardSettings{Rules: []guardRuleSettings{{Name: "read-only", Action: actionReadOnly}}})
	judge := func(method, target, body string) *guardVerdict {
		r := httptest.NewRequest(method, target, strings.NewReader(body))
		read, refused := bodyTheGuardReads(r, "prod")
		if refused != nil {
			return refused
		}
		return g.decide(r.Context(), "prod", factsOf(r, read), time.Time{}, nil)
	}
	token := judge("POST", "/api/v1/namespaces/default/serviceaccounts/deployer/token?dryRun=All", `{"spec":{}}`)
	if !token.refused() || !strings.Contains(token.message, `create serviceaccounts/token "deployer" in namespace "default" (profile prod, rule "read-only")`) {
		t.Fatalf("a TokenRequest 'dry run': %+v", token)
	}
	if v := judge("DELETE", "/api/v1/namespaces/default/configmaps/keep?dryRun=All", `{"kind":"DeleteOptions","apiVersion":"v1"}`); !v.refused() || strings.Contains(v.message, "dry run") {
		t.Fatalf("a real delete behind a query dryRun: %+v", v)
	}
	if v := judge("DELETE", "/api/v1/namespaces/default/configmaps/keep", `{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]}`); v.refused() || v.decision != decisionAllowed {
		t.Fatalf("kubectl delete --dry-run=server: %+v", v)
	}
}

func TestADeleteBodyPastTheServersLimitIsRefusedUnread(t *testing.T) {
	r := httptest.NewRequest("DELETE", "/api/v1/namespaces/d/configmaps/keep", strings.NewReader(`{"dryRun":["All"],"x":"`+strings.Repeat("a", confirmBodyLimit)+`"}`))
	_, refused := bodyTheGuardReads(r, "prod")
	if refused == nil || refused.status != http.StatusRequestEntityTooLarge || !strings.Contains(refused.message, "cannot tell whether it is a dry run") {
		t.Fatalf("%+v", refused)
	}
}
