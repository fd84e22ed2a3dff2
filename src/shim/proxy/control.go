package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// The control channel: JSON lines both ways. The broker sends init, listen, close, issue and
// revoke; the proxy sends sign (requests, numbered by their sender) and audit (events). The
// pipe is the proxy's lifeline: when it closes, the proxy closes every listener and returns.

type envelope struct {
	ID     *int64 `json:"id"`
	Type   string `json:"type"`
	Reply  bool   `json:"reply"`
	OK     bool   `json:"ok"`
	Error  string `json:"error"`
	Status int    `json:"status"`
}

// brokerError is a refusal the broker sent, with the HTTP status kubectl should see.
type brokerError struct {
	message string
	status  int
}

func (e *brokerError) Error() string { return e.message }

type controller struct {
	writeMu sync.Mutex
	out     io.Writer
	diag    io.Writer

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan json.RawMessage
	closed  bool
}

func newController(out, diag io.Writer) *controller {
	return &controller{out: out, diag: diag, pending: map[int64]chan json.RawMessage{}}
}

func (c *controller) send(message map[string]any) {
	line, err := json.Marshal(message)
	if err != nil {
		c.logf("cannot encode a %v message: %v", message["type"], err)
		return
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, _ = c.out.Write(append(line, '\n'))
}

func (c *controller) logf(format string, args ...any) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	fmt.Fprintf(c.diag, format+"\n", args...)
}

// call sends a request to the broker and waits for its reply (or the context's end).
func (c *controller) call(ctx context.Context, kind string, fields map[string]any) (json.RawMessage, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errors.New("the broker is gone")
	}
	c.nextID++
	id := c.nextID
	answer := make(chan json.RawMessage, 1)
	c.pending[id] = answer
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()
	message := map[string]any{"id": id, "type": kind}
	for k, v := range fields {
		message[k] = v
	}
	c.send(message)
	select {
	case raw, ok := <-answer:
		if !ok {
			return nil, errors.New("the broker is gone")
		}
		var head envelope
		if err := json.Unmarshal(raw, &head); err != nil {
			return nil, err
		}
		if !head.OK {
			return nil, &brokerError{message: head.Error, status: head.Status}
		}
		return raw, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *controller) reply(id int64, result map[string]any, err error) {
	message := map[string]any{"id": id, "reply": true, "ok": err == nil}
	if err != nil {
		message["error"] = err.Error()
	} else {
		for k, v := range result {
			message[k] = v
		}
	}
	c.send(message)
}

// serve reads the broker's lines until the pipe closes; each request runs on its own
// goroutine, so a slow one (a port that takes time to free) never holds up a sign reply.
func (c *controller) serve(in io.Reader, handle func(kind string, raw json.RawMessage) (map[string]any, error)) {
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for scanner.Scan() {
		raw := json.RawMessage(append([]byte(nil), scanner.Bytes()...))
		var head envelope
		if err := json.Unmarshal(raw, &head); err != nil || (head.ID == nil && head.Type == "") {
			c.logf("ignored a line that is not the protocol")
			continue
		}
		if head.Reply && head.ID != nil {
			c.mu.Lock()
			answer := c.pending[*head.ID]
			c.mu.Unlock()
			if answer != nil {
				answer <- raw
			}
			continue
		}
		if head.ID == nil {
			continue // no event goes this way yet
		}
		id := *head.ID
		go func() {
			result, err := handle(head.Type, raw)
			c.reply(id, result, err)
		}()
	}
	c.mu.Lock()
	c.closed = true
	for id, answer := range c.pending {
		close(answer)
		delete(c.pending, id)
	}
	c.mu.Unlock()
}
