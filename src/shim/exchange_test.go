package main

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
)

// answerWith runs exchange against a peer that reads the request and writes
// the given bytes, then closes.
func answerWith(t *testing.T, raw string, maxBody int) (*exchangeAnswer, []int, error) {
	t.Helper()
	client, server := net.Pipe()
	go func() {
		buf := make([]byte, 4096)
		server.Read(buf)
		io.WriteString(server, raw)
		server.Close()
	}()
	defer client.Close()
	var interim []int
	ans, err := exchange(client, formatRequest("POST", "/v1/credential", nil, []byte("{}")), maxBody, func(code int, h header) {
		interim = append(interim, code)
	})
	return ans, interim, err
}

func TestExchangeReadsEveryFraming(t *testing.T) {
	for name, raw := range map[string]string{
		"length":  "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"a\":\"b c\"}",
		"chunked": "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n7\r\n:\"b c\"}\r\n0\r\n\r\n",
		"close":   "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{\"a\":\"b c\"}",
		"bare LF": "HTTP/1.1 200 OK\nContent-Length: 11\n\n{\"a\":\"b c\"}",
	} {
		t.Run(name, func(t *testing.T) {
			ans, _, err := answerWith(t, raw, 100)
			if err != nil || ans.status != 200 || string(ans.body) != `{"a":"b c"}` {
				t.Fatalf("got %+v %v", ans, err)
			}
		})
	}
}

func TestExchangeHandsOnEachInterimAnswer(t *testing.T) {
	raw := "HTTP/1.1 102 Processing\r\nKubecred-Notice: one\r\n\r\nHTTP/1.1 102 Processing\r\nKUBECRED-NOTICE: two\r\n\r\nHTTP/1.1 403 Forbidden\r\nKubecred-Exit-Code: 4\r\nContent-Length: 2\r\n\r\nno"
	ans, interim, err := answerWith(t, raw, 100)
	if err != nil || len(interim) != 2 || ans.status != 403 || ans.header.get("kubecred-exit-code") != "4" || string(ans.body) != "no" {
		t.Fatalf("got %+v %v %v", ans, interim, err)
	}
}

func TestExchangeBoundsWhatABrokenPeerSends(t *testing.T) {
	for name, c := range map[string]struct {
		raw  string
		want error
	}{
		"long header":   {"HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", maxHeaderLine+1) + "\r\n\r\n", errMalformed},
		"many headers":  {"HTTP/1.1 200 OK\r\n" + strings.Repeat("X: y\r\n", maxHeaderLines+1) + "\r\n", errMalformed},
		"no colon":      {"HTTP/1.1 200 OK\r\nnonsense\r\n\r\n", errMalformed},
		"bad length":    {"HTTP/1.1 200 OK\r\nContent-Length: -4\r\n\r\n", errCutShort},
		"bad chunk":     {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", errCutShort},
		"nothing":       {"", io.EOF},
		"head cut":      {"HTTP/1.1 200 OK\r\nContent-Le", io.ErrUnexpectedEOF},
		"body cut":      {"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n{}", errCutShort},
		"not HTTP":      {"SSH-2.0-OpenSSH\r\n\r\n", errMalformed},
		"status letter": {"HTTP/1.1 2x0 OK\r\n\r\n", errMalformed},
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := answerWith(t, c.raw, 100); !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}

func TestExchangeReadsOneByteBeyondTheLimit(t *testing.T) {
	for _, raw := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n" + strings.Repeat("a", 20),
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n14\r\n" + strings.Repeat("a", 20) + "\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\n\r\n" + strings.Repeat("a", 20),
	} {
		ans, _, err := answerWith(t, raw, 10)
		if err != nil || len(ans.body) != 11 {
			t.Fatalf("got %d bytes, %v", len(ans.body), err)
		}
	}
}
