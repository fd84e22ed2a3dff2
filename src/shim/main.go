// Command kubecred-shim is the Kubernetes exec plugin of Kubecred: a dumb
// pipe that forwards its arguments to the broker over a local socket and
// prints the answer. All logic lives in the broker (docs/wire-protocol.md),
// so this shim and the Node one cannot drift apart.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

const brokerGoneBackoff = 200 * time.Millisecond

const usage = "usage: kubecred-shim credential <profile> [options]  (Kubecred's exec plugin; see `kubecred help`)"

func main() {
	os.Exit(run(os.Args[1:], os.Environ(), os.Stdin, os.Stdout, os.Stderr))
}

func run(args, env []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	getenv := envGetter(env, runtime.GOOS)
	home, err := resolveHome(runtime.GOOS, getenv)
	if err != nil {
		return handover(args, env, getenv, stderr, msgNoBroker)
	}

	req := credentialRequest{
		Argv:            args,
		StdinIsTerminal: isTerminal(stdin),
		ParentPid:       os.Getppid(),
		Client:          "shim",
		Environment:     secretSourceEnvironment(getenv),
	}
	// Lookup, not getenv: the broker must tell "unset" (null) from "".
	if v, ok := lookupEnv(env, "KUBERNETES_EXEC_INFO", runtime.GOOS == "windows"); ok {
		req.ExecInfo = &v
	}

	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	notify := func(text string) { fmt.Fprintln(stderr, "kubecred: "+text) }
	ans, err := askBroker(ctx, home, getenv, req, notify)
	if errors.Is(err, errNoBroker) && !errors.Is(err, errBrokerBusy) && startBroker(ctx, home, env, getenv, notify) == nil {
		ans, err = askBroker(ctx, home, getenv, req, notify)
	}
	if errors.Is(err, errBrokerGone) {
		// Give a dying broker's socket a moment to stop accepting, then ask
		// once more: a live broker answers, a dead one means a handover that
		// starts a new one.
		time.Sleep(brokerGoneBackoff)
		ans, err = askBroker(ctx, home, getenv, req, notify)
	}
	if err == nil && ans.status == statusUnauthorized {
		// A broker restarted between our reading its secret and connecting
		// writes a new one: read it again, once.
		ans, err = askBroker(ctx, home, getenv, req, notify)
	}
	switch {
	case errors.Is(err, errNoBroker), errors.Is(err, errBrokerGone):
		// Gone twice: the CLI can wait for a broker to stop and start a new one.
		return handover(args, env, getenv, stderr, msgNoBroker)
	case err != nil:
		fmt.Fprintln(stderr, "kubecred: "+oneLine(err))
		return 1
	case ans.handover != "":
		// Any handover reason, not only "terminal": whatever the broker
		// cannot do through us, the CLI (the reference client) can.
		return handover(args, env, getenv, stderr, msgTerminal)
	case ans.status == statusOK:
		if _, err := stdout.Write(ans.body); err != nil {
			fmt.Fprintln(stderr, "kubecred: cannot write the credential: "+oneLine(err))
			return 1
		}
		return 0
	default:
		stderr.Write(ans.body)
		return ans.exitCode
	}
}

// oneLine keeps error output to a single, bounded line whatever the broker
// or the OS put into an error.
func oneLine(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
