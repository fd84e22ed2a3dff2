package main

import (
	"testing"
)

// Requests written otherwise than the one a rule names, with the same effect (security
// review 4, D4): each is matched by the rule as the request it acts like.
func TestARuleHoldsForEveryRequestWithTheSameEffect(t *testing.T) {
	keepDB := guardRuleSettings{Name: "keep db", Action: actionDeny, Verbs: []string{"delete"}, Names: []string{"db"}}
	noSecrets := guardRuleSettings{Name: "no secrets", Action: actionDeny, Resources: []string{"secrets"}, Namespaces: []string{"default"}}
	askDeletes := guardRuleSettings{Name: "ask before deletes", Action: actionConfirm, Verbs: []string{"delete"}}
	prodConfigMaps := guardRuleSettings{Name: "prod configmaps", Action: actionDeny, Verbs: []string{"delete"}, Resources: []string{"configmaps"}, Namespaces: []string{"prod"}}
	readSecrets := guardRuleSettings{Name: "no secret reads", Action: actionDeny, Verbs: []string{"get"}, Resources: []string{"secrets"}}
	noCreate := guardRuleSettings{Name: "no new", Action: actionDeny, Verbs: []string{"create"}, Resources: []string{"configmaps"}}
	for _, c := range []struct {
		what           string
		rule           guardRuleSettings
		method, target string
		want           bool
	}{
		{"the delete itself", keepDB, "DELETE", "/api/v1/namespaces/default/pods/db", true},
		{"an eviction deletes its pod", keepDB, "POST", "/api/v1/namespaces/default/pods/db/eviction", true},
		{"an eviction of another pod", keepDB, "POST", "/api/v1/namespaces/default/pods/web/eviction", false},
		{"an eviction is asked like a delete", askDeletes, "POST", "/api/v1/namespaces/default/pods/web/eviction", true},
		{"a deletecollection by field selector deletes db", keepDB, "DELETE", "/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Ddb", true},
		{"a deletecollection by label deletes db too", keepDB, "DELETE", "/api/v1/namespaces/default/configmaps?labelSelector=app%3Dx", true},
		{"a deletecollection is asked like a delete", askDeletes, "DELETE", "/api/v1/namespaces/default/configmaps", true},
		{"the read itself", noSecrets, "GET", "/api/v1/namespaces/default/secrets/s1", true},
		{"a cluster-wide list reads default's secrets", noSecrets, "GET", "/api/v1/secrets", true},
		{"a cluster-wide watch reads them", noSecrets, "GET", "/api/v1/secrets?watch=1", true},
		{"the legacy cluster-wide watch", noSecrets, "GET", "/api/v1/watch/secrets", true},
		{"another namespace's secrets", noSecrets, "GET", "/api/v1/namespaces/dev/secrets", false},
		{"a list carries each object as a get does", readSecrets, "GET", "/api/v1/namespaces/dev/secrets", true},
		{"a deleted namespace deletes its configmaps", prodConfigMaps, "DELETE", "/api/v1/namespaces/prod", true},
		{"another namespace's deletion", prodConfigMaps, "DELETE", "/api/v1/namespaces/dev", false},
		{"deleting every namespace", prodConfigMaps, "DELETE", "/api/v1/namespaces", true},
		{"a deleted namespace holds db", keepDB, "DELETE", "/api/v1/namespaces/prod", true},
		{"a create names no object in its path", keepDB, "POST", "/api/v1/namespaces/default/pods", false}, // verb create, not delete
		{"a server-side apply may create", noCreate, "PATCH", "/api/v1/namespaces/default/configmaps/c", true},
		{"a create-subresource write acts on the object", noSecrets, "PUT", "/api/v1/namespaces/default/secrets/s1/status", true},
	} {
		g, err := compileGuard(guardSettings{Rules: []guardRuleSettings{c.rule}})
		if err != nil {
			t.Fatal(err)
		}
		f := factsAt(t, c.method, c.target)
		if c.what == "a server-side apply may create" {
			f.applyPatch = true
		}
		if got := g.rules[0].matches(f); got != c.want {
			t.Errorf("%s: rule %q on %s %s matched %v, want %v", c.what, c.rule.Name, c.method, c.target, got, c.want)
		}
	}
}

// A cluster-wide list of a resource that has no namespace reads no namespace's objects.
func TestAClusterScopedListReadsNoNamespace(t *testing.T) {
	g, _ := compileGuard(guardSettings{Rules: []guardRuleSettings{{Name: "prod", Action: actionDeny, Namespaces: []string{"prod"}}}})
	for target, want := range map[string]bool{
		"/api/v1/nodes":      false,
		"/api/v1/namespaces": false,
		"/apis/rbac.authorization.k8s.io/v1/clusterroles": false,
		"/apis/example.com/v1/widgets":                    true, // a custom resource may be namespaced
		"/api/v1/pods":                                    true,
	} {
		if got := g.rules[0].matches(factsAt(t, "GET", target)); got != want {
			t.Errorf("GET %s matched %v, want %v", target, got, want)
		}
	}
}
