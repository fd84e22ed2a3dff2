//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// What Node runs the broker with: src/main/platform/daemonNodeFlags.ts.
const daemonNodeOptions = "--max-semi-space-size=1"

const (
	// alreadyRunningExit: the daemon found another broker holding the lock.
	alreadyRunningExit = 3
	brokerStartTimeout = 10 * time.Second
	brokerStartPoll    = 5 * time.Millisecond
	// A start takes a third of a second; past this, kubectl's terminal is told what it waits on.
	brokerStartNotice = time.Second
)

// startBroker starts the broker when none answers, and waits until it does.
// Through the CLI the first kubectl call waited for two Node starts (the CLI,
// then the daemon it starts); here it waits for the daemon's alone. Any
// failure is returned, and the caller hands over to the CLI, which starts a
// broker the long way or says what is wrong.
func startBroker(ctx context.Context, home string, env []string, getenv getenvFunc, notify func(string)) error {
	cli, err := findCLI(getenv)
	if err != nil {
		return err
	}
	var ours *startedBroker
	if _, running := lockOwner(home); !running {
		if ours, err = spawnBroker(cli, home, env); err != nil {
			return err
		}
	}
	started := time.Now()
	deadline := started.Add(brokerStartTimeout)
	told := false
	for time.Now().Before(deadline) {
		if !told && time.Since(started) > brokerStartNotice {
			told = true
			notify(fmt.Sprintf("starting the Kubecred broker (its log: %s)", filepath.Join(home, "state", "daemon.log")))
		}
		if brokerAnswers(ctx, home, getenv) {
			ours.settle(home, deadline)
			return nil
		}
		if code, gone := ours.exitCode(brokerStartPoll); gone && code != alreadyRunningExit {
			return fmt.Errorf("the broker exited at start (code %d)", code)
		}
		// Still starting, or another caller's broker won the lock: wait for that one.
	}
	return errors.New("the broker did not start in time")
}

// startedBroker is a daemon this shim started.
type startedBroker struct {
	pid    int
	exited chan int
	code   *int
}

// exitCode waits up to d for the daemon to exit; gone reports whether it has.
func (b *startedBroker) exitCode(d time.Duration) (code int, gone bool) {
	if b == nil {
		time.Sleep(d)
		return 0, false
	}
	if b.code == nil {
		select {
		case c := <-b.exited:
			b.code = &c
		case <-time.After(d):
			return 0, false
		}
	}
	return *b.code, true
}

// settle waits until a daemon that lost the race to another caller's has
// given up, so no late starter outlives the broker that serves.
func (b *startedBroker) settle(home string, deadline time.Time) {
	for b != nil && time.Now().Before(deadline) {
		if owner, _ := lockOwner(home); owner == b.pid {
			return
		}
		if _, gone := b.exitCode(brokerStartPoll); gone {
			return
		}
	}
}

// lockOwner is the pid in the broker's lock (src/main/server/instanceLock.ts),
// and whether that process lives: a broker running or on its way.
func lockOwner(home string) (pid int, alive bool) {
	b, err := os.ReadFile(filepath.Join(home, "run", "broker.lock"))
	if err != nil {
		return 0, false
	}
	pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	err = syscall.Kill(pid, 0)
	return pid, err == nil || errors.Is(err, syscall.EPERM)
}

// brokerAnswers: a client secret is there and the socket accepts.
func brokerAnswers(ctx context.Context, home string, getenv getenvFunc) bool {
	if _, err := readSecret(home); err != nil {
		return false
	}
	conn, err := dialBroker(ctx, home, getenv)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// spawnBroker runs `<cli> daemon` in a session of its own, with the
// session's variables, its output in the daemon log.
func spawnBroker(cli, home string, env []string) (*startedBroker, error) {
	stateDir := filepath.Join(home, "state")
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return nil, err
	}
	logFile, err := os.OpenFile(filepath.Join(stateDir, "daemon.log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer devNull.Close()
	callerDir, _ := os.Getwd()
	process, err := os.StartProcess(cli, []string{cli, "daemon"}, &os.ProcAttr{
		Dir:   home,
		Env:   append(sessionEnvironment(env, callerDir), "NODE_OPTIONS="+daemonNodeOptions),
		Files: []*os.File{devNull, logFile, logFile},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		return nil, err
	}
	started := &startedBroker{pid: process.Pid, exited: make(chan int, 1)}
	go func() {
		if state, err := process.Wait(); err == nil {
			started.exited <- state.ExitCode()
		}
	}()
	return started, nil
}
