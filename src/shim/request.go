package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
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

// errBrokerBusy: a broker listens but did not accept in time (its backlog is
// full); starting another one would not help.
var errBrokerBusy = errors.New("the broker did not accept the connection in time")

// errBrokerGone: the broker took the request and died before answering (a
// crash or a kill). A credential request is safe to repeat, so run asks again.
var errBrokerGone = errors.New("the broker closed the connection without answering")

// credentialRequest is the body of POST /v1/credential (encode writes it).
type credentialRequest struct {
	Argv            []string
	ExecInfo        *string // nil encodes as null: unset differs from ""
	StdinIsTerminal bool
	ParentPid       int
	Client          string
	// Where the caller's secrets come from; the broker names the ones its own differ in.
	Environment map[string]string
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

// brokerConn is the connection to the broker: a Unix socket, or a named pipe
// on Windows.
type brokerConn interface {
	io.ReadWriteCloser
	SetDeadline(time.Time) error
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

// Statuses the shim acts on (docs/wire-protocol.md); 102 is the interim
// answer that carries a notice.
const (
	noticeStatus       = 102
	statusOK           = 200
	statusUnauthorized = 401
)

// askBroker sends the request; notify gets each notice the broker sends while
// the request waits on the user (a login, an approval).
func askBroker(ctx context.Context, home string, getenv getenvFunc, req credentialRequest, notify func(string)) (*answer, error) {
	secret, err := readSecret(home)
	if err != nil {
		return nil, err
	}
	payload := req.encode()
	headers := [][2]string{
		{"Authorization", "Bearer " + secret},
		{"Content-Type", "application/json"},
		{"User-Agent", "kubecred-shim"},
		{"Kubecred-Accept-Notices", "1"},
	}
	if provesCallerByPipe {
		headers = append(headers, [2]string{"Kubecred-Caller-Check", "1"})
	}
	conn, err := dialBroker(ctx, home, getenv)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		conn.SetDeadline(deadline)
	}
	resp, err := exchange(conn, formatRequest("POST", "/v1/credential", headers, payload), maxAnswer, func(code int, h header) {
		if v := h.get("Kubecred-Notice"); code == noticeStatus && v != "" {
			notify(decodeNotice(v))
		}
		// Windows: the broker names this process by the one-time pipe it opens.
		if v := h.get("Kubecred-Caller-Check"); code == noticeStatus && v != "" && provesCallerByPipe {
			openCallerCheck(v)
		}
	})
	switch {
	case err == nil:
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, fmt.Errorf("no answer from the broker after %s", requestTimeout)
	case errors.Is(err, errCutShort):
		return nil, err
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return nil, errBrokerGone
	default:
		return nil, fmt.Errorf("no valid answer from the broker: %w", err)
	}
	if len(resp.body) > maxAnswer {
		return nil, fmt.Errorf("the broker's answer is larger than %d bytes", maxAnswer)
	}
	ans := &answer{
		status:   resp.status,
		handover: strings.TrimSpace(resp.header.get("Kubecred-Handover")),
		body:     resp.body,
		exitCode: failureExitCode(resp.header.get("Kubecred-Exit-Code")),
	}
	// kubectl parses stdout as JSON; a 200 that is not JSON would give a
	// confusing error there, so report it here instead.
	if ans.status == statusOK && ans.handover == "" && !json.Valid(resp.body) {
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
