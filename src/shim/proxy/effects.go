package main

// A guard rule is about what a request does to the cluster, not how it is written: an
// eviction deletes its pod, a deletecollection deletes every object its scope holds whatever
// its selectors say, a cluster-wide list reads the objects of every namespace, and a
// namespace's deletion deletes everything in it. A deny or confirm rule written for the one
// request must hold for every other that has the same effect.

// requestEffect is one thing a request does; a request has one or more.
type requestEffect struct {
	nonResource bool
	verb        string
	group       string
	resource    string
	subresource string
	// everyResource: every kind of object in its scope (a namespace's deletion).
	everyResource bool
	namespace     string
	// everyNamespace: objects of every namespace (a cluster-wide collection request).
	everyNamespace bool
	name           string
	// everyName: any object in its scope (a collection, or a create whose name is in its body).
	everyName bool
}

// clusterScoped are built-in resources that have no namespace, so a request for all of them
// reads no namespace's objects. Any other resource (a custom one, say) may be namespaced: a
// cluster-wide list of it counts as a read of every namespace.
var clusterScoped = map[string]bool{
	"/namespaces": true, "/nodes": true, "/persistentvolumes": true, "/componentstatuses": true,
	"rbac.authorization.k8s.io/clusterroles": true, "rbac.authorization.k8s.io/clusterrolebindings": true,
	"storage.k8s.io/storageclasses": true, "storage.k8s.io/csidrivers": true, "storage.k8s.io/csinodes": true,
	"storage.k8s.io/volumeattachments": true, "storage.k8s.io/volumeattributesclasses": true,
	"apiextensions.k8s.io/customresourcedefinitions": true, "apiregistration.k8s.io/apiservices": true,
	"certificates.k8s.io/certificatesigningrequests": true, "certificates.k8s.io/clustertrustbundles": true,
	"scheduling.k8s.io/priorityclasses": true, "node.k8s.io/runtimeclasses": true,
	"networking.k8s.io/ingressclasses": true, "networking.k8s.io/ipaddresses": true, "networking.k8s.io/servicecidrs": true,
	"admissionregistration.k8s.io/mutatingwebhookconfigurations":     true,
	"admissionregistration.k8s.io/validatingwebhookconfigurations":   true,
	"admissionregistration.k8s.io/validatingadmissionpolicies":       true,
	"admissionregistration.k8s.io/validatingadmissionpolicybindings": true,
	"admissionregistration.k8s.io/mutatingadmissionpolicies":         true,
	"admissionregistration.k8s.io/mutatingadmissionpolicybindings":   true,
	"flowcontrol.apiserver.k8s.io/flowschemas":                       true,
	"flowcontrol.apiserver.k8s.io/prioritylevelconfigurations":       true,
	"resource.k8s.io/deviceclasses":                                  true, "resource.k8s.io/resourceslices": true,
}

func collectionVerb(verb string) bool {
	return verb == "list" || verb == "watch" || verb == "deletecollection"
}

// effectsOf is every effect of the request the guard's rules are matched against.
func effectsOf(f requestFacts) []requestEffect {
	if !f.resourceRequest {
		return []requestEffect{{nonResource: true, verb: f.verb}}
	}
	base := requestEffect{
		verb: f.verb, group: f.group, resource: f.resource, subresource: f.subresource,
		namespace: f.namespace, name: f.name,
	}
	if f.name == "" && (collectionVerb(f.verb) || f.verb == "create") {
		base.everyName = true
	}
	if f.namespace == "" && collectionVerb(f.verb) && !clusterScoped[f.group+"/"+f.resource] {
		base.everyNamespace = true
	}
	effects := []requestEffect{base}
	also := func(verb string) requestEffect {
		e := base
		e.verb = verb
		return e
	}
	switch {
	case f.verb == "list" || f.verb == "watch":
		effects = append(effects, also("get")) // a list carries every object whole
	case f.verb == "deletecollection":
		effects = append(effects, also("delete"))
	case f.verb == "patch" && f.applyPatch && f.subresource == "":
		effects = append(effects, also("create")) // an apply creates what is not there
	case f.verb == "create" && f.group == "" && f.resource == "pods" && f.subresource == "eviction":
		evicted := base
		evicted.verb, evicted.subresource = "delete", ""
		effects = append(effects, evicted)
	}
	if f.group == "" && f.resource == "namespaces" && f.subresource == "" && (f.verb == "delete" || f.verb == "deletecollection") {
		contents := requestEffect{verb: "delete", everyResource: true, everyName: true, namespace: f.name}
		if f.verb == "deletecollection" {
			contents.everyNamespace = true
		}
		effects = append(effects, contents)
	}
	return effects
}
