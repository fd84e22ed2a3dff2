// Command bareclient asks a broker for one credential many times the way the shim does (a
// fresh connection each time, no keep-alive) and prints each round trip in microseconds, one
// JSON array: the broker's answer without any process start around it.
//
// usage: bareclient <socket> <secret-file> <body-file> <requests>
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: bareclient <socket> <secret-file> <body-file> <requests>")
		os.Exit(2)
	}
	secret, err := os.ReadFile(os.Args[2])
	check(err)
	body, err := os.ReadFile(os.Args[3])
	check(err)
	n, err := strconv.Atoi(os.Args[4])
	check(err)
	request := []byte(fmt.Sprintf("POST /v1/credential HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		strings.TrimSpace(string(secret)), len(body), body))
	micros := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		started := time.Now()
		check(ask(os.Args[1], request))
		micros = append(micros, float64(time.Since(started).Nanoseconds())/1e3)
	}
	check(json.NewEncoder(os.Stdout).Encode(micros))
}

// ask sends one request on a new connection and reads the whole answer; anything but a 200
// with a body is an error, so a failing broker never counts as a fast one.
func ask(socket string, request []byte) error {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.Write(request); err != nil {
		return err
	}
	response, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return err
	}
	defer response.Body.Close()
	got, err := io.ReadAll(response.Body)
	if err != nil {
		return err
	}
	if response.StatusCode != http.StatusOK || !bytes.Contains(got, []byte(`"ExecCredential"`)) {
		return fmt.Errorf("answer %d: %.200s", response.StatusCode, got)
	}
	return nil
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bareclient:", err)
		os.Exit(1)
	}
}
