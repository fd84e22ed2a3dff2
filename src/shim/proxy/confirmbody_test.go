package main

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

const patchPath = "/api/v1/namespaces/default/configmaps/keep"

func TestTheDigestIsPinnedToItsLengthPrefixedEncoding(t *testing.T) {
	// Computed apart from this code (Python: sha256 over 8-byte big-endian length + bytes per
	// field), so a change of the encoding is a change of this test, not an accident.
	got := requestDigest("PATCH", patchPath, "fieldManager=kubectl-edit", "application/merge-patch+json", "", []byte(`{"data":{"replicas":"3"}}`))
	if want := "602d33dfdb1c2288dd7a37763f195716158f511cfcd633de232005c8eb6cb89c"; got != want {
		t.Fatalf("digest %s, want %s", got, want)
	}
	if got := requestDigest("DELETE", "/api/v1/namespaces/default/pods/web", "", "", "", nil); got != "249fb716b276b0f427497ed1d5e01b11143eaeab480a4ce6f3f0528abecba590" {
		t.Fatalf("a body-less request: %s", got)
	}
}

func TestTheDigestCoversEveryFieldThatChangesWhatTheServerDoes(t *testing.T) {
	base := func() (string, string, string, string, string, []byte) {
		return "PATCH", patchPath, "", "application/merge-patch+json", "", []byte(`{"data":{"replicas":"3"}}`)
	}
	digest := func(change func(m, p, q, ct, ce *string, body *[]byte)) string {
		m, p, q, ct, ce, body := base()
		change(&m, &p, &q, &ct, &ce, &body)
		return requestDigest(m, p, q, ct, ce, body)
	}
	same := digest(func(*string, *string, *string, *string, *string, *[]byte) {})
	variants := map[string]func(m, p, q, ct, ce *string, body *[]byte){
		"another body":         func(_, _, _, _, _ *string, b *[]byte) { *b = []byte(`{"data":{"image":"evil.example/backdoor"}}`) },
		"a query":              func(_, _, q, _, _ *string, _ *[]byte) { *q = "force=true" },
		"another path":         func(_, p, _, _, _ *string, _ *[]byte) { *p = "/api/v1/namespaces/kube-system/configmaps/keep" },
		"another method":       func(m, _, _, _, _ *string, _ *[]byte) { *m = "PUT" },
		"a JSON patch":         func(_, _, _, ct, _ *string, _ *[]byte) { *ct = "application/json-patch+json" },
		"a compressed body":    func(_, _, _, _, ce *string, _ *[]byte) { *ce = "gzip" },
		"one space more":       func(_, _, _, _, _ *string, b *[]byte) { *b = []byte(`{"data":{"replicas":"3"}} `) },
		"a byte moved to path": func(_, p, _, _, _ *string, b *[]byte) { *p += "{"; *b = (*b)[1:] },
	}
	seen := map[string]string{same: "the base"}
	for name, change := range variants {
		got := digest(change)
		if other, dup := seen[got]; dup {
			t.Errorf("%s has the digest of %s", name, other)
		}
		seen[got] = name
	}
	// The length prefix keeps field boundaries: "/a" + query "b" is not "/ab" + no query.
	if requestDigest("GET", "/a", "b", "", "", nil) == requestDigest("GET", "/ab", "", "", "", nil) {
		t.Error("a byte moved from path to query kept the digest")
	}
	if same != digest(func(*string, *string, *string, *string, *string, *[]byte) {}) {
		t.Error("the same request gave two digests")
	}
}

func TestABodyLessRequestHasTheDigestOfAnEmptyBody(t *testing.T) {
	r := httptest.NewRequest("DELETE", "/api/v1/namespaces/default/pods/web", nil)
	judged, err := judgeRequest(r)
	if err != nil {
		t.Fatal(err)
	}
	if judged.digest != requestDigest("DELETE", "/api/v1/namespaces/default/pods/web", "", "", "", []byte{}) || judged.body.bytes != 0 || judged.body.text || judged.body.preview != "" {
		t.Fatalf("%+v", judged)
	}
	if r.Body != http.NoBody || r.ContentLength != 0 {
		t.Fatalf("body %v, length %d", r.Body, r.ContentLength)
	}
}

func TestTheBodyJudgedIsTheBodyThatStays(t *testing.T) {
	body := []byte("{\n  \"data\": {\"image\": \"nginx\"}\n}\n")
	// A chunked request: no length known until it is read.
	r := httptest.NewRequest("PATCH", patchPath+"?fieldManager=kubectl-edit", io.MultiReader(bytes.NewReader(body)))
	r.ContentLength, r.TransferEncoding = -1, []string{"chunked"}
	r.Header.Set("Content-Type", "application/strategic-merge-patch+json")
	judged, err := judgeRequest(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := requestDigest("PATCH", patchPath, "fieldManager=kubectl-edit", "application/strategic-merge-patch+json", "", body); judged.digest != want {
		t.Fatalf("digest %s, want %s", judged.digest, want)
	}
	left, _ := io.ReadAll(r.Body)
	if !bytes.Equal(left, body) || r.ContentLength != int64(len(body)) || r.TransferEncoding != nil {
		t.Fatalf("after judging: %q, length %d, transfer encoding %v", left, r.ContentLength, r.TransferEncoding)
	}
	again, _ := r.GetBody()
	if replay, _ := io.ReadAll(again); !bytes.Equal(replay, body) {
		t.Fatalf("GetBody gives %q", replay)
	}
	if judged.body.preview != `{"data":{"image":"nginx"}}` || judged.body.truncated || judged.body.mediaType != "application/strategic-merge-patch+json" || judged.body.bytes != len(body) {
		t.Fatalf("preview %+v", judged.body)
	}
}

func TestABodyOverTheLimitIsNotJudged(t *testing.T) {
	atLimit := httptest.NewRequest("PUT", patchPath, bytes.NewReader(bytes.Repeat([]byte("a"), confirmBodyLimit)))
	if _, err := judgeRequest(atLimit); err != nil {
		t.Fatalf("a body of exactly the limit: %v", err)
	}
	over := httptest.NewRequest("PUT", patchPath, bytes.NewReader(bytes.Repeat([]byte("a"), confirmBodyLimit+1)))
	if _, err := judgeRequest(over); !errors.Is(err, errBodyTooLarge) {
		t.Fatalf("one byte over: %v", err)
	}
}

func TestThePreviewShowsWhatTheServerReadsAndNothingThatHidesIt(t *testing.T) {
	// A key written twice stays twice: the server reads the last one.
	twice := previewBody("application/merge-patch+json", "", []byte(`{"data": {"image": "ok", "image": "evil"}}`))
	if twice.preview != `{"data":{"image":"ok","image":"evil"}}` {
		t.Errorf("duplicate key: %s", twice.preview)
	}
	// A right-to-left override or a zero-width space would make the text read unlike it is.
	hidden := previewBody("application/json", "", []byte("{\"image\":\"evil\u202e\u200bnigx\",\"tag\":\"\U000E0041\"}"))
	if want := `{"image":"evil\u202e\u200bnigx","tag":"\udb40\udc41"}`; hidden.preview != want {
		t.Errorf("hidden characters: %s, want %s", hidden.preview, want)
	}
	yaml := previewBody("application/apply-patch+yaml; charset=utf-8", "", []byte("data:\n\timage: x\r\n"))
	if yaml.preview != "data:\n\timage: x\\u000d\n" || yaml.mediaType != "application/apply-patch+yaml" || !yaml.text {
		t.Errorf("yaml: %+v", yaml)
	}
	protobuf := previewBody("application/vnd.kubernetes.protobuf", "", []byte{0x6b, 0x38, 0x73, 0x00, 0xff, 0xfe})
	if protobuf.text || protobuf.preview != "" || protobuf.bytes != 6 {
		t.Errorf("protobuf: %+v", protobuf)
	}
	gzipped := previewBody("application/json", "gzip", []byte(`{"looks":"like text"}`))
	if gzipped.text || gzipped.preview != "" || gzipped.encoding != "gzip" {
		t.Errorf("compressed: %+v", gzipped)
	}
}

func TestALongBodyIsCutAtACharacterWithANote(t *testing.T) {
	long := `{"data":{"blob":"` + strings.Repeat("é", 3000) + `"}}`
	p := previewBody("application/json", "", []byte(long))
	if !p.truncated || len(p.preview) > bodyPreviewLimit || len(p.preview) < bodyPreviewLimit-2 || !utf8.ValidString(p.preview) || !strings.HasPrefix(long, p.preview) {
		t.Fatalf("truncated %v, %d bytes, valid %v", p.truncated, len(p.preview), utf8.ValidString(p.preview))
	}
	fields := p.fields()
	if fields["truncated"] != true || fields["bytes"] != len(long) {
		t.Fatalf("fields %v", fields)
	}
}
