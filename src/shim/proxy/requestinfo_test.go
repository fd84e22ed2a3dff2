package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"testing"
)

// testdata/requestinfo.json holds, for each request, what kube-apiserver's own
// RequestInfoFactory finds in it; the oracle in test/clients/requestinfo (run with the
// integration tests) checks those answers against the real package. Here the port is held to
// them, so a rule's words mean what RBAC's mean to the cluster.
func TestRequestFactsAreWhatTheAPIServersRequestInfoFactoryFinds(t *testing.T) {
	raw, err := os.ReadFile("testdata/requestinfo.json")
	if err != nil {
		t.Fatal(err)
	}
	type requestInfo = tableRequestInfo
	var cases []struct {
		What, Method, Target string
		Want                 requestInfo
		Refused              bool // the API server answers it with an error: it reaches nothing
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 80 {
		t.Fatalf("only %d cases in the table", len(cases))
	}
	for _, c := range cases {
		if c.Refused {
			continue
		}
		r := httptest.NewRequest(c.Method, c.Target, nil)
		f := factsOf(r, nil)
		got := requestInfo{f.resourceRequest, f.verb, f.group, f.version, f.resource, f.subresource, f.namespace, f.name}
		if !f.resourceRequest {
			got = requestInfo{Verb: f.verb}
		}
		if want := asTheGuardReads(c.Method, c.Want); got != want {
			t.Errorf("%s (%s %s):\n got %+v\nwant %+v", c.What, c.Method, c.Target, got, want)
		}
	}
}

type tableRequestInfo struct {
	ResourceRequest bool   `json:"resourceRequest"`
	Verb            string `json:"verb"`
	Group           string `json:"group"`
	Version         string `json:"version"`
	Resource        string `json:"resource"`
	Subresource     string `json:"subresource"`
	Namespace       string `json:"namespace"`
	Name            string `json:"name"`
}

// asTheGuardReads is RequestInfo with the port's two departures, each stricter or the same
// for a rule: a connect (exec, attach, portforward, proxy) is the create the API server
// authorizes it as whatever its method; and a non-resource HEAD reads as GET does.
func asTheGuardReads(method string, info tableRequestInfo) tableRequestInfo {
	switch {
	case info.ResourceRequest && connectSubresources[info.Subresource]:
		info.Verb = "create"
	case !info.ResourceRequest && method == "HEAD":
		info.Verb = "get"
	}
	return info
}
