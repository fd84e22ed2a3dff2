package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// bodyEcho is a cluster that takes a bearer token and answers what it received of each request,
// the body byte for byte, so a test sees what the proxy sent after the guard read it.
type bodyEcho struct {
	server *httptest.Server
	caPEM  string
	mu     sync.Mutex
	seen   []echoed
}

type echoed struct {
	Method, Path, Query, Body, ContentType string
	ContentLength                          int64
	TransferEncoding                       []string
}

func newBodyEcho(t *testing.T) *bodyEcho {
	t.Helper()
	c := &bodyEcho{}
	c.server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		seen := echoed{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: string(body), ContentType: r.Header.Get("Content-Type"), ContentLength: r.ContentLength, TransferEncoding: r.TransferEncoding}
		c.mu.Lock()
		c.seen = append(c.seen, seen)
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(seen)
	}))
	c.server.Config.ErrorLog = quietLog()
	c.server.StartTLS()
	t.Cleanup(c.server.Close)
	c.caPEM = pemCert(c.server.Certificate().Raw)
	return c
}

func (c *bodyEcho) received() []echoed {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]echoed(nil), c.seen...)
}

// confirmPatches is a proxy whose profile "a" asks before every patch and write, toward a bodyEcho.
func confirmPatches(t *testing.T) (*env, *bodyEcho, *http.Client, int) {
	t.Helper()
	e := newEnv(t, "p256")
	echo := newBodyEcho(t)
	e.b.answerCredentials(func(string, string) map[string]any { return tokenAnswer("upstream-token-secret", time.Time{}) })
	port := e.listenCredential("a", echo.server.URL, echo.caPEM, nil)
	e.b.mustCall("guard", map[string]any{"profile": "a", "rules": []any{
		map[string]any{"name": "ask before writes", "action": "confirm", "verbs": []string{"patch", "update", "create"}},
	}, "offUntil": nil})
	cert := e.issue("a")
	return e, echo, e.client(&cert), port
}

// send is kubectl sending one request with a body; chunked hides its length as kubectl's
// streamed bodies do.
func send(t *testing.T, client *http.Client, method, url, contentType, body string, chunked bool) (int, string) {
	t.Helper()
	var reader io.Reader = strings.NewReader(body)
	if chunked {
		reader = io.MultiReader(reader)
	}
	request, _ := http.NewRequest(method, url, reader)
	request.Header.Set("Content-Type", contentType)
	request.Header.Set("Authorization", "Bearer kubectl-own-secret")
	response, err := client.Do(request)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer response.Body.Close()
	answer, _ := io.ReadAll(response.Body)
	return response.StatusCode, string(answer)
}

// D6: two PATCHes wait at once with different bodies; each question carries its own digest
// and body, the broker allows one and declines the other, and only the allowed body arrives,
// byte for byte.
func TestTwoWaitingPatchesAreTwoQuestionsEachAnsweredForItsOwnBody(t *testing.T) {
	e, echo, client, port := confirmPatches(t)
	const mergePatch = "application/merge-patch+json"
	replicas := "{\n  \"data\": {\"replicas\": \"3\"}\n}"
	backdoor := `{"data":{"image":"evil.example/backdoor:latest"}}`
	path := "/api/v1/namespaces/default/configmaps/keep"
	bothAsked := make(chan struct{})
	var asked sync.WaitGroup
	asked.Add(2)
	go func() { asked.Wait(); close(bothAsked) }()
	e.b.answerConfirms(func(message map[string]any) map[string]any {
		asked.Done()
		<-bothAsked // both wait at the same time, as in the finding
		body := message["request"].(map[string]any)["body"].(map[string]any)
		return map[string]any{"allow": strings.Contains(body["preview"].(string), `"replicas":"3"`)}
	})
	type result struct {
		code int
		body string
	}
	results := make([]result, 2)
	var done sync.WaitGroup
	for i, body := range []string{replicas, backdoor} {
		done.Add(1)
		go func() {
			defer done.Done()
			code, answer := send(t, client, "PATCH", local(port, path+"?fieldManager=kubectl-patch"), mergePatch, body, i == 0)
			results[i] = result{code, answer}
		}()
	}
	done.Wait()

	if results[0].code != 200 || results[1].code != 403 || !strings.Contains(decodeStatus(t, results[1].body).Message, "declined in Kubecred") {
		t.Fatalf("allowed: %d %s\ndeclined: %d %s", results[0].code, results[0].body, results[1].code, results[1].body)
	}
	arrived := echo.received()
	if len(arrived) != 1 || arrived[0].Body != replicas || arrived[0].ContentLength != int64(len(replicas)) || arrived[0].Query != "fieldManager=kubectl-patch" || arrived[0].ContentType != mergePatch {
		t.Fatalf("the cluster received %+v", arrived)
	}

	confirms := e.b.confirmed()
	if len(confirms) != 2 {
		t.Fatalf("%d questions for two requests", len(confirms))
	}
	byPreview := map[string]map[string]any{}
	for _, c := range confirms {
		request := c["request"].(map[string]any)
		byPreview[request["body"].(map[string]any)["preview"].(string)] = request
		if strings.Contains(fmt.Sprint(c), "secret") {
			t.Errorf("a credential or header reached the broker's question: %v", c)
		}
	}
	for body, preview := range map[string]string{replicas: `{"data":{"replicas":"3"}}`, backdoor: backdoor} {
		request := byPreview[preview]
		if request == nil {
			t.Fatalf("no question showed %s: %v", preview, confirms)
		}
		if want := requestDigest("PATCH", path, "fieldManager=kubectl-patch", mergePatch, "", []byte(body)); request["digest"] != want {
			t.Errorf("digest %v, want %s", request["digest"], want)
		}
		if request["query"] != "fieldManager=kubectl-patch" || request["body"].(map[string]any)["bytes"] != float64(len(body)) || request["body"].(map[string]any)["mediaType"] != mergePatch {
			t.Errorf("question %v", request)
		}
	}
}

func TestABodyTooLargeToShowIsRefusedWith413NamingTheGuardAndNeverAsked(t *testing.T) {
	e, echo, client, port := confirmPatches(t)
	e.b.answerConfirms(func(map[string]any) map[string]any { return map[string]any{"allow": true} })
	big := `{"data":{"blob":"` + strings.Repeat("x", confirmBodyLimit) + `"}}`
	code, answer := send(t, client, "PUT", local(port, "/api/v1/namespaces/default/configmaps/keep"), "application/json", big, false)
	s := decodeStatus(t, answer)
	want := `kubecred guard refused: update configmaps "keep" in namespace "default" (profile a, rule "ask before writes" asks before it) has a body over 3 MiB, more than the guard reads to show you before you answer. Send it in smaller requests. To lift the guard for 15 minutes: kubecred guard a off --for 15m`
	if code != http.StatusRequestEntityTooLarge || s.Code != http.StatusRequestEntityTooLarge || s.Message != want {
		t.Fatalf("%d %+v\nwant %s", code, s, want)
	}
	if len(e.b.confirmed()) != 0 || len(echo.received()) != 0 {
		t.Fatalf("asked %d times, the cluster got %d requests", len(e.b.confirmed()), len(echo.received()))
	}
	expectAudit(t, e.auditOf("PUT", "/api/v1/namespaces/default/configmaps/keep"), map[string]any{"status": 413, "guard": map[string]any{"decision": "refused", "rule": "ask before writes"}})

	// Within the limit the same write is asked about and arrives whole.
	fits := `{"data":{"blob":"` + strings.Repeat("x", 64<<10) + `"}}`
	if code, answer := send(t, client, "PUT", local(port, "/api/v1/namespaces/default/configmaps/keep"), "application/json", fits, true); code != 200 {
		t.Fatalf("%d %s", code, answer)
	}
	if arrived := echo.received(); len(arrived) != 1 || !bytes.Equal([]byte(arrived[0].Body), []byte(fits)) || arrived[0].ContentLength != int64(len(fits)) {
		t.Fatalf("the cluster got %d requests", len(arrived))
	}
	body := e.b.confirmed()[0]["request"].(map[string]any)["body"].(map[string]any)
	if body["truncated"] != true || len(body["preview"].(string)) > bodyPreviewLimit {
		t.Fatalf("a 64 KiB body's preview: truncated %v, %d bytes", body["truncated"], len(body["preview"].(string)))
	}
}
