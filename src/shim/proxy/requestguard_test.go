package main

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestTheStrictestMatchingRuleDecides(t *testing.T) {
	readOnly := guardRuleSettings{Name: "prod is read-only", Action: actionReadOnly, Namespaces: []string{"prod"}}
	denySecrets := guardRuleSettings{Name: "no secrets", Action: actionDeny, Resources: []string{"secrets"}}
	confirmDeletes := guardRuleSettings{Name: "ask before deletes", Action: actionConfirm, Verbs: []string{"delete"}}
	confirmAll := guardRuleSettings{Name: "ask", Action: actionConfirm}
	denyNodes := guardRuleSettings{Name: "no nodes", Action: actionDeny, Resources: []string{"nodes"}}
	denyNodes2 := guardRuleSettings{Name: "no nodes either", Action: actionDeny, Resources: []string{"nodes"}}
	for _, c := range []struct {
		what           string
		rules          []guardRuleSettings
		method, target string
		confirm        string // allow, decline, error, timeout
		want           string // decision, "" for no verdict
		rule           string
		asked          bool
	}{
		{"no rule matches", []guardRuleSettings{readOnly}, "DELETE", "/api/v1/namespaces/dev/pods/web", "", "", "", false},
		{"read-only allows a read", []guardRuleSettings{readOnly}, "GET", "/api/v1/namespaces/prod/pods", "", decisionAllowed, "prod is read-only", false},
		{"read-only allows a watch", []guardRuleSettings{readOnly}, "GET", "/api/v1/namespaces/prod/pods?watch=1", "", decisionAllowed, "prod is read-only", false},
		{"read-only refuses a write", []guardRuleSettings{readOnly}, "DELETE", "/api/v1/namespaces/prod/pods/web", "", decisionRefused, "prod is read-only", false},
		{"read-only refuses an exec", []guardRuleSettings{readOnly}, "GET", "/api/v1/namespaces/prod/pods/web/exec", "", decisionRefused, "prod is read-only", false},
		{"read-only allows a dry run", []guardRuleSettings{readOnly}, "DELETE", "/api/v1/namespaces/prod/pods/web?dryRun=All", "", decisionAllowed, "prod is read-only", false},
		{"read-only allows a review", []guardRuleSettings{{Name: "ro", Action: actionReadOnly}}, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "", decisionAllowed, "ro", false},
		{"read-only refuses a non-resource POST", []guardRuleSettings{{Name: "ro", Action: actionReadOnly}}, "POST", "/logs/x", "", decisionRefused, "ro", false},
		{"deny refuses a read", []guardRuleSettings{denySecrets}, "GET", "/api/v1/namespaces/prod/secrets", "", decisionRefused, "no secrets", false},
		{"deny refuses a dry run", []guardRuleSettings{denySecrets}, "DELETE", "/api/v1/namespaces/prod/secrets/s?dryRun=All", "", decisionRefused, "no secrets", false},
		{"deny beats read-only", []guardRuleSettings{readOnly, denySecrets}, "GET", "/api/v1/namespaces/prod/secrets", "", decisionRefused, "no secrets", false},
		{"the first deny is named", []guardRuleSettings{denyNodes, denyNodes2}, "GET", "/api/v1/nodes", "", decisionRefused, "no nodes", false},
		{"deny beats confirm, nobody is asked", []guardRuleSettings{confirmAll, denySecrets}, "GET", "/api/v1/namespaces/prod/secrets", "allow", decisionRefused, "no secrets", false},
		{"read-only beats confirm", []guardRuleSettings{confirmDeletes, readOnly}, "DELETE", "/api/v1/namespaces/prod/pods/web", "allow", decisionRefused, "prod is read-only", false},
		{"confirm after read-only allowed the read", []guardRuleSettings{readOnly, confirmAll}, "GET", "/api/v1/namespaces/prod/pods", "allow", decisionConfirmed, "ask", true},
		{"confirm allowed", []guardRuleSettings{confirmDeletes}, "DELETE", "/api/v1/namespaces/dev/pods/web", "allow", decisionConfirmed, "ask before deletes", true},
		{"confirm declined", []guardRuleSettings{confirmDeletes}, "DELETE", "/api/v1/namespaces/dev/pods/web", "decline", decisionDeclined, "ask before deletes", true},
		{"confirm error", []guardRuleSettings{confirmDeletes}, "DELETE", "/api/v1/namespaces/dev/pods/web", "error", decisionRefused, "ask before deletes", true},
		{"confirm timeout", []guardRuleSettings{confirmDeletes}, "DELETE", "/api/v1/namespaces/dev/pods/web", "timeout", decisionTimedOut, "ask before deletes", true},
		{"confirm nobody answered in the window", []guardRuleSettings{confirmDeletes}, "DELETE", "/api/v1/namespaces/dev/pods/web", "unanswered", decisionTimedOut, "ask before deletes", true},
	} {
		t.Run(c.what, func(t *testing.T) {
			g, err := compileGuard(guardSettings{Rules: c.rules})
			if err != nil {
				t.Fatal(err)
			}
			asked := false
			confirm := func(_ context.Context, rule string, _ requestFacts) (bool, string, error) {
				asked = true
				switch c.confirm {
				case "allow":
					return true, "", nil
				case "decline":
					return false, "not now", nil
				case "error":
					return false, "", &brokerError{message: "Kubecred is locked", status: http.StatusServiceUnavailable}
				case "timeout":
					return false, "", context.DeadlineExceeded
				case "unanswered":
					return false, "", errNobodyAnswered
				}
				t.Fatalf("asked to confirm rule %s", rule)
				return false, "", nil
			}
			v := g.decide(context.Background(), "prod", factsAt(t, c.method, c.target), time.Now(), confirm)
			if asked != c.asked {
				t.Errorf("asked the broker: %v, want %v", asked, c.asked)
			}
			if c.want == "" {
				if v != nil {
					t.Fatalf("verdict %+v, want none", v)
				}
				return
			}
			if v == nil || v.decision != c.want || v.rule != c.rule {
				t.Fatalf("verdict %+v, want %s by rule %q", v, c.want, c.rule)
			}
			if v.refused() != (c.want == decisionRefused || c.want == decisionDeclined || c.want == decisionTimedOut) {
				t.Errorf("refused() = %v", v.refused())
			}
		})
	}
}

func TestGuardRefusalsSayWhatWhyAndHowToLiftIt(t *testing.T) {
	g, _ := compileGuard(guardSettings{Rules: []guardRuleSettings{
		{Name: "read-only", Action: actionReadOnly},
		{Name: "ask", Action: actionConfirm, Verbs: []string{"get"}},
	}})
	lift := "To lift the guard for 15 minutes: kubecred guard prod off --for 15m"
	v := g.decide(context.Background(), "prod", factsAt(t, "DELETE", "/api/v1/namespaces/default/pods/web"), time.Now(), nil)
	if want := `kubecred guard refused: delete pods "web" in namespace "default" (profile prod, rule "read-only"). ` + lift; v.message != want || v.status != http.StatusForbidden {
		t.Errorf("read-only:\n%d %s\nwant\n%s", v.status, v.message, want)
	}
	answer := func(allow bool, reason string, err error) confirmFunc {
		return func(context.Context, string, requestFacts) (bool, string, error) { return allow, reason, err }
	}
	get := factsAt(t, "GET", "/api/v1/namespaces/default/secrets/db")
	v = g.decide(context.Background(), "prod", get, time.Now(), answer(false, "", nil))
	if want := `kubecred guard refused: get secrets "db" in namespace "default" (profile prod, rule "ask": confirm): declined in Kubecred. ` + lift; v.message != want || v.status != 403 {
		t.Errorf("declined:\n%d %s\nwant\n%s", v.status, v.message, want)
	}
	v = g.decide(context.Background(), "prod", get, time.Now(), answer(false, "not during the freeze", nil))
	if !strings.Contains(v.message, `(profile prod, rule "ask": confirm): not during the freeze. `) {
		t.Errorf("declined with a reason: %s", v.message)
	}
	v = g.decide(context.Background(), "prod", get, time.Now(), answer(false, "", &brokerError{message: "Kubecred is locked: unlock it", status: 423}))
	if v.message != "Kubecred is locked: unlock it" || v.status != 423 || v.decision != decisionRefused {
		t.Errorf("broker error with a status: %+v", v)
	}
	v = g.decide(context.Background(), "prod", get, time.Now(), answer(false, "", &brokerError{message: "no window"}))
	if v.message != "no window" || v.status != 403 {
		t.Errorf("broker error without a status: %+v", v)
	}
	v = g.decide(context.Background(), "prod", get, time.Now(), answer(false, "", context.DeadlineExceeded))
	if !strings.Contains(v.message, "nobody answered in Kubecred within 3 minutes") || !strings.HasSuffix(v.message, lift) {
		t.Errorf("timeout: %s", v.message)
	}
	v = g.decide(context.Background(), "prod", get, time.Now(), answer(false, "", errNobodyAnswered))
	if want := `kubecred guard refused: get secrets "db" in namespace "default" (profile prod, rule "ask": confirm): nobody answered in Kubecred in time. ` + lift; v.message != want || v.decision != decisionTimedOut {
		t.Errorf("nobody answered in the window:\n%s %s\nwant\n%s", v.decision, v.message, want)
	}
	v = g.decide(context.Background(), "prod", get, time.Now(), answer(false, "", errors.New("the broker is gone")))
	if !strings.HasSuffix(v.message, "the broker is gone") || v.status != 403 {
		t.Errorf("other error: %+v", v)
	}
}

func TestAnUnlockedGuardAllowsEverything(t *testing.T) {
	now := time.Now()
	until := now.Add(15 * time.Minute).UTC().Format(time.RFC3339)
	g, _ := compileGuard(guardSettings{Rules: []guardRuleSettings{{Name: "no", Action: actionDeny}}, OffUntil: &until})
	v := g.decide(context.Background(), "prod", factsAt(t, "DELETE", "/api/v1/namespaces/prod"), now, nil)
	if v == nil || v.decision != decisionUnlocked || v.rule != "" || v.refused() {
		t.Fatalf("unlocked: %+v", v)
	}
	if v := g.decide(context.Background(), "prod", factsAt(t, "DELETE", "/api/v1/namespaces/prod"), now.Add(16*time.Minute), nil); v.decision != decisionRefused {
		t.Fatalf("after offUntil: %+v", v)
	}
}

// A path a server might clean into another is refused before any rule reads it.
func TestAPathThatIsNotPlainIsRefusedWhileAGuardHolds(t *testing.T) {
	g := &requestGuard{rules: []guardRule{{name: "no secrets", action: actionDeny, resources: []resourcePattern{parseResourcePattern("secrets")}}}}
	for _, path := range []string{
		"//api/v1/namespaces/default/secrets/db",
		"/api//v1/namespaces/default/secrets/db",
		"/api/v1/namespaces/default/./secrets/db",
		"/api/v1/namespaces/default/configmaps/../secrets/db",
		"/api/v1/namespaces/default/secrets/db/..",
	} {
		v := g.decide(context.Background(), "prod", factsAt(t, "GET", path), time.Now(), nil)
		if !v.refused() || v.status != http.StatusBadRequest || !strings.Contains(v.message, "not a plain API path") {
			t.Errorf("%s: %+v", path, v)
		}
	}
	for _, path := range []string{"/", "/version", "/api/v1/namespaces/default/configmaps/", "/apis/apps/v1/deployments"} {
		if v := g.decide(context.Background(), "prod", factsAt(t, "GET", path), time.Now(), nil); v.refused() {
			t.Errorf("%s refused: %+v", path, v)
		}
	}
	// Lifted, the guard reads nothing at all.
	lifted := &requestGuard{rules: g.rules, offUntil: time.Now().Add(time.Minute)}
	if v := lifted.decide(context.Background(), "prod", factsAt(t, "GET", "//x"), time.Now(), nil); v.refused() {
		t.Errorf("lifted: %+v", v)
	}
}
