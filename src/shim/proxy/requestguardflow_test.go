package main

import (
	"fmt"
	"net/http"
	"net/http/httptrace"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// guardListen opens profile's listener (token key mode) with a guard in its listen.
func (e *env) guardListen(profile string, port int, guard map[string]any) int {
	e.t.Helper()
	request := map[string]any{"profile": profile, "port": port, "upstream": e.upstream(nil), "headers": nil}
	if guard != nil {
		request["guard"] = guard
	}
	return int(e.b.mustCall("listen", request)["port"].(float64))
}

// confirmDeletesEnv: profile a behind a listener whose guard asks the broker before any
// delete, and a client with a certificate for it.
func confirmDeletesEnv(t *testing.T) (*env, int, *http.Client) {
	e := newEnv(t, "p256")
	port := e.listen("a", nil)
	e.b.mustCall("guard", map[string]any{"profile": "a", "rules": []any{
		map[string]any{"name": "ask before deletes", "action": "confirm", "verbs": []string{"delete"}},
	}, "offUntil": nil})
	cert := e.issue("a")
	return e, port, e.client(&cert)
}

func rules(list ...map[string]any) map[string]any {
	return map[string]any{"rules": list, "offUntil": nil}
}

// auditOf waits for the audit record of method path (the latest one).
func (e *env) auditOf(method, path string) map[string]any {
	e.t.Helper()
	var found map[string]any
	waitFor(e.t, "the audit record of "+method+" "+path, func() bool {
		for _, record := range e.b.auditLog() {
			if record["method"] == method && record["path"] == path {
				found = record
			}
		}
		return found != nil
	})
	return found
}

func expectAudit(t *testing.T, record map[string]any, want map[string]any, absent ...string) {
	t.Helper()
	for k, v := range want {
		if fmt.Sprint(record[k]) != fmt.Sprint(v) {
			t.Errorf("audit %s = %v, want %v (record %v)", k, record[k], v, record)
		}
	}
	for _, k := range absent {
		if _, ok := record[k]; ok {
			t.Errorf("audit has %s: %v", k, record)
		}
	}
}

func TestAReadOnlyRefusalIsA403StatusNamingTheRuleAndTheWayOut(t *testing.T) {
	e := newEnv(t, "p256")
	port := e.guardListen("prod", 0, rules(map[string]any{"name": "read-only", "action": "read-only"}))
	cert := e.issue("prod")
	client := e.client(&cert)

	code, body := e.do(client, "DELETE", local(port, "/api/v1/namespaces/default/pods/web"), nil)
	s := decodeStatus(t, body)
	want := `kubecred guard refused: delete pods "web" in namespace "default" (profile prod, rule "read-only"). To lift the guard for 15 minutes: kubecred guard prod off --for 15m`
	if code != 403 || s.Code != 403 || s.Reason != "Forbidden" || s.Message != want {
		t.Fatalf("%d %+v\nwant %s", code, s, want)
	}
	if e.b.signs.Load() != 0 || e.c.full.Load() != 0 {
		t.Fatal("a refused request reached for the cluster")
	}
	expectAudit(t, e.auditOf("DELETE", "/api/v1/namespaces/default/pods/web"), map[string]any{
		"status": 403, "guard": map[string]any{"decision": "refused", "rule": "read-only"},
		"verb": "delete", "resource": "pods", "namespace": "default", "name": "web",
	})

	if code, body := e.do(client, "GET", local(port, "/apis/apps/v1/namespaces/default/deployments"), nil); code != 200 || !strings.Contains(body, `"method":"GET"`) {
		t.Fatalf("a read: %d %s", code, body)
	}
	expectAudit(t, e.auditOf("GET", "/apis/apps/v1/namespaces/default/deployments"), map[string]any{
		"status": 200, "guard": map[string]any{"decision": "allowed", "rule": "read-only"},
		"verb": "list", "resource": "deployments.apps", "namespace": "default",
	}, "name")

	// kubectl exec is a create, whatever its method.
	code, body = e.do(client, "GET", local(port, "/api/v1/namespaces/default/pods/web/exec?command=sh"), nil)
	if s := decodeStatus(t, body); code != 403 || !strings.Contains(s.Message, `create pods/exec "web" in namespace "default"`) {
		t.Fatalf("exec: %d %s", code, s.Message)
	}
}

func TestAConfirmRuleAsksTheBrokerAndFollowsItsAnswer(t *testing.T) {
	e, port, client := confirmDeletesEnv(t)

	e.b.answerConfirms(func(map[string]any) map[string]any { return map[string]any{"allow": true} })
	if code, body := e.do(client, "DELETE", local(port, "/api/v1/namespaces/default/pods/web"), nil); code != 200 || !strings.Contains(body, `"method":"DELETE"`) {
		t.Fatalf("allowed: %d %s", code, body)
	}
	asked := e.b.confirmed()
	if len(asked) != 1 {
		t.Fatalf("%d confirm calls", len(asked))
	}
	ask := asked[0]
	wantRequest := map[string]any{"verb": "delete", "group": "", "resource": "pods", "subresource": "", "namespace": "default", "name": "web", "path": "/api/v1/namespaces/default/pods/web", "method": "DELETE", "dryRun": false,
		"query": "", "queryTruncated": false, "digest": requestDigest("DELETE", "/api/v1/namespaces/default/pods/web", "", "", "", nil),
		"body": map[string]any{"bytes": 0, "mediaType": "", "text": false, "preview": "", "truncated": false}}
	if ask["profile"] != "a" || ask["rule"] != "ask before deletes" || fmt.Sprint(ask["request"]) != fmt.Sprint(wantRequest) {
		t.Fatalf("confirm call %v", ask)
	}
	// The kubectl here is this test process.
	namesPeers := runtime.GOOS == "linux" || runtime.GOOS == "windows"
	if pid, ok := ask["pid"].(float64); namesPeers && (!ok || int(pid) != os.Getpid()) {
		t.Errorf("pid %v, want %d", ask["pid"], os.Getpid())
	} else if !namesPeers && ask["pid"] != nil {
		t.Errorf("pid %v where the OS names none", ask["pid"])
	}
	expectAudit(t, e.auditOf("DELETE", "/api/v1/namespaces/default/pods/web"), map[string]any{"status": 200, "guard": map[string]any{"decision": "confirmed", "rule": "ask before deletes"}})

	e.b.answerConfirms(func(map[string]any) map[string]any {
		return map[string]any{"allow": false, "reason": "not during the freeze"}
	})
	code, body := e.do(client, "DELETE", local(port, "/api/v1/namespaces/default/pods/db"), nil)
	s := decodeStatus(t, body)
	want := `kubecred guard refused: delete pods "db" in namespace "default" (profile a, rule "ask before deletes": confirm): not during the freeze. To lift the guard for 15 minutes: kubecred guard a off --for 15m`
	if code != 403 || s.Message != want {
		t.Fatalf("declined: %d %s\nwant %s", code, s.Message, want)
	}
	expectAudit(t, e.auditOf("DELETE", "/api/v1/namespaces/default/pods/db"), map[string]any{"status": 403, "guard": map[string]any{"decision": "declined", "rule": "ask before deletes"}})

	// The window's question ran out: a refusal, audited as nobody's answer, not the user's no.
	e.b.answerConfirms(func(map[string]any) map[string]any {
		return map[string]any{"allow": false, "timedOut": true, "reason": "ignored"}
	})
	code, body = e.do(client, "DELETE", local(port, "/api/v1/namespaces/default/pods/cache"), nil)
	want = `kubecred guard refused: delete pods "cache" in namespace "default" (profile a, rule "ask before deletes": confirm): nobody answered in Kubecred in time. To lift the guard for 15 minutes: kubecred guard a off --for 15m`
	if s := decodeStatus(t, body); code != 403 || s.Message != want {
		t.Fatalf("unanswered: %d %s\nwant %s", code, s.Message, want)
	}
	expectAudit(t, e.auditOf("DELETE", "/api/v1/namespaces/default/pods/cache"), map[string]any{"status": 403, "guard": map[string]any{"decision": "timed-out", "rule": "ask before deletes"}})

	e.b.answerConfirms(func(map[string]any) map[string]any {
		return map[string]any{"ok": false, "error": "Kubecred is locked: unlock it to answer", "status": 423}
	})
	code, body = e.do(client, "DELETE", local(port, "/api/v1/namespaces/default/pods/db"), nil)
	if s := decodeStatus(t, body); code != 423 || s.Message != "Kubecred is locked: unlock it to answer" {
		t.Fatalf("broker error: %d %s", code, s.Message)
	}
	// Reads are not asked about.
	if code, _ := e.do(client, "GET", local(port, "/api/v1/namespaces/default/pods/db"), nil); code != 200 || len(e.b.confirmed()) != 4 {
		t.Fatalf("a read: %d, %d confirm calls", code, len(e.b.confirmed()))
	}
}

func TestOffUntilUnlocksTheGuard(t *testing.T) {
	e := newEnv(t, "p256")
	until := time.Now().Add(15 * time.Minute).UTC().Format(time.RFC3339)
	port := e.guardListen("a", 0, map[string]any{"rules": []any{map[string]any{"name": "nothing", "action": "deny"}}, "offUntil": until})
	cert := e.issue("a")
	client := e.client(&cert)
	if code, _ := e.do(client, "DELETE", local(port, "/api/v1/namespaces/prod"), nil); code != 200 {
		t.Fatalf("unlocked: %d", code)
	}
	record := e.auditOf("DELETE", "/api/v1/namespaces/prod")
	expectAudit(t, record, map[string]any{"guard": map[string]any{"decision": "unlocked"}, "verb": "delete", "resource": "namespaces", "namespace": "prod", "name": "prod"})

	past := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	e.b.mustCall("guard", map[string]any{"profile": "a", "rules": []any{map[string]any{"name": "nothing", "action": "deny"}}, "offUntil": past})
	code, body := e.do(client, "DELETE", local(port, "/api/v1/namespaces/prod"), nil)
	if s := decodeStatus(t, body); code != 403 || !strings.Contains(s.Message, `delete namespaces "prod" (profile a, rule "nothing": deny)`) {
		t.Fatalf("locked again: %d %s", code, s.Message)
	}
}

func TestAListenThatOnlyChangesTheGuardKeepsThePortAndConnections(t *testing.T) {
	e := newEnv(t, "p256")
	port := e.listen("a", nil)
	cert := e.issue("a")
	client := e.client(&cert)
	if code, _ := e.do(client, "DELETE", local(port, "/api/v1/namespaces/default/pods/web"), nil); code != 200 {
		t.Fatalf("without a guard: %d", code)
	}
	signs, handshakes := e.b.signs.Load(), e.c.full.Load()+e.c.resume.Load()

	if again := e.guardListen("a", port, rules(map[string]any{"name": "ro", "action": "read-only"})); again != port {
		t.Fatalf("the guard moved the listener to %d", again)
	}
	reused := func(method, path string) (int, bool) {
		t.Helper()
		var wasReused bool
		trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) { wasReused = info.Reused }}
		request, _ := http.NewRequest(method, local(port, path), nil)
		response, err := client.Do(request.WithContext(httptrace.WithClientTrace(request.Context(), trace)))
		if err != nil {
			t.Fatal(err)
		}
		response.Body.Close()
		return response.StatusCode, wasReused
	}
	if code, wasReused := reused("DELETE", "/api/v1/namespaces/default/pods/web"); code != 403 || !wasReused {
		t.Fatalf("after the guard change: %d, kubectl's connection reused %v", code, wasReused)
	}
	if code, wasReused := reused("GET", "/api/v1/namespaces/default/pods"); code != 200 || !wasReused {
		t.Fatalf("a read: %d, reused %v", code, wasReused)
	}
	if e.b.signs.Load() != signs || e.c.full.Load()+e.c.resume.Load() != handshakes {
		t.Fatalf("the guard change cost %d signatures and %d upstream handshakes", e.b.signs.Load()-signs, e.c.full.Load()+e.c.resume.Load()-handshakes)
	}

	// A listen without a guard keeps the one set; an empty rule list is no guard.
	e.guardListen("a", port, nil)
	if code, _ := reused("DELETE", "/api/v1/namespaces/default/pods/web"); code != 403 {
		t.Fatalf("a listen without a guard dropped it: %d", code)
	}
	e.guardListen("a", port, rules())
	if code, _ := reused("DELETE", "/api/v1/namespaces/default/pods/web"); code != 200 {
		t.Fatalf("an empty rule list: %d", code)
	}
}

func TestAGuardNeedsAListenerAndKnownActions(t *testing.T) {
	e := newEnv(t, "p256")
	if reply := e.b.call("guard", map[string]any{"profile": "nobody", "rules": []any{}, "offUntil": nil}); reply["ok"] != false || !strings.Contains(fmt.Sprint(reply["error"]), "profile nobody has no listener") {
		t.Fatalf("%v", reply)
	}
	e.listen("a", nil)
	if reply := e.b.call("guard", map[string]any{"profile": "a", "rules": []any{map[string]any{"name": "x", "action": "block"}}, "offUntil": nil}); reply["ok"] != false {
		t.Fatalf("an unknown action: %v", reply)
	}
	if reply := e.b.call("listen", map[string]any{"profile": "b", "port": 0, "upstream": e.upstream(nil), "guard": map[string]any{"rules": []any{map[string]any{"name": "x", "action": "block"}}}}); reply["ok"] != false {
		t.Fatalf("a listen with an unknown action: %v", reply)
	}
}
