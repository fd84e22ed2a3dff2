package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// maxSocketPath leaves room under the smallest sun_path limit we ship to
// (macOS: 104 bytes including the NUL); the broker applies the same rule.
const maxSocketPath = 100

// errNoHome means no home can be derived from the environment. The shim
// treats it like a missing broker: the CLI owns the real error message.
var errNoHome = errors.New("cannot determine the Kubecred home directory")

// getenvFunc reads one variable from the environment the shim was given, so
// that path logic is pure and testable for every OS from any OS.
type getenvFunc func(string) string

// envGetter reads an environ slice like os.Getenv.
func envGetter(env []string, goos string) getenvFunc {
	return func(name string) string {
		v, _ := lookupEnv(env, name, goos == "windows")
		return v
	}
}

// lookupEnv is os.LookupEnv over a given environ. Windows variable names are
// case-insensitive (Path, AppData), elsewhere they are not.
func lookupEnv(env []string, name string, foldCase bool) (val string, found bool) {
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if ok && (k == name || (foldCase && strings.EqualFold(k, name))) {
			val, found = v, true // the last one wins, as in os.Getenv
		}
	}
	return val, found
}

// resolveHome mirrors the broker's home rule from docs/wire-protocol.md. goos
// is a parameter so every OS's rule is testable anywhere; the Windows path is
// built with a literal backslash for the same reason.
func resolveHome(goos string, getenv getenvFunc) (string, error) {
	if h := getenv("KUBECRED_HOME"); h != "" {
		// The same normalisation as the broker's path.resolve, so both hash the same string.
		if goos == runtime.GOOS {
			if abs, err := filepath.Abs(h); err == nil {
				return abs, nil
			}
		}
		return h, nil
	}
	switch goos {
	case "windows":
		if appdata := getenv("APPDATA"); appdata != "" {
			return strings.TrimRight(appdata, `\/`) + `\Kubecred`, nil
		}
	case "darwin":
		if home := getenv("HOME"); home != "" {
			return filepath.Join(home, "Library", "Application Support", "Kubecred"), nil
		}
	default:
		if xdg := getenv("XDG_CONFIG_HOME"); xdg != "" {
			return filepath.Join(xdg, "kubecred"), nil
		}
		if home := getenv("HOME"); home != "" {
			return filepath.Join(home, ".config", "kubecred"), nil
		}
	}
	return "", errNoHome
}

// homeHash names the fallback socket and the Windows pipe: short, stable per
// home, so several homes (tests, profiles) never share a broker.
func homeHash(home string) string {
	sum := sha256.Sum256([]byte(home))
	return hex.EncodeToString(sum[:])[:16]
}

// socketPath returns where the broker listens on unix, and whether that is the
// shared-tmpdir fallback (which the dialer must not trust blindly).
func socketPath(home, tmpdir string, uid int) (path string, fallback bool) {
	p := filepath.Join(home, "run", "broker.sock")
	if len(p) <= maxSocketPath {
		return p, false
	}
	if tmpdir == "" {
		tmpdir = "/tmp"
	}
	dir := filepath.Join(tmpdir, "kubecred-"+strconv.Itoa(uid))
	return filepath.Join(dir, homeHash(home)+".sock"), true
}

// pipeName is the Windows named pipe, hashed from the home exactly as given.
func pipeName(home string) string {
	return `\\.\pipe\kubecred-` + homeHash(home)
}

func secretPath(home string) string {
	return filepath.Join(home, "run", "client-secret")
}
