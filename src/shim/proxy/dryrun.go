package main

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// A dry run changes nothing only where the server's code reads and honours it, so the guard
// takes a request for one only there; every other request that says dryRun is the write it is.
//
//   - create, update and patch read dryRun from the query, and the generic registry honours it
//     for every resource and for the subresources below; a TokenRequest
//     (serviceaccounts/<sa>/token) ignores it and mints a real token, and the connect
//     subresources (exec, attach, portforward, proxy) refuse it;
//   - delete and deletecollection read their options from the body when there is one, and from
//     the query only when there is none.

// dryRunSubresources are the subresources whose writes the API server runs as a dry run when
// asked (k8s.io/kubernetes pkg/registry: each calls the store with the dry-run option).
var dryRunSubresources = map[string]bool{
	"status": true, "scale": true, "eviction": true, "binding": true, "ephemeralcontainers": true,
	"resize": true, "approval": true, "finalize": true,
}

// honoursDryRun: the server runs this request as a dry run when its options ask for one.
func (f requestFacts) honoursDryRun() bool {
	if !f.resourceRequest {
		return false
	}
	switch f.verb {
	case "create", "update", "patch":
		return f.subresource == "" || dryRunSubresources[f.subresource]
	case "delete", "deletecollection":
		return f.subresource == ""
	}
	return false
}

// dryRunAll: the apiserver accepts "All" as the only dryRun value and refuses a request with
// any other, so a request is a dry run when every value it gives is All.
func dryRunAll(query url.Values) bool {
	values := query["dryRun"]
	for _, v := range values {
		if v != "All" {
			return false
		}
	}
	return len(values) > 0
}

// readableOptions: a body of a media type and encoding deleteOptionsDryRun reads.
func readableOptions(header http.Header) bool {
	if encoding := header.Get("Content-Encoding"); encoding != "" && !strings.EqualFold(encoding, "identity") {
		return false
	}
	contentType := header.Get("Content-Type")
	if contentType == "" {
		return true // the server's first media type: JSON
	}
	mediaType, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mediaType == "application/json" || mediaType == "application/vnd.kubernetes.protobuf")
}

// deleteOptionsDryRun reads dryRun from a DELETE's body as the API server does (DeleteOptions
// in JSON, keys matched case-sensitively, or in protobuf). Anything it cannot read as surely
// as the server, another media type (YAML, CBOR), an encoded body, a key written twice or in
// another case, is not a dry run: the guard judges it as the delete it may be.
func deleteOptionsDryRun(body []byte, header http.Header) bool {
	if !readableOptions(header) {
		return false
	}
	if mediaType, _, _ := mime.ParseMediaType(header.Get("Content-Type")); mediaType == "application/vnd.kubernetes.protobuf" {
		return protobufDeleteOptionsDryRun(body)
	}
	decoder := json.NewDecoder(bytes.NewReader(body))
	if open, err := decoder.Token(); err != nil || open != json.Delim('{') {
		return false
	}
	var values []string
	seen := false
	for decoder.More() {
		token, err := decoder.Token()
		key, isKey := token.(string)
		if err != nil || !isKey {
			return false
		}
		if strings.EqualFold(key, "dryRun") {
			if key != "dryRun" || seen || decoder.Decode(&values) != nil {
				return false
			}
			seen = true
			continue
		}
		var skipped json.RawMessage
		if decoder.Decode(&skipped) != nil {
			return false
		}
	}
	if closing, err := decoder.Token(); err != nil || closing != json.Delim('}') {
		return false
	}
	if _, err := decoder.Token(); err != io.EOF {
		return false
	}
	return seen && dryRunAll(url.Values{"dryRun": values})
}
