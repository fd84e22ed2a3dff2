package main

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// requestFacts is what the request guard judges a request by: the facts kube-apiserver's
// RequestInfoFactory finds in the same method, path and query, so a rule means what an RBAC
// rule over the same words would mean to the cluster.
type requestFacts struct {
	resourceRequest bool
	verb            string
	group           string
	version         string
	resource        string
	subresource     string
	namespace       string
	name            string
	// dryRun: the server will change nothing, read where the server reads it (the query, or a
	// DELETE's body) and only for a request whose server code honours it (dryrun.go).
	dryRun bool
	// applyPatch: a server-side apply, which creates the object when it is not there.
	applyPatch bool
	// optionsUnread: a DELETE's body the guard cannot read as the server does (YAML, CBOR, an
	// encoded body), so it sees no dry run in it.
	optionsUnread bool
	// review: a create of one of the review resources, which asks the cluster a question and
	// changes nothing, so a read-only rule lets it through (kubectl auth can-i, auth whoami).
	review bool
	method string
	path   string
}

// The apiserver's own sets (k8s.io/apiserver/pkg/endpoints/request/requestinfo.go).
var (
	// namespaceSubresources: /api/v1/namespaces/<name>/status is the namespace's subresource,
	// not a resource "status" in namespace <name>.
	namespaceSubresources = map[string]bool{"status": true, "finalize": true}
	// connectSubresources open a stream into a pod or node (or a proxy to a service): the API
	// server authorizes them as create whatever the method (a WebSocket exec is a GET), since
	// they can change anything the container can.
	connectSubresources = map[string]bool{"exec": true, "attach": true, "portforward": true, "proxy": true}
	reviewGroups        = map[string]bool{"authentication.k8s.io": true, "authorization.k8s.io": true}
	reviewResources     = map[string]bool{
		"selfsubjectreviews": true, "selfsubjectaccessreviews": true, "selfsubjectrulesreviews": true,
		"subjectaccessreviews": true, "localsubjectaccessreviews": true, "tokenreviews": true,
	}
)

// factsOf reads a request as the API server will: its method, path and query, and for a
// DELETE the body it has already read (body nil: none), which then holds the dry run.
func factsOf(r *http.Request, body []byte) requestFacts {
	f := factsFrom(r.Method, r.URL.Path, r.URL.Query())
	if len(body) > 0 && (f.verb == "delete" || f.verb == "deletecollection") {
		f.dryRun = deleteOptionsDryRun(body, r.Header)
		f.optionsUnread = !f.dryRun && !readableOptions(r.Header)
	}
	if f.verb == "patch" {
		mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		f.applyPatch = mediaType == "application/apply-patch+yaml" || mediaType == "application/apply-patch+cbor"
	}
	return f
}

// factsFrom follows RequestInfoFactory.NewRequestInfo step by step (held to it by
// testdata/requestinfo.json, which the real package checks); where it departs, the comment
// says why. It reads a request with no body.
func factsFrom(method, path string, query url.Values) requestFacts {
	f := requestFacts{method: method, path: path}
	// A non-resource request's verb is its method in lower case; HEAD reads as GET does.
	f.verb = strings.ToLower(method)
	if method == http.MethodHead {
		f.verb = "get"
	}
	parts := splitPath(path)
	if len(parts) < 3 || (parts[0] != "api" && parts[0] != "apis") {
		return f
	}
	prefix := parts[0]
	parts = parts[1:]
	group := ""
	if prefix == "apis" {
		if len(parts) < 3 {
			return f // /apis/<group>/<version>: discovery
		}
		group, parts = parts[0], parts[1:]
	}
	version := parts[0]
	parts = parts[1:]

	verb := ""
	if parts[0] == "watch" || parts[0] == "proxy" {
		// The legacy /watch/ and /proxy/ prefixes; one with nothing after it is an error to
		// the apiserver, so it reaches nothing and stays a non-resource request here.
		if len(parts) < 2 {
			return f
		}
		verb, parts = parts[0], parts[1:]
	} else {
		switch method {
		case http.MethodPost:
			verb = "create"
		case http.MethodGet, http.MethodHead:
			verb = "get"
		case http.MethodPut:
			verb = "update"
		case http.MethodPatch:
			verb = "patch"
		case http.MethodDelete:
			verb = "delete"
		}
	}

	namespace := ""
	if parts[0] == "namespaces" && len(parts) > 1 {
		namespace = parts[1]
		if len(parts) > 2 && !namespaceSubresources[parts[2]] {
			parts = parts[2:]
		}
	}
	f.resourceRequest, f.group, f.version, f.verb, f.namespace = true, group, version, verb, namespace
	if len(parts) >= 3 && verb != "proxy" {
		f.subresource = parts[2]
	}
	if len(parts) >= 2 {
		f.name = parts[1]
	}
	f.resource = parts[0]

	if f.name == "" && f.verb == "get" {
		f.verb = "list"
		if watchRequested(query) {
			f.verb = "watch"
		}
		// kubectl get pod web --watch lists with fieldSelector=metadata.name=web: the
		// apiserver takes that as the name, and so must a rule about names.
		if name, ok := selectedName(query.Get("fieldSelector")); ok {
			f.name = name
		}
	}
	if f.name == "" && f.verb == "delete" {
		f.verb = "deletecollection"
	}
	if connectSubresources[f.subresource] {
		f.verb = "create"
	}
	f.review = f.verb == "create" && f.subresource == "" && reviewGroups[f.group] && reviewResources[f.resource]
	f.dryRun = dryRunAll(query) && f.honoursDryRun()
	return f
}

// splitPath is the apiserver's: no leading or trailing slash, and "" is no parts at all.
func splitPath(path string) []string {
	path = strings.Trim(path, "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

// watchRequested decodes ?watch= as the apiserver's query codec does: present and neither
// "0" nor "false" is true (so watch=1 and watch=true, and also watch=yes).
func watchRequested(query url.Values) bool {
	values, ok := query["watch"]
	if !ok || len(values) == 0 {
		return false
	}
	return values[0] != "0" && !strings.EqualFold(values[0], "false")
}

// selectedName is the name a field selector pins with metadata.name=<name> (or ==), found as
// fields.ParseSelector and RequiresExactMatch find it, if it is a valid path segment name.
func selectedName(selector string) (string, bool) {
	terms := splitUnescaped(selector, ',')
	sort.Strings(terms)
	for _, term := range terms {
		field, operator, value, ok := splitTerm(term)
		if !ok || field != "metadata.name" || operator == "!=" {
			continue
		}
		name, ok := unescapeSelectorValue(value)
		if !ok {
			return "", false // the apiserver refuses the selector, so the request names nothing
		}
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/%") {
			return "", false
		}
		return name, true
	}
	return "", false
}

// splitUnescaped splits at sep where it is not escaped with a backslash (fields.splitTerms).
func splitUnescaped(s string, sep byte) []string {
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case sep:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// splitTerm is fields.splitTerm: the first position where an operator starts, trying != then
// == then =; the field side knows no escapes.
func splitTerm(term string) (field, operator, value string, ok bool) {
	for i := range term {
		for _, op := range []string{"!=", "==", "="} {
			if strings.HasPrefix(term[i:], op) {
				return term[:i], op, term[i+len(op):], true
			}
		}
	}
	return "", "", "", false
}

// unescapeSelectorValue is fields.UnescapeValue: \\, \, and \= only.
func unescapeSelectorValue(value string) (string, bool) {
	var out strings.Builder
	for i := 0; i < len(value); i++ {
		c := value[i]
		if c == '\\' {
			if i+1 == len(value) || !strings.ContainsRune(`\,=`, rune(value[i+1])) {
				return "", false
			}
			i++
			c = value[i]
		} else if c == ',' || c == '=' {
			return "", false
		}
		out.WriteByte(c)
	}
	return out.String(), true
}

// qualifiedResource names the resource as RBAC and kubectl do: deployments.apps/scale.
func (f requestFacts) qualifiedResource() string {
	name := f.resource
	if f.group != "" {
		name += "." + f.group
	}
	if f.subresource != "" {
		name += "/" + f.subresource
	}
	return name
}

// isRead: a request a read-only rule lets through. A non-resource GET reads too (its verb is
// "get"), while a non-resource POST does not.
func (f requestFacts) isRead() bool {
	switch f.verb {
	case "get", "list", "watch":
		return true
	}
	return f.dryRun || f.review
}

// sentence says what the request would do, for the message kubectl prints.
func (f requestFacts) sentence() string {
	var s string
	if !f.resourceRequest {
		s = fmt.Sprintf("%s %.200s", f.method, f.path)
	} else {
		s = f.verb + " " + f.qualifiedResource()
		if f.name != "" {
			s += fmt.Sprintf(" %q", f.name)
		}
		// A namespace's own namespace is its name, said once already.
		if f.namespace != "" && !(f.resource == "namespaces" && f.group == "") {
			s += fmt.Sprintf(" in namespace %q", f.namespace)
		}
	}
	switch {
	case f.dryRun:
		s += " (dry run)"
	case f.optionsUnread:
		s += " (its options are not in JSON or protobuf, so the guard sees no dry run in them)"
	}
	return s
}
