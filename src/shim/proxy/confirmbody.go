package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// confirmBodyLimit is the largest body a confirm question reads: kube-apiserver's own default
// (--max-request-body-bytes, 3 MiB), so the guard refuses no body the server would have taken,
// while a question that waits minutes holds a bounded amount of memory.
const confirmBodyLimit = 3 << 20

// errBodyTooLarge: the body is past confirmBodyLimit, so nobody could be shown what it does.
var errBodyTooLarge = errors.New("request body too large to judge")

// digestDomain starts every digest, so a digest of a guarded request is never the digest of
// anything else this program hashes.
const digestDomain = "kubecred guarded request v1"

// judgedRequest is what a confirm question binds and shows of a request beyond its
// path: the person's Allow is for exactly this method, path, query, media type and body.
type judgedRequest struct {
	digest string
	body   bodyPreview
}

// judgeRequest reads r's body (at most confirmBodyLimit) and puts the very same bytes back,
// so what goes upstream after an Allow is what the digest and the preview were made from.
func judgeRequest(r *http.Request) (judgedRequest, error) {
	body, err := takeBody(r)
	if err != nil {
		return judgedRequest{}, err
	}
	contentType, contentEncoding := r.Header.Get("Content-Type"), r.Header.Get("Content-Encoding")
	return judgedRequest{
		digest: requestDigest(r.Method, r.URL.EscapedPath(), r.URL.RawQuery, contentType, contentEncoding, body),
		body:   previewBody(contentType, contentEncoding, body),
	}, nil
}

// takeBody reads the whole body and replaces it with a reader of the same bytes, with an exact
// ContentLength: a chunked request goes upstream with a Content-Length of what was read.
func takeBody(r *http.Request) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, confirmBodyLimit+1))
	_ = r.Body.Close()
	if err != nil {
		return nil, err
	}
	if len(body) > confirmBodyLimit {
		return nil, errBodyTooLarge
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	r.ContentLength = int64(len(body))
	r.TransferEncoding = nil
	if len(body) == 0 {
		r.Body = http.NoBody
	}
	return body, nil
}

// requestDigest is SHA-256 over the fields that decide what the server does with a request,
// each preceded by its length (8 bytes, big-endian), so no two different requests encode alike
// (without lengths, path "/a" with query "b" and path "/ab" with none would). The media type
// and encoding are in it because they change what the same bytes do: a merge patch and a JSON
// patch of one body are different writes. No other header, and no credential, is.
func requestDigest(method, path, rawQuery, contentType, contentEncoding string, body []byte) string {
	h := sha256.New()
	for _, field := range [][]byte{[]byte(digestDomain), []byte(method), []byte(path), []byte(rawQuery), []byte(contentType), []byte(contentEncoding), body} {
		var length [8]byte
		binary.BigEndian.PutUint64(length[:], uint64(len(field)))
		h.Write(length[:])
		h.Write(field)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// tooLargeToConfirm is kubectl's answer to a body past confirmBodyLimit: 413, naming the
// guard and the ways on.
func tooLargeToConfirm(profile, rule string, f requestFacts) error {
	return &brokerError{status: http.StatusRequestEntityTooLarge, message: fmt.Sprintf(
		"kubecred guard refused: %s (profile %s, rule %q asks before it) has a body over %d MiB, more than the guard reads to show you before you answer. Send it in smaller requests. %s",
		f.sentence(), profile, rule, confirmBodyLimit>>20, liftHint(profile))}
}
