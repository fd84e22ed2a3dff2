package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The request guard's rules as the broker sends them (guard message, or listen's "guard"),
// and whether one matches a request's facts.

const (
	actionReadOnly = "read-only"
	actionConfirm  = "confirm"
	actionDeny     = "deny"
)

type guardSettings struct {
	Rules    []guardRuleSettings `json:"rules"`
	OffUntil *string             `json:"offUntil"`
}

type guardRuleSettings struct {
	Name       string   `json:"name"`
	Action     string   `json:"action"`
	Verbs      []string `json:"verbs"`
	Resources  []string `json:"resources"`
	Namespaces []string `json:"namespaces"`
	Names      []string `json:"names"`
}

type guardRule struct {
	name       string
	action     string
	verbs      []string
	resources  []resourcePattern
	namespaces []string
	names      []string
}

// resourcePattern is one entry of a rule's resources: "pods", "pods/exec", "pods/*",
// "deployments.apps", or "*" (anyResource).
type resourcePattern struct {
	anyResource bool
	resource    string // "*": any resource name
	group       string
	qualified   bool   // a group was named: only that group matches
	subresource string // "": the resource itself only; "*": itself and any subresource
}

// compileGuard checks the settings once; nil is no guard (no rules).
func compileGuard(s guardSettings) (*requestGuard, error) {
	g := &requestGuard{}
	if s.OffUntil != nil {
		until, err := time.Parse(time.RFC3339, *s.OffUntil)
		if err != nil {
			return nil, fmt.Errorf("guard offUntil %.40q is not an RFC 3339 time", *s.OffUntil)
		}
		g.offUntil = until
	}
	for i, r := range s.Rules {
		switch r.Action {
		case actionReadOnly, actionConfirm, actionDeny:
		default:
			return nil, fmt.Errorf("guard rule %d (%.60q) has action %.30q: use read-only, confirm or deny", i+1, r.Name, r.Action)
		}
		rule := guardRule{name: r.Name, action: r.Action, verbs: r.Verbs, namespaces: r.Namespaces, names: r.Names}
		for _, entry := range r.Resources {
			rule.resources = append(rule.resources, parseResourcePattern(entry))
		}
		g.rules = append(g.rules, rule)
	}
	if len(g.rules) == 0 {
		return nil, nil
	}
	return g, nil
}

func parseResourcePattern(entry string) resourcePattern {
	if entry == "*" {
		return resourcePattern{anyResource: true}
	}
	resource, subresource, _ := strings.Cut(entry, "/")
	p := resourcePattern{resource: resource, subresource: subresource}
	if name, group, dotted := strings.Cut(resource, "."); dotted {
		p.resource, p.group, p.qualified = name, group, true
	}
	return p
}

// matches: a pattern without a subresource covers the resource's subresources too, since a
// write to pods/exec or deployments/scale acts on the pod or the deployment.
func (p resourcePattern) matches(e requestEffect) bool {
	if p.anyResource || e.everyResource {
		return true
	}
	if p.resource != "*" && p.resource != e.resource {
		return false
	}
	if p.qualified && p.group != e.group {
		return false
	}
	return p.subresource == "" || p.subresource == "*" || p.subresource == e.subresource
}

// matches: the rule holds for the request when it holds for one of its effects.
func (r guardRule) matches(f requestFacts) bool {
	return slices.ContainsFunc(effectsOf(f), r.matchesEffect)
}

// matchesEffect: every selector given must hold; one not given holds for anything. A selector
// holds for an effect on every namespace or every name, and not for an effect that has no
// resource, namespace or name at all.
func (r guardRule) matchesEffect(e requestEffect) bool {
	if len(r.verbs) > 0 && !slices.Contains(r.verbs, "*") && !slices.Contains(r.verbs, e.verb) {
		return false
	}
	if len(r.resources) > 0 {
		if e.nonResource || !slices.ContainsFunc(r.resources, func(p resourcePattern) bool { return p.matches(e) }) {
			return false
		}
	}
	if len(r.namespaces) > 0 && !e.everyNamespace && (e.namespace == "" || !slices.Contains(r.namespaces, e.namespace)) {
		return false
	}
	if len(r.names) > 0 && !e.everyName && (e.name == "" || !slices.Contains(r.names, e.name)) {
		return false
	}
	return true
}
