package main

import (
	"net/url"
	"testing"
)

// Beyond what RequestInfoFactory finds (requestinfo_test.go): a dry run, and a review that
// changes nothing.
func TestRequestFactsSayWhetherTheRequestChangesAnything(t *testing.T) {
	type facts struct {
		resourceRequest                                     bool
		verb, group, resource, subresource, namespace, name string
		dryRun, review                                      bool
	}
	for _, c := range []struct {
		what, method, target string
		want                 facts
	}{
		// dry run
		{"dryRun=All", "DELETE", "/api/v1/namespaces/d/pods/web?dryRun=All", facts{true, "delete", "", "pods", "", "d", "web", true, false}},
		{"dryRun other", "DELETE", "/api/v1/namespaces/d/pods/web?dryRun=All&dryRun=x", facts{true, "delete", "", "pods", "", "d", "web", false, false}},
		// reviews change nothing
		{"self subject access review", "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", facts{true, "create", "authorization.k8s.io", "selfsubjectaccessreviews", "", "", "", false, true}},
		{"whoami", "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", facts{true, "create", "authentication.k8s.io", "selfsubjectreviews", "", "", "", false, true}},
		{"local subject access review", "POST", "/apis/authorization.k8s.io/v1/namespaces/d/localsubjectaccessreviews", facts{true, "create", "authorization.k8s.io", "localsubjectaccessreviews", "", "d", "", false, true}},
		{"a review name elsewhere", "POST", "/apis/example.com/v1/tokenreviews", facts{true, "create", "example.com", "tokenreviews", "", "", "", false, false}},
		{"token review", "POST", "/apis/authentication.k8s.io/v1/tokenreviews", facts{true, "create", "authentication.k8s.io", "tokenreviews", "", "", "", false, true}},
	} {
		t.Run(c.what, func(t *testing.T) {
			u, err := url.Parse(c.target)
			if err != nil {
				t.Fatal(err)
			}
			f := factsFrom(c.method, u.Path, u.Query())
			got := facts{f.resourceRequest, f.verb, f.group, f.resource, f.subresource, f.namespace, f.name, f.dryRun, f.review}
			if got != c.want {
				t.Errorf("%s %s:\n got %+v\nwant %+v", c.method, c.target, got, c.want)
			}
		})
	}
}

func TestRequestSentencesSayWhatTheRequestWouldDo(t *testing.T) {
	for _, c := range []struct{ method, target, want string }{
		{"DELETE", "/api/v1/namespaces/default/pods/web", `delete pods "web" in namespace "default"`},
		{"PUT", "/apis/apps/v1/namespaces/d/deployments/x/scale", `update deployments.apps/scale "x" in namespace "d"`},
		{"DELETE", "/api/v1/namespaces/prod", `delete namespaces "prod"`},
		{"GET", "/api/v1/nodes", `list nodes`},
		{"POST", "/api/v1/namespaces/d/configmaps?dryRun=All", `create configmaps in namespace "d" (dry run)`},
		{"POST", "/logs/x", `POST /logs/x`},
	} {
		u, _ := url.Parse(c.target)
		if got := factsFrom(c.method, u.Path, u.Query()).sentence(); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.method, c.target, got, c.want)
		}
	}
}
