package main

// The control channel's messages, declared once per language: here for Go, and in
// src/shared/api/proxyControl.ts for the broker. Both are held to the same examples,
// test/fixtures/proxy-control/<direction>.<type>.<request|reply>[.<variant>].json: the Go test
// decodes each into the type below, refusing a field it does not know, and encodes it again,
// failing when a field of the example is lost. To add a field: put it in the example, in the
// struct here (and in the code that reads or sends it), and in proxyControl.ts.
//
// What the proxy decodes uses the structs its handlers decode (initRequest, listenRequest, ...);
// what it sends is declared here, beside the code that builds it.

// requestEnvelope is what every request carries beside its fields; header routes on it.
type requestEnvelope struct {
	ID   int64  `json:"id"`
	Type string `json:"type"`
}

// replyEnvelope is what every reply carries: ok, or the refusal and its HTTP status.
type replyEnvelope struct {
	ID     int64  `json:"id"`
	Reply  bool   `json:"reply"`
	OK     bool   `json:"ok"`
	Error  string `json:"error,omitempty"`
	Status int    `json:"status,omitempty"`
}

type eventEnvelope struct {
	Type string `json:"type"`
}

type noFields struct{}

type initReply struct {
	CA caPair `json:"ca"`
}

type listenReply struct {
	Port int `json:"port"`
}

type closeRequest struct {
	Profile string `json:"profile"`
}

type issueRequest struct {
	Profile    string  `json:"profile"`
	TTLSeconds int     `json:"ttlSeconds"`
	Caller     *string `json:"caller"`
}

type issueReply struct {
	CertPem  string `json:"certPem"`
	KeyPem   string `json:"keyPem"`
	NotAfter string `json:"notAfter"`
}

type revokeRequest struct {
	Profile      string `json:"profile"`
	Reason       string `json:"reason,omitempty"`
	Certificates bool   `json:"certificates,omitempty"`
}

type statsReply struct {
	Goroutines int `json:"goroutines"`
	OpenFiles  int `json:"openFiles"`
	Listeners  int `json:"listeners"`
}

type signRequest struct {
	Profile   string            `json:"profile"`
	Scheme    string            `json:"scheme"`
	Message   string            `json:"message"`
	Handshake map[string]string `json:"handshake,omitempty"`
}

type signReply struct {
	Signature string `json:"signature"`
}

type proxyCredentialRequest struct {
	Profile string `json:"profile"`
	Reason  string `json:"reason"`
}

type credentialAnswer struct {
	Credential *credentialSettings `json:"credential"`
}

type confirmRequest struct {
	Profile string              `json:"profile"`
	Rule    string              `json:"rule"`
	Request confirmRequestFacts `json:"request"`
	PID     int                 `json:"pid,omitempty"`
}

// confirmRequestFacts is the request a confirm rule matched, as the question shows it.
type confirmRequestFacts struct {
	Verb           string             `json:"verb"`
	Group          string             `json:"group"`
	Resource       string             `json:"resource"`
	Subresource    string             `json:"subresource"`
	Namespace      string             `json:"namespace"`
	Name           string             `json:"name"`
	Path           string             `json:"path"`
	Method         string             `json:"method"`
	DryRun         bool               `json:"dryRun"`
	Query          string             `json:"query"`
	QueryTruncated bool               `json:"queryTruncated"`
	Digest         string             `json:"digest"`
	Body           confirmRequestBody `json:"body"`
}

type confirmRequestBody struct {
	Bytes     int    `json:"bytes"`
	MediaType string `json:"mediaType"`
	Encoding  string `json:"encoding,omitempty"`
	Text      bool   `json:"text"`
	Preview   string `json:"preview"`
	Truncated bool   `json:"truncated"`
}

// confirmReply is the person's answer; TimedOut: nobody answered (kubectl is told so).
type confirmReply struct {
	Allow    bool   `json:"allow"`
	Reason   string `json:"reason,omitempty"`
	TimedOut bool   `json:"timedOut,omitempty"`
}

type auditEvent struct {
	Profile     string      `json:"profile"`
	Caller      *string     `json:"caller"`
	Certificate *string     `json:"certificate"`
	Method      string      `json:"method"`
	Path        string      `json:"path"`
	Status      int         `json:"status"`
	MS          int64       `json:"ms"`
	Upgrade     string      `json:"upgrade,omitempty"`
	Guard       *auditGuard `json:"guard,omitempty"`
	Verb        string      `json:"verb,omitempty"`
	Resource    string      `json:"resource,omitempty"`
	Namespace   string      `json:"namespace,omitempty"`
	Name        string      `json:"name,omitempty"`
	DryRun      bool        `json:"dryRun,omitempty"`
}

type auditGuard struct {
	Decision string `json:"decision"`
	Rule     string `json:"rule,omitempty"`
}

// channelMessages names the Go type of each example, by the example's name without its
// variant: a new message needs an entry here and an example.
var channelMessages = map[string]func() any{
	"envelope.request":          func() any { return &requestEnvelope{} },
	"envelope.reply":            func() any { return &replyEnvelope{} },
	"envelope.event":            func() any { return &eventEnvelope{} },
	"broker.init.request":       func() any { return &initRequest{} },
	"broker.init.reply":         func() any { return &initReply{} },
	"broker.listen.request":     func() any { return &listenRequest{} },
	"broker.listen.reply":       func() any { return &listenReply{} },
	"broker.close.request":      func() any { return &closeRequest{} },
	"broker.close.reply":        func() any { return &noFields{} },
	"broker.issue.request":      func() any { return &issueRequest{} },
	"broker.issue.reply":        func() any { return &issueReply{} },
	"broker.revoke.request":     func() any { return &revokeRequest{} },
	"broker.revoke.reply":       func() any { return &noFields{} },
	"broker.guard.request":      func() any { return &guardRequest{} },
	"broker.guard.reply":        func() any { return &noFields{} },
	"broker.credential.request": func() any { return &credentialRequest{} },
	"broker.credential.reply":   func() any { return &noFields{} },
	"broker.stats.request":      func() any { return &noFields{} },
	"broker.stats.reply":        func() any { return &statsReply{} },
	"proxy.sign.request":        func() any { return &signRequest{} },
	"proxy.sign.reply":          func() any { return &signReply{} },
	"proxy.credential.request":  func() any { return &proxyCredentialRequest{} },
	"proxy.credential.reply":    func() any { return &credentialAnswer{} },
	"proxy.confirm.request":     func() any { return &confirmRequest{} },
	"proxy.confirm.reply":       func() any { return &confirmReply{} },
	"event.audit":               func() any { return &auditEvent{} },
}
