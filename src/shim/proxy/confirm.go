package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"time"
)

// confirmTimeout: a confirm rule's question waits this long for the user in Kubecred's
// window; after it the request is refused, as nobody answered.
const confirmTimeout = 3 * time.Minute

// errNobodyAnswered: the question ended with no answer (the window's own timeout, or this
// proxy's): a refusal, but not the user's, and the audit trail says so.
var errNobodyAnswered = errors.New("nobody answered in Kubecred in time")

// brokerConfirm asks the broker (the user, in Kubecred's window) about one request. The pid
// of the kubectl on the other end lets the window say which program asks, where the OS names it.
// The question carries the request's digest and a preview of its body: the broker asks once per
// request, so an Allow is for the body the person saw and for no other request.
func brokerConfirm(ctl *controller, profile string, r *http.Request) confirmFunc {
	return func(ctx context.Context, rule string, f requestFacts) (bool, string, error) {
		judged, err := judgeRequest(r)
		if errors.Is(err, errBodyTooLarge) {
			return false, "", tooLargeToConfirm(profile, rule, f)
		}
		if err != nil {
			return false, "", &brokerError{status: http.StatusBadRequest, message: fmt.Sprintf("kubecred guard refused: %s (profile %s): its body could not be read (%v), so it was not asked about; send it again", f.sentence(), profile, err)}
		}
		query, queryCut := printable(r.URL.RawQuery, queryPreviewLimit)
		fields := map[string]any{"profile": profile, "rule": rule, "request": map[string]any{
			"verb": f.verb, "group": f.group, "resource": f.resource, "subresource": f.subresource,
			"namespace": f.namespace, "name": f.name, "path": f.path, "method": f.method, "dryRun": f.dryRun,
			"query": query, "queryTruncated": queryCut, "digest": judged.digest, "body": judged.body.fields(),
		}}
		if pid, ok := requestPeerPID(r); ok {
			fields["pid"] = pid
		}
		ctx, cancel := context.WithTimeout(ctx, confirmTimeout)
		defer cancel()
		raw, err := ctl.call(ctx, "confirm", fields)
		if err != nil && ctl.isGone() {
			// The broker went while the question waited: whichever ended the wait first (its
			// pipe closing, or the listener closing behind it), that is what happened.
			return false, "", errBrokerGone
		}
		if err != nil {
			return false, "", err
		}
		var answer struct {
			Allow    bool   `json:"allow"`
			Reason   string `json:"reason"`
			TimedOut bool   `json:"timedOut"`
		}
		if err := json.Unmarshal(raw, &answer); err != nil {
			return false, "", fmt.Errorf("the broker's confirm reply: %v", err)
		}
		if !answer.Allow && answer.TimedOut {
			return false, "", errNobodyAnswered
		}
		return answer.Allow, answer.Reason, nil
	}
}

// requestPeerPID names the process on kubectl's end of the request's TCP connection.
func requestPeerPID(r *http.Request) (int, bool) {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return 0, false
	}
	remote, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return 0, false
	}
	return peerPID(local, net.TCPAddrFromAddrPort(remote))
}
