package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	connectTimeout = 2 * time.Second
	// A login (browser, PIN, approval) can keep the answer pending for
	// minutes; this only stops a wedged broker from hanging kubectl forever.
	requestTimeout = 15 * time.Minute
	// Far above any ExecCredential; stops a broken broker from eating memory.
	maxAnswer = 8 << 20
)

// errNoBroker marks every "nobody is listening" case; run hands over to the
// CLI, which can start the broker.
var errNoBroker = errors.New("the Kubecred broker is not running")

// errBrokerGone: the broker took the request and died before answering (a
// crash or a kill). A credential request is safe to repeat, so run asks again.
var errBrokerGone = errors.New("the broker closed the connection without answering")

type credentialRequest struct {
	Argv            []string `json:"argv"`
	ExecInfo        *string  `json:"execInfo"` // nil encodes as null: unset differs from ""
	StdinIsTerminal bool     `json:"stdinIsTerminal"`
	ParentPid       int      `json:"parentPid"`
	Client          string   `json:"client"`
	// Where the caller's secrets come from; the broker names the ones its own differ in.
	Environment map[string]string `json:"environment,omitempty"`
}

// secretSourceVariables: src/shared/api/secretSourceVariables.ts (addresses and paths, never secrets).
var secretSourceVariables = []string{"DBUS_SESSION_BUS_ADDRESS", "SOFTHSM2_CONF", "OPENSC_CONF"}

func secretSourceEnvironment(getenv func(string) string) map[string]string {
	picked := map[string]string{}
	for _, name := range secretSourceVariables {
		if v := getenv(name); v != "" {
			picked[name] = v
		}
	}
	return picked
}

type answer struct {
	status   int
	exitCode int
	handover string
	body     []byte
}

func readSecret(home string) (string, error) {
	path := secretPath(home)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: no %s", errNoBroker, path)
	}
	if err != nil {
		return "", fmt.Errorf("cannot read the client secret file %s: %w", path, err)
	}
	secret := strings.TrimSpace(string(b))
	if secret == "" {
		// The broker writes it at start; empty means a start in progress or
		// a crash, and the CLI knows how to wait for or restart the broker.
		return "", fmt.Errorf("%w: %s is empty", errNoBroker, path)
	}
	for _, r := range secret {
		if r <= ' ' || r > '~' {
			return "", fmt.Errorf("the client secret file %s is malformed", path) // never echo its content
		}
	}
	return secret, nil
}

// noticeStatus is the interim status that carries a notice (docs/wire-protocol.md).
const noticeStatus = 102

// askBroker sends the request; notify gets each notice the broker sends while
// the request waits on the user (a login, an approval).
func askBroker(ctx context.Context, home string, getenv getenvFunc, req credentialRequest, notify func(string)) (*answer, error) {
	secret, err := readSecret(home)
	if err != nil {
		return nil, err
	}
	payload, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return dialBroker(ctx, home, getenv)
		},
		Proxy:              nil, // HTTP(S)_PROXY must never see a local socket request
		DisableKeepAlives:  true,
		DisableCompression: true, // the body is relayed byte for byte
	}}
	// Host "localhost" is what `curl --unix-socket` sends; the broker may
	// check Host against DNS rebinding.
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://localhost/v1/credential", bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Authorization", "Bearer "+secret)
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("User-Agent", "kubecred-shim")
	hreq.Header.Set("Kubecred-Accept-Notices", "1")
	if provesCallerByPipe {
		hreq.Header.Set("Kubecred-Caller-Check", "1")
	}
	hreq = hreq.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		Got1xxResponse: func(code int, header textproto.MIMEHeader) error {
			if v := header.Get("Kubecred-Notice"); code == noticeStatus && v != "" {
				notify(decodeNotice(v))
			}
			// Windows: the broker names this process by the one-time pipe it opens.
			if v := header.Get("Kubecred-Caller-Check"); code == noticeStatus && v != "" && provesCallerByPipe {
				openCallerCheck(v)
			}
			return nil
		},
	}))

	resp, err := client.Do(hreq)
	if err != nil {
		if errors.Is(err, errNoBroker) {
			return nil, err
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("no answer from the broker after %s", requestTimeout)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // drop the `Post "http://localhost/..."` noise
		}
		if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
			return nil, errBrokerGone
		}
		return nil, fmt.Errorf("no valid answer from the broker: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("the broker's answer was cut short: %w", err)
	}
	if len(body) > maxAnswer {
		return nil, fmt.Errorf("the broker's answer is larger than %d bytes", maxAnswer)
	}
	ans := &answer{
		status:   resp.StatusCode,
		handover: strings.TrimSpace(resp.Header.Get("Kubecred-Handover")),
		body:     body,
		exitCode: failureExitCode(resp.Header.Get("Kubecred-Exit-Code")),
	}
	// kubectl parses stdout as JSON; a 200 that is not JSON would give a
	// confusing error there, so report it here instead.
	if ans.status == http.StatusOK && ans.handover == "" && !json.Valid(body) {
		return nil, errors.New("the broker answered 200 with a body that is not JSON")
	}
	return ans, nil
}

// failureExitCode: kubectl reads any zero exit as success, so a failure must
// never exit 0 whatever the header says.
func failureExitCode(h string) int {
	n, err := strconv.Atoi(strings.TrimSpace(h))
	if err != nil || n < 1 || n > 255 {
		return 1
	}
	return n
}

// decodeNotice undoes the broker's percent-encoding and keeps only printable
// text: a notice goes to a terminal, where escapes could move the cursor or
// retitle the window.
func decodeNotice(v string) string {
	if d, err := url.PathUnescape(v); err == nil {
		v = d
	}
	return strings.Map(func(r rune) rune {
		if r < ' ' || (r >= 0x7f && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return -1
		}
		return r
	}, v)
}
