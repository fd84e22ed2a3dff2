package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The broker a shim starts serves every shell after it, so it gets the
// session's variables only, never the rest of kubectl's environment (a
// secret exported in one shell). The rule is the CLI's, which starts the
// broker otherwise: src/main/platform/sessionEnvironment.ts and
// sharedSearchPath.ts (test/unit/platform/shimSessionEnvironment.test.ts
// checks that the two agree).

var sessionNames = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true, "TZ": true,
	"TMPDIR": true, "LANG": true, "LANGUAGE": true,
	"DBUS_SESSION_BUS_ADDRESS": true, "DISPLAY": true, "WAYLAND_DISPLAY": true, "XAUTHORITY": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "ALL_PROXY": true,
	"http_proxy": true, "https_proxy": true, "no_proxy": true, "all_proxy": true,
	"NODE_EXTRA_CA_CERTS": true, "SSL_CERT_FILE": true, "SSL_CERT_DIR": true,
	"SOFTHSM2_CONF": true, "OPENSC_CONF": true,
	"SYSTEMROOT": true, "SystemRoot": true, "WINDIR": true, "windir": true, "COMSPEC": true,
	"ComSpec": true, "PATHEXT": true, "APPDATA": true, "LOCALAPPDATA": true, "USERPROFILE": true,
	"PROGRAMDATA": true, "ProgramData": true,
}

// sessionFamilies: a prefix and the characters allowed after it (at least one).
var sessionFamilies = []struct{ prefix, rest string }{
	{"LC_", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
	{"XDG_", "ABCDEFGHIJKLMNOPQRSTUVWXYZ_"},
	{"KUBECRED_", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"},
}

func isSessionVariable(name string) bool {
	if sessionNames[name] {
		return true
	}
	for _, f := range sessionFamilies {
		rest, ok := strings.CutPrefix(name, f.prefix)
		if ok && rest != "" && strings.Trim(rest, f.rest) == "" {
			return true
		}
	}
	return false
}

// sessionEnvironment keeps the session's variables of env, with a PATH fit
// for every shell (sharedSearchPath); callerDir is kubectl's working directory.
func sessionEnvironment(env []string, callerDir string) []string {
	kept := []string{}
	home, _ := lookupEnv(env, "HOME", false)
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !isSessionVariable(name) {
			continue
		}
		if name == "PATH" {
			value = sharedSearchPath(value, callerDir, home, hasProjectMarker)
		}
		kept = append(kept, name+"="+value)
	}
	return kept
}

// sharedSearchPath drops relative PATH entries, entries inside the caller's
// directory unless that directory is the home or above it, and entries inside
// the outermost project holding the caller below the home (a directory
// isProject names: direnv adds a repository's bin/ for its subdirectories
// too): a project's bin/ must not become every shell's.
func sharedSearchPath(searchPath, callerDir, home string, isProject func(string) bool) string {
	var dropped []string
	if home == "" || !within(home, callerDir) {
		dropped = append(dropped, callerDir)
	}
	if project := outermostProject(callerDir, home, isProject); project != "" {
		dropped = append(dropped, project)
	}
	kept := []string{}
	for _, entry := range filepath.SplitList(searchPath) {
		if entry == "" || !filepath.IsAbs(entry) {
			continue
		}
		if slices.ContainsFunc(dropped, func(dir string) bool { return within(filepath.Clean(entry), dir) }) {
			continue
		}
		kept = append(kept, entry)
	}
	return strings.Join(kept, string(filepath.ListSeparator))
}

// outermostProject walks up from dir, short of the home and of the root, to
// the last directory isProject names; "" when none.
func outermostProject(dir, home string, isProject func(string) bool) string {
	found := ""
	for dir = filepath.Clean(dir); filepath.Dir(dir) != dir; dir = filepath.Dir(dir) {
		if home != "" && within(home, dir) {
			break
		}
		if isProject(dir) {
			found = dir
		}
	}
	return found
}

// projectMarkers make a directory a project's: version control, or direnv's file.
var projectMarkers = []string{".git", ".hg", ".svn", ".envrc"}

func hasProjectMarker(dir string) bool {
	for _, marker := range projectMarkers {
		if _, err := os.Lstat(filepath.Join(dir, marker)); err == nil {
			return true
		}
	}
	return false
}

// within: dir is parent or below it.
func within(dir, parent string) bool {
	rel, err := filepath.Rel(parent, dir)
	return err == nil && (rel == "." || (!strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel)))
}
