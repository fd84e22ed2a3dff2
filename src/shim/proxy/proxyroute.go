package main

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
)

// proxyPasswordField is the secret a profile keeps its proxy's password under, for a proxy URL
// that names only its user (PROXY_PASSWORD_FIELD in src/shared/config/schema.ts).
const proxyPasswordField = "proxy-password"

// upstreamProxy is a route's own proxy settings, as the broker hands them over: the profile's
// proxyUrl (as kubeconfig's proxy-url; never with a password in it), and the password kept in
// the profile's keychain for a proxy URL that names a user only (the profile's, or where it
// has none, the environment's). Both absent: the environment's proxy, as it is.
type upstreamProxy struct {
	URL      string `json:"url,omitempty"`
	Password string `json:"password,omitempty"`
}

// proxyRoute is the proxy one upstream connection goes through, and how messages name it.
type proxyRoute struct {
	proxy *url.URL
	// source is where the proxy's address came from: HTTPS_PROXY, or the profile's proxyUrl.
	source string
	// profile is whose route this is: the keychain keeps its proxy password.
	profile string
	// userOnly: the URL names a user and no password, which the keychain keeps.
	userOnly bool
	// storedPassword is that password, as the broker read it from the keychain; empty: none kept.
	storedPassword string
	// profiles: the profile's own proxyUrl, which NO_PROXY does not apply to.
	profiles bool
}

// proxyChoice says which proxy, if any, a connection to a server goes through; nil: straight.
type proxyChoice func(target *url.URL) (*proxyRoute, error)

// environmentProxy is the proxy the person's tools use for a server (HTTPS_PROXY, NO_PROXY...),
// as kubectl decides it: Go's own rules, read from this process's environment, which the broker
// passes on. nil: straight to the server.
func environmentProxy(target *url.URL) (*url.URL, error) {
	return http.ProxyFromEnvironment(&http.Request{URL: target})
}

// proxySource names the variable a proxy came from, for messages.
func proxySource() string {
	for _, name := range []string{"HTTPS_PROXY", "https_proxy"} {
		if os.Getenv(name) != "" {
			return name
		}
	}
	return "HTTPS_PROXY"
}

// shownProxy is the proxy as messages may show it: never its user or password.
func shownProxy(proxy *url.URL) string {
	return proxy.Scheme + "://" + proxy.Host
}

// parseProfileProxy checks a profile's proxyUrl. Its errors never quote the URL: a password
// put in it by mistake must not reach a message.
func parseProfileProxy(profile, raw string) (*url.URL, error) {
	where := fmt.Sprintf("proxyUrl of profile %q", profile)
	proxy, err := url.Parse(raw)
	if err != nil || (proxy.Scheme != "http" && proxy.Scheme != "https") || proxy.Host == "" {
		return nil, fmt.Errorf("the %s is not an http(s)://[user@]host:port URL: fix it in config.yaml", where)
	}
	if _, hasPassword := proxy.User.Password(); hasPassword {
		return nil, fmt.Errorf("the %s holds a password: name only the user (http://user@host:port) and keep the password with kubecred secret set %s %s", where, profile, proxyPasswordField)
	}
	return proxy, nil
}

// proxyChoiceOf is a route's way to its proxy: the profile's own proxy for every connection
// (NO_PROXY, written for the person's usual proxy, does not apply to it, as with kubeconfig's
// proxy-url), else the environment's as Go decides it. The stored password goes with a URL
// that names only its user.
func proxyChoiceOf(profile string, own *url.URL, storedPassword string, environment func(*url.URL) (*url.URL, error)) proxyChoice {
	withPassword := func(route *proxyRoute) *proxyRoute {
		if user := route.proxy.User; user != nil && user.Username() != "" {
			if _, hasPassword := user.Password(); !hasPassword {
				route.userOnly, route.storedPassword = true, storedPassword
			}
		}
		return route
	}
	return func(target *url.URL) (*proxyRoute, error) {
		if own != nil {
			return withPassword(&proxyRoute{proxy: own, profile: profile, source: fmt.Sprintf("proxyUrl of profile %q", profile), profiles: true}), nil
		}
		proxy, err := environment(target)
		if err != nil {
			// Not the parser's words: they quote the setting, which may hold a password.
			return nil, fmt.Errorf("the proxy setting %s cannot be used: %w", proxySource(), errUnusableProxySetting)
		}
		if proxy == nil {
			return nil, nil
		}
		return withPassword(&proxyRoute{proxy: proxy, profile: profile, source: proxySource()}), nil
	}
}

var errUnusableProxySetting = errors.New("it is not an http(s)://[user:password@]host:port URL")

// passwordSetting is the command that keeps the profile's proxy password in the keychain.
func (p *proxyRoute) passwordSetting() string {
	return fmt.Sprintf("kubecred secret set %s %s", p.profile, proxyPasswordField)
}
