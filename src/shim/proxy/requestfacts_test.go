package main

import (
	"net/url"
	"testing"
)

// The facts the apiserver's RequestInfoFactory finds in the same requests.
func TestRequestFactsAreTheAPIServersRequestInfo(t *testing.T) {
	type facts struct {
		resourceRequest                                     bool
		verb, group, resource, subresource, namespace, name string
		dryRun, review                                      bool
	}
	for _, c := range []struct {
		what, method, target string
		want                 facts
	}{
		// core and named groups
		{"core list", "GET", "/api/v1/namespaces/default/pods", facts{true, "list", "", "pods", "", "default", "", false, false}},
		{"core get", "GET", "/api/v1/namespaces/default/pods/web", facts{true, "get", "", "pods", "", "default", "web", false, false}},
		{"group get", "GET", "/apis/apps/v1/namespaces/prod/deployments/api", facts{true, "get", "apps", "deployments", "", "prod", "api", false, false}},
		{"HEAD like GET", "HEAD", "/apis/apps/v1/namespaces/prod/deployments", facts{true, "list", "apps", "deployments", "", "prod", "", false, false}},
		// cluster scoped
		{"cluster list", "GET", "/api/v1/nodes", facts{true, "list", "", "nodes", "", "", "", false, false}},
		{"cluster get", "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin", facts{true, "get", "rbac.authorization.k8s.io", "clusterroles", "", "", "admin", false, false}},
		{"all namespaces", "GET", "/api/v1/pods", facts{true, "list", "", "pods", "", "", "", false, false}},
		// writes
		{"create", "POST", "/api/v1/namespaces/default/configmaps", facts{true, "create", "", "configmaps", "", "default", "", false, false}},
		{"update", "PUT", "/api/v1/namespaces/default/configmaps/c", facts{true, "update", "", "configmaps", "", "default", "c", false, false}},
		{"patch", "PATCH", "/apis/apps/v1/namespaces/default/deployments/d", facts{true, "patch", "apps", "deployments", "", "default", "d", false, false}},
		{"delete", "DELETE", "/api/v1/namespaces/default/pods/web", facts{true, "delete", "", "pods", "", "default", "web", false, false}},
		{"deletecollection", "DELETE", "/api/v1/namespaces/default/pods", facts{true, "deletecollection", "", "pods", "", "default", "", false, false}},
		// the namespaces special case
		{"namespaces list", "GET", "/api/v1/namespaces", facts{true, "list", "", "namespaces", "", "", "", false, false}},
		{"namespace get", "GET", "/api/v1/namespaces/prod", facts{true, "get", "", "namespaces", "", "prod", "prod", false, false}},
		{"namespace delete", "DELETE", "/api/v1/namespaces/prod", facts{true, "delete", "", "namespaces", "", "prod", "prod", false, false}},
		{"namespace status", "PUT", "/api/v1/namespaces/prod/status", facts{true, "update", "", "namespaces", "status", "prod", "prod", false, false}},
		{"namespace finalize", "PUT", "/api/v1/namespaces/prod/finalize", facts{true, "update", "", "namespaces", "finalize", "prod", "prod", false, false}},
		// subresources
		{"status", "PATCH", "/apis/apps/v1/namespaces/d/deployments/x/status", facts{true, "patch", "apps", "deployments", "status", "d", "x", false, false}},
		{"scale", "PUT", "/apis/apps/v1/namespaces/d/deployments/x/scale", facts{true, "update", "apps", "deployments", "scale", "d", "x", false, false}},
		{"log is a read", "GET", "/api/v1/namespaces/d/pods/web/log", facts{true, "get", "", "pods", "log", "d", "web", false, false}},
		{"eviction", "POST", "/api/v1/namespaces/d/pods/web/eviction", facts{true, "create", "", "pods", "eviction", "d", "web", false, false}},
		// watch forms
		{"watch=true", "GET", "/api/v1/namespaces/d/pods?watch=true", facts{true, "watch", "", "pods", "", "d", "", false, false}},
		{"watch=1", "GET", "/api/v1/pods?watch=1&resourceVersion=5", facts{true, "watch", "", "pods", "", "", "", false, false}},
		{"watch=false", "GET", "/api/v1/pods?watch=false", facts{true, "list", "", "pods", "", "", "", false, false}},
		{"watch=0", "GET", "/api/v1/pods?watch=0", facts{true, "list", "", "pods", "", "", "", false, false}},
		{"legacy watch", "GET", "/api/v1/watch/namespaces/d/pods", facts{true, "watch", "", "pods", "", "d", "", false, false}},
		{"legacy watch named", "GET", "/apis/apps/v1/watch/namespaces/d/deployments/x", facts{true, "watch", "apps", "deployments", "", "d", "x", false, false}},
		{"watch by field selector", "GET", "/api/v1/namespaces/d/pods?fieldSelector=metadata.name%3Dweb&watch=true", facts{true, "watch", "", "pods", "", "d", "web", false, false}},
		{"list by field selector", "GET", "/api/v1/namespaces/d/secrets?fieldSelector=type%3Dx%2Cmetadata.name%3D%3Ddb", facts{true, "list", "", "secrets", "", "d", "db", false, false}},
		{"field selector !=", "GET", "/api/v1/namespaces/d/secrets?fieldSelector=metadata.name%21%3Ddb", facts{true, "list", "", "secrets", "", "d", "", false, false}},
		// connect subresources are create whatever the method
		{"exec websocket GET", "GET", "/api/v1/namespaces/d/pods/web/exec?command=sh", facts{true, "create", "", "pods", "exec", "d", "web", false, false}},
		{"exec POST", "POST", "/api/v1/namespaces/d/pods/web/exec", facts{true, "create", "", "pods", "exec", "d", "web", false, false}},
		{"attach", "GET", "/api/v1/namespaces/d/pods/web/attach", facts{true, "create", "", "pods", "attach", "d", "web", false, false}},
		{"portforward", "GET", "/api/v1/namespaces/d/pods/web/portforward", facts{true, "create", "", "pods", "portforward", "d", "web", false, false}},
		{"pod proxy", "GET", "/api/v1/namespaces/d/pods/web/proxy/metrics", facts{true, "create", "", "pods", "proxy", "d", "web", false, false}},
		{"service proxy", "GET", "/api/v1/namespaces/d/services/https:api:443/proxy/", facts{true, "create", "", "services", "proxy", "d", "https:api:443", false, false}},
		{"node proxy", "GET", "/api/v1/nodes/n1/proxy/stats", facts{true, "create", "", "nodes", "proxy", "", "n1", false, false}},
		// dry run
		{"dryRun=All", "DELETE", "/api/v1/namespaces/d/pods/web?dryRun=All", facts{true, "delete", "", "pods", "", "d", "web", true, false}},
		{"dryRun other", "DELETE", "/api/v1/namespaces/d/pods/web?dryRun=All&dryRun=x", facts{true, "delete", "", "pods", "", "d", "web", false, false}},
		// reviews change nothing
		{"self subject access review", "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", facts{true, "create", "authorization.k8s.io", "selfsubjectaccessreviews", "", "", "", false, true}},
		{"whoami", "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", facts{true, "create", "authentication.k8s.io", "selfsubjectreviews", "", "", "", false, true}},
		{"local subject access review", "POST", "/apis/authorization.k8s.io/v1/namespaces/d/localsubjectaccessreviews", facts{true, "create", "authorization.k8s.io", "localsubjectaccessreviews", "", "d", "", false, true}},
		{"token review", "POST", "/apis/authentication.k8s.io/v1/tokenreviews", facts{true, "create", "authentication.k8s.io", "tokenreviews", "", "", "", false, true}},
		{"a review name elsewhere", "POST", "/apis/example.com/v1/tokenreviews", facts{true, "create", "example.com", "tokenreviews", "", "", "", false, false}},
		// non-resource requests
		{"version", "GET", "/version", facts{false, "get", "", "", "", "", "", false, false}},
		{"api", "GET", "/api", facts{false, "get", "", "", "", "", "", false, false}},
		{"api/v1", "GET", "/api/v1", facts{false, "get", "", "", "", "", "", false, false}},
		{"apis", "GET", "/apis", facts{false, "get", "", "", "", "", "", false, false}},
		{"group discovery", "GET", "/apis/apps/v1", facts{false, "get", "", "", "", "", "", false, false}},
		{"openapi", "GET", "/openapi/v3/apis/apps/v1", facts{false, "get", "", "", "", "", "", false, false}},
		{"healthz HEAD", "HEAD", "/healthz", facts{false, "get", "", "", "", "", "", false, false}},
		{"non-resource POST", "POST", "/logs/x", facts{false, "post", "", "", "", "", "", false, false}},
		{"empty watch prefix", "GET", "/api/v1/watch", facts{false, "get", "", "", "", "", "", false, false}},
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
