package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// requestGuard is a profile's rules against mistakes on a cluster that matters (a delete in
// prod typed into the wrong terminal): every request is judged before it goes upstream.
// Every matching rule applies and the strictest decides; a guard change never touches a
// stream or watch already open, since only a request's start is judged.
type requestGuard struct {
	rules    []guardRule
	offUntil time.Time // until then every request is allowed ("kubecred guard <p> off")
}

// Decisions as the audit event names them.
const (
	decisionAllowed   = "allowed"
	decisionRefused   = "refused"
	decisionConfirmed = "confirmed"
	decisionDeclined  = "declined"
	decisionUnlocked  = "unlocked"
	decisionTimedOut  = "timed-out"
)

// guardVerdict is the guard's answer to one request; nil when no rule matched (nothing to
// audit). A refusal carries what kubectl is told.
type guardVerdict struct {
	decision string
	rule     string // "" when unlocked
	status   int
	message  string
}

func (v *guardVerdict) refused() bool {
	return v != nil && (v.decision == decisionRefused || v.decision == decisionDeclined || v.decision == decisionTimedOut)
}

// confirmFunc asks the broker whether the user allows the request a confirm rule matched;
// reason is the user's or the broker's words for a refusal.
type confirmFunc func(ctx context.Context, rule string, f requestFacts) (allow bool, reason string, err error)

// decide applies the strictest matching rule: a deny, then a read-only rule against a write,
// then a confirm, else allowed.
func (g *requestGuard) decide(ctx context.Context, profile string, f requestFacts, now time.Time, confirm confirmFunc) *guardVerdict {
	if now.Before(g.offUntil) {
		return &guardVerdict{decision: decisionUnlocked}
	}
	// "/api//v1/…", "/api/v1/./…", "…/x/../y": no client writes these, and a server that
	// cleans a path the guard read otherwise could serve what a rule refuses. Refused unread.
	if len(g.rules) > 0 && !canonicalPath(f.path) {
		message := fmt.Sprintf("kubecred guard refused: %s %.200q is not a plain API path (an empty, \".\" or \"..\" segment), so the guard of profile %s cannot tell what it would do", f.method, f.path, profile)
		return &guardVerdict{decision: decisionRefused, status: http.StatusBadRequest, message: message}
	}
	var first, readOnly, confirmRule *guardRule
	for i := range g.rules {
		rule := &g.rules[i]
		if !rule.matches(f) {
			continue
		}
		if first == nil {
			first = rule
		}
		switch {
		case rule.action == actionDeny:
			return ruleRefusal(profile, rule, f)
		case rule.action == actionReadOnly && readOnly == nil:
			readOnly = rule
		case rule.action == actionConfirm && confirmRule == nil:
			confirmRule = rule
		}
	}
	switch {
	case first == nil:
		return nil
	case readOnly != nil && !f.isRead():
		return ruleRefusal(profile, readOnly, f)
	case confirmRule != nil:
		return askToConfirm(ctx, profile, confirmRule, f, confirm)
	}
	return &guardVerdict{decision: decisionAllowed, rule: first.name}
}

func ruleRefusal(profile string, rule *guardRule, f requestFacts) *guardVerdict {
	message := fmt.Sprintf("kubecred guard refused: %s (profile %s, %s). %s", f.sentence(), profile, ruleWords(rule), liftHint(profile))
	return &guardVerdict{decision: decisionRefused, rule: rule.name, status: http.StatusForbidden, message: message}
}

// ruleWords names the rule, and its action when the name does not say it already.
func ruleWords(rule *guardRule) string {
	if rule.name == rule.action {
		return fmt.Sprintf("rule %q", rule.name)
	}
	return fmt.Sprintf("rule %q: %s", rule.name, rule.action)
}

// liftHint is the command that unlocks the guard: a refusal should say how to go on when the
// user did mean it.
func liftHint(profile string) string {
	return fmt.Sprintf("To lift the guard for 15 minutes: kubecred guard %s off --for 15m", profile)
}

func askToConfirm(ctx context.Context, profile string, rule *guardRule, f requestFacts, confirm confirmFunc) *guardVerdict {
	allow, reason, err := confirm(ctx, rule.name, f)
	if err == nil && allow {
		return &guardVerdict{decision: decisionConfirmed, rule: rule.name}
	}
	v := &guardVerdict{decision: decisionRefused, rule: rule.name, status: http.StatusForbidden}
	var brokerSaid *brokerError
	switch {
	case err == nil:
		v.decision = decisionDeclined
		if reason == "" {
			reason = "declined in Kubecred"
		}
		v.message = fmt.Sprintf("kubecred guard refused: %s (profile %s, %s): %.300s. %s", f.sentence(), profile, ruleWords(rule), reason, liftHint(profile))
	case errors.As(err, &brokerSaid):
		v.message = brokerSaid.message
		if brokerSaid.status != 0 {
			v.status = brokerSaid.status
		}
	case errors.Is(err, errBrokerGone):
		// Not a refusal of the request: the question went with the broker. Nothing reached the cluster.
		v.status = http.StatusServiceUnavailable
		v.message = fmt.Sprintf("kubecred: %s (profile %s) was not sent: Kubecred stopped while it waited for your answer. Run the command again (Kubecred starts again with it)", f.sentence(), profile)
	case errors.Is(err, errNobodyAnswered):
		v.decision = decisionTimedOut
		v.message = fmt.Sprintf("kubecred guard refused: %s (profile %s, %s): %v. %s", f.sentence(), profile, ruleWords(rule), err, liftHint(profile))
	case errors.Is(err, context.DeadlineExceeded):
		v.decision = decisionTimedOut
		v.message = fmt.Sprintf("kubecred guard refused: %s (profile %s, %s): nobody answered in Kubecred within %d minutes. %s", f.sentence(), profile, ruleWords(rule), int(confirmTimeout.Minutes()), liftHint(profile))
	default:
		v.message = fmt.Sprintf("kubecred guard refused: %s (profile %s, %s): %v", f.sentence(), profile, ruleWords(rule), err)
	}
	return v
}

// canonicalPath: a path as clients write it, "/" and segments that are neither empty nor "."
// nor ".." (a trailing "/" is allowed: the apiserver reads it as the same path).
func canonicalPath(path string) bool {
	if !strings.HasPrefix(path, "/") {
		return false
	}
	for _, segment := range strings.Split(strings.TrimSuffix(path[1:], "/"), "/") {
		if segment == "." || segment == ".." || (segment == "" && path != "/") {
			return false
		}
	}
	return true
}
