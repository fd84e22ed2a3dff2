package main

import (
	"net/url"
	"testing"
)

func factsAt(t *testing.T, method, target string) requestFacts {
	t.Helper()
	u, err := url.ParseRequestURI(target) // as the server reads a request line: "//x" is a path, not a host
	if err != nil {
		t.Fatal(err)
	}
	return factsFrom(method, u.Path, u.Query())
}

func TestGuardRuleSelectors(t *testing.T) {
	deletePod := "/api/v1/namespaces/prod/pods/web"
	for _, c := range []struct {
		what           string
		rule           guardRuleSettings
		method, target string
		want           bool
	}{
		{"no selectors match anything", guardRuleSettings{}, "GET", "/version", true},
		{"no selectors match a resource", guardRuleSettings{}, "DELETE", deletePod, true},
		// verbs
		{"verb exact", guardRuleSettings{Verbs: []string{"delete"}}, "DELETE", deletePod, true},
		{"verb other", guardRuleSettings{Verbs: []string{"get", "list"}}, "DELETE", deletePod, false},
		{"verb any", guardRuleSettings{Verbs: []string{"*"}}, "DELETE", deletePod, true},
		{"a deletecollection deletes too", guardRuleSettings{Verbs: []string{"delete"}}, "DELETE", "/api/v1/namespaces/prod/pods", true},
		{"a delete is not a deletecollection", guardRuleSettings{Verbs: []string{"deletecollection"}}, "DELETE", deletePod, false},
		// resources
		{"resource", guardRuleSettings{Resources: []string{"pods"}}, "DELETE", deletePod, true},
		{"a resource covers its subresources", guardRuleSettings{Resources: []string{"pods"}}, "GET", deletePod + "/exec", true},
		{"a subresource is not another", guardRuleSettings{Resources: []string{"pods/log"}}, "GET", deletePod + "/exec", false},
		{"resource/subresource", guardRuleSettings{Resources: []string{"pods/exec"}}, "GET", deletePod + "/exec", true},
		{"resource/subresource, the resource itself", guardRuleSettings{Resources: []string{"pods/exec"}}, "DELETE", deletePod, false},
		{"resource/* with a subresource", guardRuleSettings{Resources: []string{"pods/*"}}, "GET", deletePod + "/log", true},
		{"resource/* itself", guardRuleSettings{Resources: []string{"pods/*"}}, "DELETE", deletePod, true},
		{"unqualified matches any group", guardRuleSettings{Resources: []string{"deployments"}}, "DELETE", "/apis/apps/v1/namespaces/p/deployments/x", true},
		{"qualified matches its group", guardRuleSettings{Resources: []string{"deployments.apps"}}, "DELETE", "/apis/apps/v1/namespaces/p/deployments/x", true},
		{"qualified, another group", guardRuleSettings{Resources: []string{"deployments.apps"}}, "DELETE", "/apis/extensions/v1beta1/namespaces/p/deployments/x", false},
		{"qualified with a subresource", guardRuleSettings{Resources: []string{"deployments.apps/scale"}}, "PUT", "/apis/apps/v1/namespaces/p/deployments/x/scale", true},
		{"any resource", guardRuleSettings{Resources: []string{"*"}}, "GET", deletePod + "/log", true},
		{"any resource, not a non-resource request", guardRuleSettings{Resources: []string{"*"}}, "GET", "/version", false},
		{"one of several", guardRuleSettings{Resources: []string{"secrets", "pods"}}, "DELETE", deletePod, true},
		// namespaces
		{"namespace", guardRuleSettings{Namespaces: []string{"prod"}}, "DELETE", deletePod, true},
		{"namespace other", guardRuleSettings{Namespaces: []string{"dev"}}, "DELETE", deletePod, false},
		{"namespace, cluster scoped", guardRuleSettings{Namespaces: []string{"prod"}}, "DELETE", "/api/v1/nodes/n1", false},
		{"namespace, the namespace itself", guardRuleSettings{Namespaces: []string{"prod"}}, "DELETE", "/api/v1/namespaces/prod", true},
		{"namespace, non-resource", guardRuleSettings{Namespaces: []string{"prod"}}, "GET", "/version", false},
		// names
		{"name", guardRuleSettings{Names: []string{"web"}}, "DELETE", deletePod, true},
		{"name other", guardRuleSettings{Names: []string{"db"}}, "DELETE", deletePod, false},
		{"name, a list holds every name", guardRuleSettings{Names: []string{"web"}}, "GET", "/api/v1/namespaces/prod/pods", true},
		{"name, a list of another name", guardRuleSettings{Names: []string{"web"}}, "GET", "/api/v1/namespaces/prod/pods?fieldSelector=metadata.name%3Ddb", false},
		{"name by field selector", guardRuleSettings{Names: []string{"web"}}, "GET", "/api/v1/namespaces/prod/pods?fieldSelector=metadata.name%3Dweb", true},
		// all selectors together
		{"all hold", guardRuleSettings{Verbs: []string{"delete"}, Resources: []string{"pods"}, Namespaces: []string{"prod"}, Names: []string{"web"}}, "DELETE", deletePod, true},
		{"one fails", guardRuleSettings{Verbs: []string{"delete"}, Resources: []string{"pods"}, Namespaces: []string{"prod"}, Names: []string{"db"}}, "DELETE", deletePod, false},
	} {
		c.rule.Action = actionDeny
		g, err := compileGuard(guardSettings{Rules: []guardRuleSettings{c.rule}})
		if err != nil {
			t.Fatal(err)
		}
		if got := g.rules[0].matches(factsAt(t, c.method, c.target)); got != c.want {
			t.Errorf("%s: %s %s matched %v, want %v", c.what, c.method, c.target, got, c.want)
		}
	}
}

func TestCompileGuardRefusesWhatItCannotApply(t *testing.T) {
	if g, err := compileGuard(guardSettings{Rules: []guardRuleSettings{}}); g != nil || err != nil {
		t.Errorf("no rules: %v %v, want no guard", g, err)
	}
	if _, err := compileGuard(guardSettings{Rules: []guardRuleSettings{{Name: "x", Action: "readonly"}}}); err == nil {
		t.Error("an unknown action was accepted")
	}
	bad := "tomorrow"
	if _, err := compileGuard(guardSettings{Rules: []guardRuleSettings{{Name: "x", Action: "deny"}}, OffUntil: &bad}); err == nil {
		t.Error("an offUntil that is no time was accepted")
	}
}
