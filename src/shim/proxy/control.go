package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// The control channel: JSON lines both ways, over the broker's socket (channel.go). Every
// message is declared in channelmessages.go and src/shared/api/proxyControl.ts. The broker
// sends init, listen, close, issue, revoke, guard, credential and stats; the proxy sends sign,
// credential and confirm (requests, numbered by their sender) and audit (events). The channel
// is the proxy's lifeline: when it closes, the proxy closes every listener and returns.

// maxLine bounds one control line: a certificate chain is a few KiB, so anything near this is
// not the protocol, and it must not cost unbounded memory.
const maxLine = 4 << 20

// header holds the fields the channel itself routes on; handlers decode the rest.
type header struct {
	ID     *int64 `json:"id"`
	Type   string `json:"type"`
	Reply  bool   `json:"reply"`
	OK     bool   `json:"ok"`
	Error  string `json:"error"`
	Status int    `json:"status"`
}

// brokerError is a refusal the broker sent, with the HTTP status kubectl should see (0: none).
type brokerError struct {
	message string
	status  int
}

func (e *brokerError) Error() string { return e.message }

var errBrokerGone = errors.New("the broker is gone: it closed kubecred-proxy's control channel")

type handlerFunc func(kind string, raw json.RawMessage) (map[string]any, error)

type controller struct {
	writeMu sync.Mutex
	out     io.Writer
	diag    io.Writer

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan json.RawMessage
	gone    bool
}

func newController(out, diag io.Writer) *controller {
	return &controller{out: out, diag: diag, pending: map[int64]chan json.RawMessage{}}
}

// send writes one message as one line; the lock keeps concurrent writers' lines whole.
func (c *controller) send(message map[string]any) {
	line, err := json.Marshal(message)
	if err != nil {
		c.logf("cannot encode a %v message: %v", message["type"], err)
		return
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	// A failed write means the broker is going; its stdin EOF ends the proxy.
	_, _ = c.out.Write(append(line, '\n'))
}

// logf writes one diagnostic line. Callers never pass a key, a certificate or a control line:
// stderr ends up in the broker's log.
func (c *controller) logf(format string, args ...any) {
	line := strings.ReplaceAll(strings.TrimRight(fmt.Sprintf(format, args...), "\n"), "\n", " ")
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	fmt.Fprintf(c.diag, "kubecred-proxy: %s\n", line)
}

// call sends a request to the broker and waits for its reply, the context's end or the pipe's.
func (c *controller) call(ctx context.Context, kind string, fields map[string]any) (json.RawMessage, error) {
	c.mu.Lock()
	if c.gone {
		c.mu.Unlock()
		return nil, errBrokerGone
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
	message := map[string]any{}
	for k, v := range fields {
		message[k] = v
	}
	message["id"], message["type"] = id, kind
	c.send(message)
	select {
	case raw, ok := <-answer:
		if !ok {
			return nil, errBrokerGone
		}
		var head header
		if err := json.Unmarshal(raw, &head); err != nil {
			return nil, err
		}
		if !head.OK {
			message := head.Error
			if message == "" {
				message = fmt.Sprintf("the broker refused %s without saying why", kind)
			}
			return nil, &brokerError{message: message, status: head.Status}
		}
		return raw, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

func (c *controller) reply(id int64, result map[string]any, err error) {
	message := map[string]any{}
	if err != nil {
		message["error"] = err.Error()
	} else {
		for k, v := range result {
			message[k] = v
		}
	}
	message["id"], message["reply"], message["ok"] = id, true, err == nil
	c.send(message)
}

// serve reads the broker's lines until the pipe closes or fails. Each request runs on its own
// goroutine: a sign reply must get through while a listen or a revoke is still working.
func (c *controller) serve(in io.Reader, handle handlerFunc) {
	reader := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(reader)
		if tooLong {
			c.logf("ignored a control line longer than %d bytes", maxLine)
		} else if len(bytes.TrimSpace(line)) > 0 {
			c.dispatch(line, handle)
		}
		if err != nil {
			break
		}
	}
	c.shutdown()
}

func (c *controller) dispatch(line []byte, handle handlerFunc) {
	var head header
	// The line itself is never logged: an init line carries the local CA's key.
	if err := json.Unmarshal(line, &head); err != nil {
		c.logf("ignored a control line that is not a JSON object of the protocol (%d bytes)", len(line))
		return
	}
	switch {
	case head.Reply && head.ID != nil:
		c.mu.Lock()
		answer := c.pending[*head.ID]
		c.mu.Unlock()
		if answer == nil {
			c.logf("ignored a reply to id %d, which has no request waiting (it timed out, or was never sent)", *head.ID)
			return
		}
		answer <- json.RawMessage(line)
	case head.ID == nil:
		c.logf("ignored a control line without an id (type %.40q): the broker sends no events", head.Type)
	default:
		id, kind := *head.ID, head.Type
		raw := json.RawMessage(line)
		go func() {
			result, err := handle(kind, raw)
			c.reply(id, result, err)
		}()
	}
}

// shutdown fails every request still waiting for the broker; later calls fail at once.
func (c *controller) shutdown() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone {
		return
	}
	c.gone = true
	for id, answer := range c.pending {
		close(answer)
		delete(c.pending, id)
	}
}

// readLine returns the next line without its newline; an over-long line is consumed and
// reported instead of ending the channel (bufio.Scanner would stop at it).
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxLine {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// isGone says whether the broker's end of the channel has closed.
func (c *controller) isGone() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gone
}
