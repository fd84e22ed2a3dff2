package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The shim speaks the few bytes of HTTP/1.1 the broker's answer needs by
// hand: net/http (and the TLS and x509 packages it brings) took half a
// millisecond to initialise on every kubectl call, longer than the broker
// takes to answer.

// Bounds on what a broken broker can make the shim hold.
const (
	maxHeaderLine  = 16 << 10
	maxHeaderLines = 100
	// Interim answers (notices) a login may send while it waits on a person.
	maxInterim = 10_000
)

var (
	// errMalformed: the peer does not speak the broker's HTTP.
	errMalformed = errors.New("malformed HTTP answer")
	// errCutShort: the answer began and its body ended early.
	errCutShort = errors.New("the broker's answer was cut short")
)

type header map[string]string

// get returns the header's value; names are matched case-insensitively.
func (h header) get(name string) string { return h[strings.ToLower(name)] }

type exchangeAnswer struct {
	status int
	header header
	body   []byte
}

// formatRequest is the request line, the headers in the given order and the body.
func formatRequest(method, target string, headers [][2]string, body []byte) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: localhost\r\n", method, target)
	for _, h := range headers {
		b.WriteString(h[0] + ": " + h[1] + "\r\n")
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\nConnection: close\r\n\r\n", len(body))
	return append([]byte(b.String()), body...)
}

// exchange writes one request and reads its answer. Each interim (1xx)
// answer goes to onInterim as it arrives; the final one is returned with
// at most maxBody bytes of body (one more is read, so a caller can tell an
// oversized body).
func exchange(conn io.ReadWriter, request []byte, maxBody int, onInterim func(status int, h header)) (*exchangeAnswer, error) {
	if _, err := conn.Write(request); err != nil {
		return nil, err
	}
	r := bufio.NewReader(conn)
	for interim := 0; ; interim++ {
		status, h, err := readHead(r)
		if err != nil {
			return nil, err
		}
		if status >= 100 && status < 200 {
			if interim >= maxInterim {
				return nil, fmt.Errorf("%w: more than %d interim answers", errMalformed, maxInterim)
			}
			onInterim(status, h)
			continue
		}
		body, err := readBody(r, h, maxBody)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errCutShort, err)
		}
		return &exchangeAnswer{status: status, header: h, body: body}, nil
	}
}

// readHead reads a status line and its headers.
func readHead(r *bufio.Reader) (int, header, error) {
	line, err := readLine(r)
	if err != nil {
		return 0, nil, err
	}
	version, rest, _ := strings.Cut(line, " ")
	code, _, _ := strings.Cut(rest, " ")
	status, err := strconv.Atoi(code)
	if !strings.HasPrefix(version, "HTTP/1.") || err != nil || status < 100 || status > 999 {
		return 0, nil, fmt.Errorf("%w: status line %q", errMalformed, truncate(line, 80))
	}
	h := header{}
	for n := 0; ; n++ {
		line, err := readLine(r)
		if err != nil {
			return 0, nil, err
		}
		if line == "" {
			return status, h, nil
		}
		if n >= maxHeaderLines {
			return 0, nil, fmt.Errorf("%w: more than %d headers", errMalformed, maxHeaderLines)
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return 0, nil, fmt.Errorf("%w: header line %q", errMalformed, truncate(line, 80))
		}
		h[strings.ToLower(name)] = strings.TrimSpace(value)
	}
}

// readLine reads one CRLF (or LF) terminated line of at most maxHeaderLine
// bytes. A connection that ends before any byte is io.EOF, one that ends
// inside a line io.ErrUnexpectedEOF: the caller can tell a broker that went
// away from one that answered badly.
func readLine(r *bufio.Reader) (string, error) {
	var line []byte
	for {
		part, err := r.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > maxHeaderLine+2 {
			return "", fmt.Errorf("%w: a header line longer than %d bytes", errMalformed, maxHeaderLine)
		}
		switch {
		case err == nil:
			return strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return "", io.ErrUnexpectedEOF
		default:
			return "", err
		}
	}
}

// readBody reads a body framed by Content-Length, by chunks, or by the
// connection's end, at most maxBody+1 bytes of it.
func readBody(r *bufio.Reader, h header, maxBody int) ([]byte, error) {
	limit := int64(maxBody) + 1
	if strings.EqualFold(h.get("Transfer-Encoding"), "chunked") {
		return readChunked(r, limit)
	}
	if v := h.get("Content-Length"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%w: Content-Length %q", errMalformed, truncate(v, 40))
		}
		body, err := io.ReadAll(io.LimitReader(r, min(n, limit)))
		if err == nil && int64(len(body)) < min(n, limit) {
			err = io.ErrUnexpectedEOF
		}
		return body, err
	}
	return io.ReadAll(io.LimitReader(r, limit))
}

func readChunked(r *bufio.Reader, limit int64) ([]byte, error) {
	var body []byte
	for {
		line, err := readLine(r)
		if err != nil {
			return nil, unexpectedEOF(err)
		}
		sizeText, _, _ := strings.Cut(line, ";")
		size, err := strconv.ParseInt(strings.TrimSpace(sizeText), 16, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("%w: chunk size %q", errMalformed, truncate(line, 40))
		}
		if size == 0 {
			return body, nil // trailers, if any, are not needed
		}
		take := min(size, limit-int64(len(body)))
		chunk := make([]byte, take)
		if _, err := io.ReadFull(r, chunk); err != nil {
			return nil, unexpectedEOF(err)
		}
		body = append(body, chunk...)
		if int64(len(body)) >= limit {
			return body, nil
		}
		if _, err := r.Discard(2); err != nil { // the chunk's CRLF
			return nil, unexpectedEOF(err)
		}
	}
}

func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
